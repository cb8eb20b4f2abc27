import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadJobFile } from '../../src/config/load.js';
import { ConfigError, isGeobatchError } from '../../src/errors.js';
import { assemble } from '../../src/run/assemble.js';
import { runJobFile } from '../../src/run/job-file.js';
import { clearSecrets } from '../../src/secrets.js';
import { memoryLogger } from '../fixtures/run-helpers.js';
import { BROKEN_RULES, CLASHING_STEPS, HEAD, jobDir } from '../jobs/_file-rules-cases.js';
import { cli, ROOT } from './_cli.js';
import { validate } from './_validate.js';

const dir = jobDir();
afterAll(() => dir.remove());
afterEach(() => {
  vi.restoreAllMocks();
});

describe('geobatch validate: the rules across a kind’s mapping and options', () => {
  for (const [i, rule] of BROKEN_RULES.entries()) {
    it(`refuses ${rule.title}, as a run would`, async () => {
      const file = dir.write(`broken-${i}.yaml`, `${HEAD}${rule.body}`);
      const { out, error } = await validate(file);
      expect(out).toBe('');
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).message).toBe(`${file}: ${rule.path}: ${rule.message}`);
      expect((error as ConfigError).context).toMatchObject({
        file,
        path: rule.path,
        received: rule.received,
      });
    });
  }
});

describe('geobatch validate: steps that would write the same column', () => {
  it('refuses them as the run does, in the same words, before anything is built or sent', async () => {
    const file = dir.write('clash.yaml', CLASHING_STEPS);
    const { out, error } = await validate(file);
    expect(out).toBe('');
    expect(error).toBeInstanceOf(ConfigError);
    const refused = error as ConfigError;
    expect(refused.code).toBe('CONFIG_INVALID');
    expect(refused.message).toBe(
      `${file}: steps: customer-lookup (steps[0]) and identifier-lookup (steps[1]) would both write the column \`cust_company\``,
    );
    expect(refused.context).toMatchObject({ file, path: 'steps', received: 'cust_company' });

    const config = await loadJobFile(file, {});
    // A dry run needs no credentials and assembles the steps as a run does.
    const run = await assemble(config, { logger: memoryLogger().logger, dryRun: true }).catch(
      (e: unknown) => e,
    );
    expect(run).toBeInstanceOf(ConfigError);
    expect((run as ConfigError).message).toBe(refused.message);
    expect((run as ConfigError).context).toEqual(refused.context);
  });

  it('knows a matrix step’s columns without reading its destinations file', async () => {
    const file = dir.write(
      'matrix-clash.yaml',
      `${HEAD}steps:\n  - job: route\n    mapping: { originLon: a, originLat: b, destinationLon: c, destinationLat: d }\n    options: { prefix: '' }\n  - job: matrix\n    options: { destinations: { path: missing.csv } }\n`,
    );
    const { error } = await validate(file);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).context).toMatchObject({ path: 'steps', received: 'distance_m' });
  });

  it('accepts the same steps once one of them has a prefix of its own', async () => {
    const file = dir.write('no-clash.yaml', CLASHING_STEPS.replace('prefix: cust_', 'prefix: rec_'));
    const { out, error } = await validate(file);
    expect(error).toBeUndefined();
    expect(out).toContain('valid pipeline of 2 steps');
  });
});

describe('geobatch validate: the ready job files', () => {
  it('accepts every job file in jobs/ without sending a request', async () => {
    const files = readdirSync(join(ROOT, 'jobs')).filter((name) => name.endsWith('.yaml'));
    expect(files.length).toBeGreaterThan(10);
    for (const name of files) {
      const { out, error } = await validate(join(ROOT, 'jobs', name));
      expect(error, name).toBeUndefined();
      expect(out, name).toMatch(/: valid /);
      // The samples' planted bad rows are warned of, one by one; no rule fails them all.
      expect(out, name).not.toMatch(/warning: (each of the input's|the input's one row)/);
    }
  });
});

describe('geobatch validate on the command line', () => {
  it('exits 2 naming the file as given and the step’s path', async () => {
    dir.write('overlap.yaml', `${HEAD}${BROKEN_RULES.at(-1)?.body}`);
    const run = cli(['validate', 'jobs/overlap.yaml'], {}, { cwd: dir.root });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(
      'jobs/overlap.yaml: steps[1].options.overlap: expected at most half of maxPoints (100), so at most 50, got 51',
    );
    expect(run.out()).toBe('');
  });

  it('exits 2 on steps that would write the same column', async () => {
    dir.write('clash-cli.yaml', CLASHING_STEPS);
    const run = cli(['validate', 'jobs/clash-cli.yaml'], {}, { cwd: dir.root });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('would both write the column `cust_company`');
  });
});

describe('geobatch validate: an endpoint URL with a credential in it', () => {
  it('exits 2 naming the field and where credentials belong, and never prints the key', async () => {
    const key = 'k3y-written-into-a-url';
    dir.write(
      'url-key.yaml',
      `job: elevation\ninput: in.csv\noutput: out.csv\nservice:\n  endpoints:\n    elevation: "https://elev.example/?apiKey=${key}"\n`,
    );
    const run = cli(['validate', 'jobs/url-key.yaml'], {}, { cwd: dir.root });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(
      'jobs/url-key.yaml: service.endpoints.elevation: the URL carries a credential (the query parameter apiKey)',
    );
    expect(run.err()).toContain('export GEOBATCH_API_KEY instead');
    expect(`${run.out()}${run.err()}`).not.toContain(key);
  });
});

describe('geobatch validate: the files a run would write', () => {
  const job = (lines: string) => `job: elevation\ninput: in.csv\n${lines}`;
  it.each([
    ['an output named twice', 'outputs: [out/x.csv, out/x.csv]\n', /The output .*x\.csv is named twice/],
    ['standard output beside another output', 'outputs: [out/x.csv, "-"]\n', /can only be the one output/],
    [
      'an error report that is the output',
      'output: out/x.csv\nerrors: out/x.csv\n',
      /The error report .*x\.csv must be a file of its own: it is also an output/,
    ],
    ['an output that is the input', 'output: in.csv\n', /would overwrite the input/],
  ])('refuses %s, as a run would, before printing anything', async (_, lines, message) => {
    const file = dir.write(`files-${lines.length}.yaml`, job(lines));
    const { out, error } = await validate(file);
    expect(out).toBe('');
    expect((error as { code?: string }).code).toBe('USAGE');
    expect((error as Error).message).toMatch(message);
  });
});

describe('geobatch validate: a job the service settings are missing for', () => {
  // No elevation endpoint from the environment either: vitest puts back what was there.
  beforeEach(() => vi.stubEnv('GEOBATCH_ELEVATION_URL', undefined));
  afterEach(() => vi.unstubAllEnvs());

  it('points --emulator at `geobatch run`, which takes it (validate does not)', async () => {
    const file = dir.write('no-endpoint.yaml', 'job: elevation\ninput: in.csv\noutput: out.csv\n');
    const { out, error } = await validate(file);
    expect(error).toBeUndefined();
    expect(out).toContain(
      `  warning: ${file}: the elevation job needs service.endpoints.elevation (set it in the job file or export GEOBATCH_ELEVATION_URL=...; to try geobatch without a key, run it with \`geobatch run ${file} --emulator\`)\n`,
    );
  });

  it('quotes a job file path a shell would split, so that the command pastes as it is', async () => {
    const file = dir.write("Kunden 2024's.yaml", 'job: elevation\ninput: in.csv\noutput: out.csv\n');
    const { out, error } = await validate(file);
    expect(error).toBeUndefined();
    const quoted = `'${file.replace("'", `'\\''`)}'`;
    expect(out).toContain(`run it with \`geobatch run ${quoted} --emulator\`)`);
  });
});

describe('geobatch validate: the credentials the environment gives a run', () => {
  // No key at all, nor the legacy pair: vitest puts back what was there.
  beforeEach(() => {
    for (const name of ['GEOBATCH_API_KEY', 'GEOBATCH_SYSTEM_PARTNER', 'GEOBATCH_SECURITY_ID'])
      vi.stubEnv(name, undefined);
  });
  afterEach(() => vi.unstubAllEnvs());
  const geocode = 'job: geocode\ninput: in.csv\noutput: out.csv\nmapping: { street: s, zip: z, city: c }\n';

  it('warns of none and says valid (exit 0) where a job file is checked without its keys', async () => {
    const file = dir.write('no-key.yaml', geocode);
    const { out, error } = await validate(file);
    expect(error).toBeUndefined();
    expect(out).toContain('valid geocode job');
    expect(out).toContain(`  warning: ${file}: no credentials for the geocode job (export GEOBATCH_API_KEY`);
  });

  it('with --check-env refuses none as the run does, in its words, printing nothing', async () => {
    const file = dir.write('no-key-checked.yaml', geocode);
    const { out, error } = await validate(file, '--check-env');
    expect(out).toBe('');
    const run = await assemble(await loadJobFile(file), { logger: memoryLogger().logger }).catch(
      (e: unknown) => e,
    );
    expect(isGeobatchError(run) && run.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect((error as ConfigError).message).toBe(`${file}: no credentials for the geocode job`);
    expect((error as ConfigError).message).toBe((run as ConfigError).message);
    expect((error as ConfigError).context).toEqual((run as ConfigError).context);
    // With a key set, --check-env has nothing to refuse.
    vi.stubEnv('GEOBATCH_API_KEY', 'a-key');
    const keyed = await validate(file, '--check-env');
    expect(keyed.error).toBeUndefined();
    expect(keyed.out).toContain('valid geocode job');
    expect(keyed.out).not.toContain('credentials for');
  });
});

describe('geobatch validate: where the files a run would write go', () => {
  const job = (lines: string) => `job: elevation\ninput: in.csv\nmapping: { lon: lon, lat: lat }\n${lines}`;
  it.each([
    ['the output under a file', 'output: blocker.txt/x.csv\n', 'output', 'blocker.txt/x.csv'],
    [
      'the error report under a file',
      'output: out/x.csv\nerrors: blocker.txt/e.csv\n',
      'error report',
      'blocker.txt/e.csv',
    ],
    [
      'the run report under a file',
      'output: out/x.csv\nreport: blocker.txt/r.html\n',
      'run report',
      'blocker.txt/r.html',
    ],
  ])(
    'refuses %s, in the run’s words, before printing anything and creating nothing',
    async (_, lines, role, target) => {
      const blocker = dir.write('blocker.txt', 'not a directory\n');
      const file = dir.write(`under-file-${role.length}.yaml`, job(lines));
      const { out, error } = await validate(file);
      expect(out).toBe('');
      const path = join(dir.root, 'jobs', target);
      expect((error as { code?: string }).code).toBe('USAGE');
      expect((error as Error).message).toBe(
        `The ${role} ${path} cannot be written: ${blocker} is a file, not a directory`,
      );
      expect((error as { context?: unknown }).context).toMatchObject({
        file: path,
        received: `${blocker} is a file, not a directory`,
        hint: expect.stringContaining(`somewhere not under the file ${blocker}`),
      });
      expect(readdirSync(join(dir.root, 'jobs'))).not.toContain('out');
    },
  );

  it('refuses an output that is an existing directory, naming a file to give instead', async () => {
    const file = dir.write('output-directory.yaml', job('output: ../jobs\n'));
    const { out, error } = await validate(file);
    expect(out).toBe('');
    const path = join(dir.root, 'jobs');
    expect((error as { code?: string }).code).toBe('USAGE');
    expect((error as Error).message).toBe(`The output ${path} is an existing directory, not a file`);
    expect((error as { context?: unknown }).context).toMatchObject({
      file: path,
      received: 'a directory',
      hint: `Name a file, e.g. ${join(path, 'result.csv')}.`,
    });
  });

  it.each([
    ['output', 'output: ../o39/\n', '../o39/', 'name a file in it, e.g. ../o39/result.csv'],
    [
      'errors',
      'output: out/x.csv\nerrors: errdir/\n',
      'errdir/',
      'name a file in it, e.g. errdir/errors.csv',
    ],
    ['input', 'output: out/x.csv\n', 'in.csv/', 'name the file without the /, e.g. in.csv'],
  ])(
    'refuses %s: a path ending in /, which names a directory, before printing anything',
    async (key, lines, given, fix) => {
      const text = job(lines).replace('input: in.csv', key === 'input' ? `input: ${given}` : 'input: in.csv');
      const file = dir.write(`slash-${key}.yaml`, text);
      const { out, error } = await validate(file);
      expect(out).toBe('');
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).code).toBe('CONFIG_INVALID');
      expect((error as ConfigError).message).toBe(
        `${file}: ${key}: ${given} ends with / and so names a directory: ${fix}`,
      );
      expect((error as ConfigError).context).toMatchObject({ file, path: key, received: given });
      expect(readdirSync(dir.root)).not.toContain('o39');
    },
  );

  it('still accepts an output in a directory that does not exist yet, and makes none', async () => {
    const file = dir.write('fresh-directory.yaml', job('output: fresh/deeper/x.csv\n'));
    const { out, error } = await validate(file);
    expect(error).toBeUndefined();
    expect(out).toContain('valid elevation job');
    expect(readdirSync(join(dir.root, 'jobs'))).not.toContain('fresh');
  });

  it.each([
    ['in a directory that takes no new file though root may write it', '/proc/x.csv'],
    ['under a directory that can be made nowhere', '/proc/sub/x.csv'],
  ])('refuses an output %s, with the run’s code and words', async (_, output) => {
    dir.write('proc-in.csv', 'lon,lat\n8.4,49\n');
    const file = dir.write('proc.yaml', job(`output: ${output}\n`).replace('in.csv', 'proc-in.csv'));
    const { out, error } = await validate(file);
    expect(out).toBe('');
    const run = await runJobFile(file, {
      env: { GEOBATCH_ELEVATION_URL: 'http://127.0.0.1:9', GEOBATCH_API_KEY: 'k' },
      logger: memoryLogger().logger,
    }).catch((e: unknown) => e);
    expect(isGeobatchError(run) && run.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect((error as Error).message).toBe((run as Error).message);
    expect((error as Error).message).toMatch(/^The output \/proc\/(sub\/)?x\.csv cannot be written: /);
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: output,
      hint: (run as ConfigError).context.hint,
    });
  });

  it('leaves nothing behind in the directory it probed', async () => {
    const file = dir.write('probed.yaml', job('output: probed/x.csv\n'));
    mkdirSync(join(dir.root, 'jobs', 'probed'), { recursive: true });
    const { error } = await validate(file);
    expect(error).toBeUndefined();
    expect(readdirSync(join(dir.root, 'jobs', 'probed'))).toEqual([]);
  });
});

describe('geobatch validate: the first rows, planned as the run plans them', () => {
  it('warns when every row it reads would fail for the same reason, and still says valid', async () => {
    dir.write('ab.csv', 'id,lon,lat\n1,,\n2,,\n');
    const { out, error } = await validate(
      dir.write('ab.yaml', 'job: elevation\ninput: ab.csv\noutput: ab.out.csv\n'),
    );
    expect(error).toBeUndefined();
    expect(out).toContain('valid elevation job');
    expect(out).toContain(
      "  warning: each of the input's 2 rows would fail before any request: lon and lat: both empty; expected a longitude and a latitude\n",
    );
  });

  it('refuses a header without the default point columns, as the run does, naming a geometry written as text', async () => {
    dir.write('wkt.csv', 'WKT,fid,name\n"POINT (13.4 52.5)",1,Berlin\n');
    const wkt = await validate(
      dir.write('wkt.yaml', 'job: elevation\ninput: wkt.csv\noutput: wkt.out.csv\n'),
    );
    expect(wkt.out).toBe('');
    expect(wkt.error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: `${join(dir.root, 'jobs', 'wkt.yaml')}: mapping.lon and mapping.lat are read from a default column, and the input's header has no longitude column (lon, lng, longitude or x) and no latitude column (lat, latitude or y): every row would fail`,
      context: {
        path: 'mapping.lon',
        expected:
          'a longitude column (lon, lng, longitude or x) and a latitude column (lat, latitude or y), or a mapping to the columns that hold the points',
        received: '"WKT", "fid", "name"',
        hint: 'the header has "WKT", a geometry written as text, which geobatch does not read: export the points\' coordinates as columns (QGIS: GEOMETRY=AS_XY) or the layer as GeoJSON; or map the columns that hold them: `mapping: { lon: <column>, lat: <column> }`',
      },
    });
    // One axis missing, the other mapped: only its key is named.
    dir.write('half.csv', 'id,breite,lat\n1,8.4,49\n');
    const half = await validate(
      dir.write(
        'half.yaml',
        'job: elevation\ninput: half.csv\noutput: half.out.csv\nmapping: { lat: breite }\n',
      ),
    );
    expect(half.error).toMatchObject({
      code: 'CONFIG_INVALID',
      context: {
        path: 'mapping.lon',
        hint: 'map the columns that hold them: `mapping: { lon: <column> }` (the header has "id", "breite", "lat")',
      },
    });
  });

  it('lets a later step read the point an earlier step gives, whatever columns the header has', async () => {
    dir.write('places.csv', 'id,plz,ort\n1,98527,Suhl\n');
    const { out, error } = await validate(
      dir.write(
        'placed.yaml',
        'input: places.csv\noutput: placed.out.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz, city: ort }\n  - job: elevation\n',
      ),
    );
    expect(error).toBeUndefined();
    expect(out).toContain('valid pipeline');
    // An area is no point: after area-export, elevation still reads the input's columns.
    dir.write('areas.csv', 'area_ref,osmid,name\nA1,40002000,Hamburg\n');
    const areas = await validate(
      dir.write(
        'areas.yaml',
        'input: areas.csv\noutput: areas.out.csv\nsteps:\n  - job: area-export\n    mapping: { osmid: osmid }\n    options: { geometryColumn: none }\n  - job: elevation\n',
      ),
    );
    expect(areas.error).toMatchObject({ code: 'CONFIG_INVALID', context: { path: 'steps[1].mapping.lon' } });
  });

  it('plans the first rows with input.decimal, as the run reads them', async () => {
    dir.write('german.csv', 'lon;lat\n8,5;49,1\n8,6;49,2\n');
    const file = (decimal: string) =>
      dir.write(
        `german-${decimal === ',' ? 'comma' : 'point'}.yaml`,
        `job: elevation\ninput: { path: german.csv, decimal: "${decimal}" }\n` +
          'output: { path: german.out.csv, delimiter: ";", decimal: "," }\n',
      );
    const comma = await validate(file(','));
    expect(comma.error).toBeUndefined();
    expect(comma.out).toContain('valid elevation job');
    expect(comma.out).toMatch(/^ {2}input {8}\S+\/german\.csv \(csv, decimal ","\)$/m);
    expect(comma.out).not.toContain('would fail');
    // The same rows with ".": the warning the run's failures would give.
    const point = await validate(file('.'));
    expect(point.error).toBeUndefined();
    expect(point.out).toContain(
      "  warning: each of the input's 2 rows would fail before any request: lon: expected a longitude in decimal " +
        'degrees written with input.decimal "." (`,` only between groups of three digits, as in 1,500,000.25), got `8,5`',
    );
    const wrong = await validate(
      dir.write(
        'german-semi.yaml',
        'job: elevation\ninput: { path: german.csv, decimal: ";" }\noutput: x.csv\n',
      ),
    );
    expect(wrong.out).toBe('');
    expect(isGeobatchError(wrong.error) && wrong.error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(wrong.error) && wrong.error.context).toMatchObject({ path: 'input.decimal' });
  });

  it('refuses, printing nothing, an input the run refuses as it reads it: a GeoJSON that is no FeatureCollection', async () => {
    dir.write(
      'one.geojson',
      '{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[8,49]}}',
    );
    const { out, error } = await validate(
      dir.write('one.yaml', 'job: elevation\ninput: one.geojson\noutput: one.out.csv\n'),
    );
    expect(out).toBe('');
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toMatch(
      /^Expected a GeoJSON FeatureCollection in .*one\.geojson: it is a single Feature$/,
    );
  });

  it('refuses a delimiter the header does not use, where the point is read from default columns', async () => {
    // It said valid, with a warning that every row would fail; the run then failed them all.
    dir.write('semi.csv', 'lon;lat\n8,5;49,1\n8,6;49,2\n');
    const { error } = await validate(
      dir.write(
        'semi.yaml',
        'job: elevation\ninput: { path: semi.csv, delimiter: "," }\noutput: semi.out.csv\n',
      ),
    );
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      context: {
        path: 'mapping.lon',
        hint: 'the header reads as one column, "lon;lat", which holds ";": set input.delimiter to it (or to auto)',
      },
    });
  });

  it('warns when every row it reads cannot be read as a record: rows wider than the header', async () => {
    dir.write('wide.csv', 'lon,lat\n8.5,49.1,x\n8.6,49.2,y\n');
    const { out, error } = await validate(
      dir.write('wide.yaml', 'job: elevation\ninput: wide.csv\noutput: wide.out.csv\n'),
    );
    expect(error).toBeUndefined();
    expect(out).toContain(
      "  warning: each of the input's 2 rows would fail before any request: Malformed CSV record: expected 2 fields (as in the header), got 3\n",
    );
  });

  it('notes a CSV output written with commas from an input separated otherwise, until output.delimiter says how', async () => {
    dir.write('excel.csv', 'Nr;lon;lat\n1;8,4;49\n2;8,5;49,1\n');
    const plain = await validate(
      dir.write(
        'excel.yaml',
        'job: elevation\ninput: excel.csv\noutputs: [excel.out.csv, excel.out.geojson]\n',
      ),
    );
    expect(plain.error).toBeUndefined();
    expect(plain.out).toMatch(
      /\n {2}note: the input is separated by ";", \S*excel\.out\.csv by commas \(output\.delimiter is not set\): .* Set output\.delimiter: ";" /,
    );
    // Said once, naming only the CSV output.
    expect(plain.out.match(/note:/g)).toHaveLength(1);
    expect(plain.out).not.toMatch(/note:.*geojson/);
    for (const output of [
      '{ path: excel.out.csv, delimiter: ";" }',
      '{ path: excel.out.csv, delimiter: "," }',
    ]) {
      const { out, error } = await validate(
        dir.write('excel-set.yaml', `job: elevation\ninput: excel.csv\noutput: ${output}\n`),
      );
      expect(error).toBeUndefined();
      expect(out).not.toContain('note:');
    }
    dir.write('tabs.csv', 'lon\tlat\n8.4\t49\n');
    const tsv = await validate(
      dir.write('tabs.yaml', 'job: elevation\ninput: tabs.csv\noutput: tabs.out.tsv\n'),
    );
    expect(tsv.out).not.toContain('note:');
    // A .tsv output is written with tabs whatever the input's separator: not "by commas".
    const semiTsv = await validate(
      dir.write(
        'excel-tsv.yaml',
        'job: elevation\ninput: excel.csv\noutputs: [excel.out.tsv, excel.out.csv]\n',
      ),
    );
    expect(semiTsv.error).toBeUndefined();
    expect(semiTsv.out).toMatch(/\n {2}note: the input is separated by ";", \S*excel\.out\.csv by commas /);
    expect(semiTsv.out).not.toContain('excel.out.tsv by commas');
    expect(semiTsv.out).not.toContain('excel.out.tsv,');
    dir.write('commas.csv', 'lon,lat\n8.4,49\n');
    const commas = await validate(
      dir.write('commas.yaml', 'job: elevation\ninput: commas.csv\noutput: commas.out.csv\n'),
    );
    expect(commas.out).not.toContain('note:');
  });

  it('warns of job columns that replace input columns of the same name, as the run does, for any output', async () => {
    dir.write('placed.csv', 'street,plz,city,lat,lon\nUnter den Linden 1,10117,Berlin,1,2\n');
    const head = 'job: geocode\ninput: placed.csv\nmapping: { street: street, zip: plz, city: city }\n';
    const { out, error } = await validate(
      dir.write('placed.yaml', `${head}output: placed.out.csv\noptions: { prefix: "" }\n`),
    );
    expect(error).toBeUndefined();
    const warning =
      '\n  warning: Job column(s) lon, lat, street, city replace the input column(s) of the same name\n';
    expect(out).toContain(warning);
    // A GeoJSON output loses the input's values as a CSV one does.
    const geojson = await validate(
      dir.write('placed-geojson.yaml', `${head}output: placed.out.geojson\noptions: { prefix: "" }\n`),
    );
    expect(geojson.out).toContain(warning);
    // With the default prefix, none.
    const other = await validate(dir.write('placed-prefixed.yaml', `${head}output: placed.out.csv\n`));
    expect(other.error).toBeUndefined();
    expect(other.out).not.toContain('replace the input column');
  });

  it('warns of an input that does not exist when no mapped column would have said so', async () => {
    const { out, error } = await validate(
      dir.write('missing.yaml', 'job: elevation\ninput: nowhere.csv\noutput: m.csv\n'),
    );
    expect(error).toBeUndefined();
    expect(out).toMatch(
      /\n {2}warning: the input .*nowhere\.csv does not exist \(yet\): a run would stop on it\n/,
    );
  });

  it.each([
    ['empty.csv', '', 'is empty (0 bytes)'],
    ['header.csv', 'id,lon,lat\n', 'has no data rows'],
    ['none.geojson', '{"type":"FeatureCollection","features":[]}', 'has no data rows'],
  ])(
    'warns that %s has no row, as the run ends on it with exit 4, and still says valid',
    async (name, text, what) => {
      dir.write(name, text);
      const { out, error } = await validate(
        dir.write(`${name}.yaml`, `job: elevation\ninput: ${name}\noutput: ${name}.out.csv\n`),
      );
      expect(error).toBeUndefined();
      expect(out).toContain('valid elevation job');
      expect(out).toContain(
        `  warning: the input ${join(dir.root, 'jobs', name)} ${what}: a run would write its outputs with no row and exit 4 (INPUT_EMPTY)\n`,
      );
    },
  );

  it.each([
    ['csv', (c: string[]) => `${c.join(',')}\n${c.map(() => '1').join(',')}\n`],
    ['ndjson', (c: string[]) => `${JSON.stringify(Object.fromEntries(c.map((k) => [k, 1])))}\n`],
  ])(
    'refuses, printing nothing, a GeoPackage output of more columns than SQLite holds from a %s input',
    async (format, text) => {
      // fid, geom, elevation_m, elevation_nodata, the status pair: 6 besides the input's.
      const columns = (n: number) => Array.from({ length: n }, (_, i) => ['lon', 'lat'][i] ?? `c${i}`);
      dir.write(`fits.${format}`, text(columns(1994)));
      const fits = await validate(
        dir.write(`fits-${format}.yaml`, `job: elevation\ninput: fits.${format}\noutput: fits.gpkg\n`),
      );
      expect(fits.error).toBeUndefined();
      dir.write(`wide.${format}`, text(columns(1995)));
      const { out, error } = await validate(
        dir.write(`wide-${format}.yaml`, `job: elevation\ninput: wide.${format}\noutput: wide.gpkg\n`),
      );
      expect(out).toBe('');
      const gpkg = join(dir.root, 'jobs', 'wide.gpkg');
      expect(error).toMatchObject({
        code: 'USAGE',
        message: `The GeoPackage ${gpkg} would have 2001 columns (fid, geom, 1995 of the input, 4 geobatch adds), more than the 2000 an SQLite table holds`,
        context: { file: gpkg, expected: 'at most 2000 columns', received: '2001 columns' },
      });
    },
  );

  it('says each row would fail when all do, and which rows when only some do', async () => {
    const bad = Array.from({ length: 30 }, (_, i) => `${i},8.4,49`);
    // Degrees in columns declared MERCATOR, each row its own values: the warning quotes the first.
    dir.write('merc.csv', 'id,x,y\n1,8.4,49\n2,9.1,50.2\n');
    const merc = await validate(
      dir.write(
        'merc.yaml',
        'job: elevation\ninput: merc.csv\noutput: merc.out.csv\nmapping: { lon: x, lat: y }\noptions: { coordFormat: MERCATOR }\n',
      ),
    );
    expect(merc.out).toMatch(/warning: each of the input's 2 rows would fail before any request: x: .*8\.4/);
    dir.write('many.csv', `id,lon,lat\n${bad.map((row) => row.replace(',8.4,', ',,')).join('\n')}\n`);
    const many = await validate(
      dir.write('many.yaml', 'job: elevation\ninput: many.csv\noutput: many.out.csv\n'),
    );
    expect(many.out).toContain(
      "  warning: each of the input's 30 rows would fail before any request: lon: expected a longitude, got an empty value",
    );
    dir.write('mixed.csv', 'id,lon,lat\n1,,\n2,8.4,49\n');
    const mixed = await validate(
      dir.write('mixed.yaml', 'job: elevation\ninput: mixed.csv\noutput: mixed.out.csv\n'),
    );
    expect(mixed.error).toBeUndefined();
    expect(mixed.out).toContain(
      "  warning: 1 of the input's 2 rows would fail before any request: row 1 (line 2): lon and lat: both empty; expected a longitude and a latitude\n",
    );
  });
});

describe('geobatch validate: what it prints', () => {
  it('scrubs a partner name, as a run logs it: an account name in a constant or a path', async () => {
    vi.stubEnv('GEOBATCH_PARTNER', 'Prt9partnerQQ');
    try {
      const file = dir.write(
        'partner-named.yaml',
        'input: in.csv\noutput: Prt9partnerQQ/out.csv\njob: geocode\nmapping: { city: city, district: { value: Prt9partnerQQ } }\n',
      );
      const { out, error } = await validate(file);
      expect(error).toBeUndefined();
      expect(out).toContain('[redacted]');
      expect(out).not.toContain('Prt9partnerQQ');
    } finally {
      vi.unstubAllEnvs();
      clearSecrets();
    }
  });
});

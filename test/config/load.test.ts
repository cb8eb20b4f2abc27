import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf, loadJobFile, parseJobFile } from '../../src/config/load.js';
import { applyOverrides } from '../../src/config/overrides.js';
import { GeobatchError } from '../../src/errors.js';
import { INPUT_DECIMAL } from '../../src/jobs/_fields.js';
import { clearSecrets } from '../../src/secrets.js';
import { configError } from '../fixtures/config-error.js';

const FILE = '/jobs/geocode.yaml';

function load(text: string, env: Record<string, string> = {}) {
  return parseJobFile(text, FILE, env, 'jobs/geocode.yaml');
}

const GEOCODE = `
job: geocode
input: ../samples/addresses.csv
output: ../out/addresses.geocoded.csv
mapping:
  zip: plz
  city: { column: city }
  country: { value: DE }
`;

describe('loadJobFile', () => {
  it('resolves paths relative to the job file and formats from extensions', () => {
    const config = load(GEOCODE);
    expect(config.kind).toBe('geocode');
    expect(config.name).toBe('geocode');
    expect(config.input).toEqual({
      path: path.resolve('/samples/addresses.csv'),
      format: 'csv',
      delimiter: undefined,
      encoding: undefined,
    });
    expect(config.output.path).toBe(path.resolve('/out/addresses.geocoded.csv'));
    expect(config.errors).toEqual({
      path: path.resolve('/out/addresses.geocoded.errors.csv'),
      format: 'csv',
    });
  });

  it('reads a leading ~/ as the home directory, as a shell would, and ~user as a name', () => {
    const config = load('job: elevation\ninput: ~/in.csv\noutput: ~/out/o.csv\nerrors: ~user/e.csv\n');
    expect(config.input.path).toBe(path.join(homedir(), 'in.csv'));
    expect(config.output.path).toBe(path.join(homedir(), 'out/o.csv'));
    expect(config.errors.path).toBe(path.resolve('/jobs/~user/e.csv'));
  });

  it('reads the input record limits the readers take', () => {
    const config = load(
      'job: elevation\ninput: { path: p.csv, maxRecordBytes: 1000, maxRecordLines: 5 }\noutput: o.csv\n',
    );
    expect(config.input).toMatchObject({ maxRecordBytes: 1000, maxRecordLines: 5 });
  });

  it("gives input.decimal to every step's mapping, and to the input's part of the fingerprint", () => {
    const text = (input: string) =>
      `input: ${input}\noutput: o.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz }\n` +
      '  - job: elevation\n    mapping: { lon: lon, lat: lat }\n';
    const config = load(text('{ path: in.csv, decimal: "," }'));
    expect(config.input).toMatchObject({ decimal: ',' });
    expect(config.steps.map((step) => step.mapping[INPUT_DECIMAL])).toEqual([',', ',']);
    const plain = load(text('in.csv'));
    expect(plain.input).not.toHaveProperty('decimal');
    expect(plain.steps.map((step) => step.mapping[INPUT_DECIMAL])).toEqual([undefined, undefined]);
    expect(fingerprintOf(plain)).toBe(fingerprintOf(load(text('{ path: in.csv }'))));
    expect(fingerprintOf(config)).not.toBe(fingerprintOf(plain));
  });

  it('refuses an input.decimal other than "." or ",", naming the key', () => {
    const error = configError(() =>
      load('job: elevation\ninput: { path: in.csv, decimal: ";" }\noutput: o.csv\n'),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('input.decimal');
    expect(error.message).toContain('input.decimal');
  });

  it('maps each request field to a column or a constant', () => {
    expect(load(GEOCODE).steps[0]?.mapping).toEqual({
      zip: { column: 'plz' },
      city: { column: 'city' },
      country: { value: 'DE' },
    });
  });

  it('takes input and output formats from the extensions the readers know', () => {
    const config = load('job: elevation\ninput: points.geojsonl\noutput: points.TSV\n');
    expect(config.input.format).toBe('ndjson');
    expect(config.output.format).toBe('csv');
    expect(load('job: elevation\ninput: p.jsonl\noutput: p.json\n').output.format).toBe('geojson');
  });

  it('accepts the same job as JSON', () => {
    const json = JSON.stringify({ job: 'elevation', input: 'p.ndjson', output: 'p.geojson' });
    const config = load(json);
    expect(config.input.format).toBe('ndjson');
    expect(config.output.format).toBe('geojson');
  });

  it('reads credentials and endpoints from the environment without naming them in the file', () => {
    const config = load(GEOCODE, {
      GEOBATCH_API_KEY: 'from-env-key',
      GEOBATCH_ELEVATION_URL: 'http://127.0.0.1:9/',
    });
    expect(config.service.credentials.apiKey).toBe('from-env-key');
    expect(config.service.endpoints.elevation).toBe('http://127.0.0.1:9/');
    // Public endpoints are left to the client's defaults.
    expect(config.service.endpoints.geojson).toBeUndefined();
  });

  it('points every endpoint at an emulator when GEOBATCH_EMULATOR_URL is set', () => {
    const config = load(GEOCODE, { GEOBATCH_EMULATOR_URL: 'http://127.0.0.1:8787' });
    expect(config.service.endpoints.geojson).toBe('http://127.0.0.1:8787/api_rst/v2/geojson');
    expect(config.service.endpoints.addressSearch).toBe('http://127.0.0.1:8787/addresssearch/v2');
  });

  it('interpolates environment references in the file', () => {
    const text = `${GEOCODE}service:\n  credentials:\n    apiKey: \${MY_KEY}\n  channel: \${CHANNEL:-nightly}\n`;
    const config = load(text, { MY_KEY: 'k-123456' });
    expect(config.service.credentials.apiKey).toBe('k-123456');
    expect(config.service.channel).toBe('nightly');
  });
});

describe('loadJobFile errors', () => {
  it('says a job file path names nothing, or a directory, in words with a next step', async () => {
    const missing = (await loadJobFile('no-such-job.yaml').then(
      () => undefined,
      (e: unknown) => e,
    )) as GeobatchError;
    expect(missing).toBeInstanceOf(GeobatchError);
    expect(missing.code).toBe('CONFIG_INVALID');
    expect(missing.message).toBe('no-such-job.yaml: no such job file');
    expect(missing.context).toMatchObject({
      file: 'no-such-job.yaml',
      hint: expect.stringContaining('geobatch init'),
    });
    const folder = (await loadJobFile('test').then(
      () => undefined,
      (e: unknown) => e,
    )) as GeobatchError;
    expect(folder.message).toBe('test: a directory, not a job file');
    const empty = (await loadJobFile('').then(
      () => undefined,
      (e: unknown) => e,
    )) as GeobatchError;
    expect(empty.message).toBe('no job file named: the path is empty');
    expect(folder.context.hint).toContain('.yaml');
  });

  it('refuses a job file named with a trailing slash, which names a directory, in run and validate alike', async () => {
    for (const file of ['jobs/geocode.yaml/', 'jobs/geocode.yaml//', `${process.cwd()}/jobs/geocode.yaml/`]) {
      const error = (await loadJobFile(file).then(
        () => undefined,
        (e: unknown) => e,
      )) as GeobatchError;
      expect(error).toBeInstanceOf(GeobatchError);
      expect(error.code).toBe('CONFIG_INVALID');
      const named = file.replace(/\/+$/, '');
      expect(error.message).toBe(`${file}: no such job file: ${named} is a file, not a directory`);
      expect(error.context).toMatchObject({
        file,
        hint: `a path ending in / names a directory; to name the job file, drop the slash: ${named}`,
      });
    }
    // `.` after it is read as the system reads it too, and a slash after a directory stays one.
    const dot = (await loadJobFile('jobs/geocode.yaml/.').catch((e: unknown) => e)) as GeobatchError;
    expect(dot.message).toBe(
      'jobs/geocode.yaml/.: no such job file: jobs/geocode.yaml is a file, not a directory',
    );
    const folder = (await loadJobFile('jobs/').catch((e: unknown) => e)) as GeobatchError;
    expect(folder.message).toBe('jobs/: a directory, not a job file');
    expect((await loadJobFile('jobs/geocode.yaml')).name).toBe('geocode');
  });

  it('reads the relative paths of a job file named through a link and `..` beside the file the system read', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'geobatch-link-'));
    try {
      mkdirSync(path.join(dir, 'real', 'sub'), { recursive: true });
      symlinkSync(path.join(dir, 'real', 'sub'), path.join(dir, 'lnk'));
      writeFileSync(
        path.join(dir, 'real', 'g.yaml'),
        'job: geocode\ninput: data/in.csv\noutput: out/g.csv\nmapping: { street: s, city: c }\n',
      );
      const config = await loadJobFile(path.join(dir, 'lnk') + '/../g.yaml');
      expect(config.input.path).toBe(path.join(dir, 'real', 'data', 'in.csv'));
      expect(config.output.path).toBe(path.join(dir, 'real', 'out', 'g.csv'));
      // A path whose text and the system agree keeps the text's directory, a linked folder's too.
      symlinkSync(path.join(dir, 'real'), path.join(dir, 'jobs'));
      const linked = await loadJobFile(path.join(dir, 'jobs', 'g.yaml'));
      expect(linked.input.path).toBe(path.join(dir, 'jobs', 'data', 'in.csv'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a job file from a descriptor by its path, as the closing line does, and its report for `-` by its number', async () => {
    const fd = openSync('jobs/geocode.yaml', 'r');
    try {
      const config = await loadJobFile(`/dev/fd/${fd}`);
      expect(config.name).toBe(`/dev/fd/${fd}`);
      const piped = applyOverrides(config, { output: '-', errors: undefined });
      expect(piped.errors.path).toBe(path.resolve(`${fd}.errors.csv`));
    } finally {
      closeSync(fd);
    }
    expect((await loadJobFile('jobs/geocode.yaml')).name).toBe('geocode');
  });

  it('refuses a literal secret in the file without echoing it', () => {
    const error = configError(() =>
      load(`${GEOCODE}service:\n  credentials:\n    apiKey: literal-key-value\n`),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('service.credentials.apiKey');
    expect(error.context.expected).toContain('GEOBATCH_API_KEY');
    expect(error.message).not.toContain('literal-key-value');
  });

  it('names the unset variable and where it is used', () => {
    const error = configError(() => load(`${GEOCODE}service:\n  channel: \${NOT_SET}\n`));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('service.channel');
    expect(error.message).toContain('NOT_SET');
  });

  it('leaves an unset credential variable for the run to refuse, as --dry-run and --emulator need none', () => {
    const config = load(`${GEOCODE}service:\n  credentials:\n    apiKey: \${NOT_SET}\n`);
    expect(config.service.credentials.apiKey).toBe(`\${NOT_SET}`);
  });

  it('names the file, the path inside it, what was expected and what came', () => {
    const error = configError(() =>
      load('job: elevation\ninput: a.csv\noutput: b.csv\noptions:\n  batchSize: 600\n'),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.file).toBe('jobs/geocode.yaml');
    expect(error.context.path).toBe('options.batchSize');
    expect(error.message).toBe(
      'jobs/geocode.yaml: options.batchSize: the service takes at most 500 points a request, got 600',
    );
  });

  it("names the routing point limit as the emulator's, since the spec publishes none for the service", () => {
    for (const [job, option] of [
      ['match\nmapping: { track: t }', 'maxPoints'],
      ['trip\nmapping: { trip: t }', 'maxStops'],
    ] as const) {
      const error = configError(() =>
        load(`job: ${job}\ninput: a.csv\noutput: b.csv\noptions:\n  ${option}: 1001\n`),
      );
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe(`options.${option}`);
      expect(error.message).toBe(
        `jobs/geocode.yaml: options.${option}: geobatch sends at most 1000 points a request (the emulator's limit; the spec publishes none for the service), got 1001`,
      );
    }
  });

  it('asks for a whole number where a count came with decimals', () => {
    const error = configError(() =>
      load(
        "job: address-search\ninput: a.csv\noutput: b.csv\noptions: { branches: '1201', radiusMeters: 1.5 }\n",
      ),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('options.radiusMeters');
    expect(error.message).toBe('jobs/geocode.yaml: options.radiusMeters: expected a whole number, got 1.5');
  });

  it('names a record field listed twice, not two steps writing one column', () => {
    for (const job of ['customer-lookup\nmapping: { key: k }', 'identifier-lookup\nmapping: { id: y }']) {
      const error = configError(() =>
        load(`job: ${job}\ninput: a.csv\noutput: b.csv\noptions: { fields: [ymid, lon, ymid] }\n`),
      );
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe('options.fields[2]');
      expect(error.message).toBe(
        'jobs/geocode.yaml: options.fields[2]: expected each field once (it is listed before), got "ymid"',
      );
    }
  });

  it('takes null for a stopOnRetryAfterMs that never stops, keeps 0, and names what else it takes', () => {
    const retry = (value: string) =>
      load(`${GEOCODE}service:\n  retry: { stopOnRetryAfterMs: ${value} }\n`).service.retry;
    expect(retry('null')).toEqual({ stopOnRetryAfterMs: null });
    expect(retry('0')).toEqual({ stopOnRetryAfterMs: 0 });
    const error = configError(() => retry('off'));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ path: 'service.retry.stopOnRetryAfterMs' });
    expect(error.message).toBe(
      'jobs/geocode.yaml: service.retry.stopOnRetryAfterMs: expected number or null, got "off"',
    );
    expect(configError(() => retry('-1')).message).toContain('expected at least 0, got -1');
  });

  it('says an empty text is one, not "expected at least 1"', () => {
    const error = configError(() =>
      load('job: geocode\ninput: a.csv\noutput: ""\nmapping: { zip: "", city: city }\n'),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ path: 'output', expected: 'expected a non-empty string, got ""' });
    expect(error.message).toBe(
      'jobs/geocode.yaml: output: expected a non-empty string, got ""\njobs/geocode.yaml: mapping.zip: expected a non-empty string, got ""',
    );
  });

  it('rejects a misspelt key instead of ignoring it', () => {
    const error = configError(() => load(`${GEOCODE}run:\n  windw: 10\n`));
    expect(error.context.path).toBe('run');
    expect(error.message).toContain('unknown key `windw`');
  });

  it('lists the job kinds when the kind is unknown', () => {
    const error = configError(() => load('job: teleport\ninput: a.csv\noutput: b.csv\n'));
    expect(error.context.path).toBe('job');
    expect(error.message).toContain('geocode');
    expect(error.message).toContain('got "teleport"');
  });

  it('reports the line of a YAML syntax error', () => {
    const error = configError(() => load('job: geocode\ninput: [a.csv\noutput: b.csv\n'));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(/^jobs\/geocode\.yaml:\d+:\d+: not valid YAML or JSON/);
  });

  it('puts the place of a YAML error first and shows its line, not a dangling "at line 2, column 8:"', () => {
    const error = configError(() => load('job: geocode\ninput: a.csv\n  output: b.csv\n'));
    expect(error.message).toBe(
      'jobs/geocode.yaml:2:8: not valid YAML or JSON: Nested mappings are not allowed in compact mappings\n' +
        '  input: a.csv\n' +
        '         ^',
    );
    expect(error.context).toMatchObject({ file: 'jobs/geocode.yaml', detail: { line: 2, column: 8 } });
  });

  it("masks what may be a secret in a syntax error's excerpt, and shows the rest", () => {
    const file = [
      'job: geocode',
      'input: a.csv',
      'output: b.csv',
      'service:',
      '  credentials:',
      '    apiKey: Zq9SECRETkey77',
      '   partner: x',
    ].join('\n');
    const error = configError(() => load(file));
    expect(error.message).toBe(
      'jobs/geocode.yaml:7:1: not valid YAML or JSON: All mapping items must start at the same column\n' +
        '      apiKey: **************\n' +
        '     partner: x\n' +
        '  ^',
    );
    const url = configError(() =>
      load(
        'job: geocode\nservice: { endpoints: { geojson: https://h.example/g?apiKey=Zq9SECRETkey77, area: [\n',
      ),
    );
    expect(url.message).not.toContain('Zq9SECRETkey77');
    expect(url.message).toContain('{ endpoints: { geojson: https://h.example/g?apiKey=**************');
    // A key the environment holds, written where no key name gives it away.
    const held = configError(() =>
      load('job: geocode\nmapping: { city: { value: "Zq9SECRETkey77 }\n', {
        GEOBATCH_API_KEY: 'Zq9SECRETkey77',
      }),
    );
    expect(held.message).not.toContain('Zq9SECRETkey77');
    // A password in a URL after a key, a block scalar's key on the line below it, a value with
    // spaces, an account name: each masked.
    for (const [written, secret] of [
      ['job: geocode\ncache: { path: "postgres://geo:pa55w0rd@db.example/x" }\n  x: 1\n', 'pa55w0rd'],
      [
        'job: geocode\nservice:\n  credentials:\n    apiKey: >-\n      sk-live-FOLDEDKEY\n   partner: x\n',
        'FOLDEDKEY',
      ],
      ['job: geocode\nservice:\n  credentials:\n    apiKey: sk-live,1234 5678: x\n   x: 1\n', '1234 5678'],
      ['{"job": "geocode", "apiKey": "abc def ghi", x\n', 'def ghi'],
      [
        'job: geocode\nservice:\n  credentials:\n    partner: acme-corp-secretpartner\n   x: 1\n',
        'secretpartner',
      ],
    ] as const) {
      const masked = configError(() => load(written));
      expect(masked.message, written).toMatch(/not valid YAML or JSON/);
      expect(masked.message, written).not.toContain(secret);
    }
    // The mistake itself stays in view: an unclosed quote, a column name.
    const quote = configError(() =>
      load('job: elevation\ninput: "../samples/places.csv\noutput: out/m.csv\n'),
    );
    expect(quote.message).toContain('output: out/m.csv');
  });
});

describe('fingerprintOf', () => {
  it('changes with the job meaning but not with tuning or secrets', () => {
    const base = fingerprintOf(load(GEOCODE, { GEOBATCH_API_KEY: 'one-key' }));
    expect(fingerprintOf(load(GEOCODE, { GEOBATCH_API_KEY: 'other-key' }))).toBe(base);
    expect(fingerprintOf(load(`${GEOCODE}service:\n  throttle:\n    rate: 5\n`))).toBe(base);
    expect(fingerprintOf(load(GEOCODE.replace('zip: plz', 'zip: postcode')))).not.toBe(base);
  });
});

describe('CSV reading and writing keys', () => {
  it('resolves maxRecordBytes, maxRecordLines and the output delimiter the README documents', () => {
    const config = load(
      'job: elevation\ninput: { path: in.csv, maxRecordBytes: 1024, maxRecordLines: 7 }\n' +
        'output: { path: out.csv, delimiter: tab }\n',
    );
    expect(config.input).toMatchObject({ maxRecordBytes: 1024, maxRecordLines: 7 });
    expect(config.output.delimiter).toBe('\t');
  });

  it('reads the same keys for a matrix destinations file', () => {
    const config = load(
      'job: matrix\ninput: o.csv\noutput: m.csv\noptions:\n  destinations: { path: d.csv, maxRecordLines: 3, maxRecordBytes: 64, delimiter: ";" }\n',
    );
    expect(config.steps[0]?.sideInputs.destinations).toMatchObject({
      maxRecordLines: 3,
      maxRecordBytes: 64,
      delimiter: ';',
    });
  });

  it('refuses an output delimiter a CSV writer cannot use', () => {
    const error = configError(() =>
      load('job: elevation\ninput: in.csv\noutput: { path: o.csv, delimiter: auto }\n'),
    );
    expect(error.context.path).toBe('output.delimiter');
  });
});

describe('matrix jobs without destinations', () => {
  const MATRIX = 'job: matrix\ninput: depots.csv\noutput: m.csv\n';

  it('refuses a job with neither a destinations file nor destination columns', () => {
    const error = configError(() => load(MATRIX));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('options.destinations');
    expect(error.message).toContain('a matrix job needs destinations');
  });

  it('refuses one destination coordinate without the other', () => {
    const error = configError(() => load(`${MATRIX}mapping:\n  destinationLon: to_lon\n`));
    expect(error.context.path).toBe('mapping.destinationLat');
  });

  it('refuses mapping keys of the other mode instead of ignoring them', () => {
    const cross = `${MATRIX}options:\n  destinations: { path: d.csv }\nmapping:\n  originLon: x\n`;
    expect(configError(() => load(cross)).context.path).toBe('mapping.originLon');
    const pairs = `${MATRIX}mapping:\n  lon: x\n  destinationLon: a\n  destinationLat: b\n`;
    expect(configError(() => load(pairs)).context.path).toBe('mapping.lon');
  });

  it('accepts pairs mode with both destination columns, and cross mode with a file', () => {
    expect(load(`${MATRIX}mapping:\n  destinationLon: a\n  destinationLat: b\n`).kind).toBe('matrix');
    expect(
      load(`${MATRIX}options:\n  destinations: { path: d.csv }\n`).steps[0]?.sideInputs.destinations,
    ).toBeDefined();
  });
});

describe('outputs and the run report', () => {
  const ELEVATION = 'job: elevation\ninput: in.geojson\n';

  it('resolves an `outputs:` list in order, each entry a path or a path with its settings', () => {
    const config = load(
      `${ELEVATION}outputs:\n  - out/b.csv\n  - { path: out/b.data, format: ndjson }\n  - path: out/b.gpkg\n  - { path: out/b.tsv, delimiter: ";", formulaGuard: false }\n`,
    );
    expect([config.output, ...config.moreOutputs]).toEqual([
      { path: '/jobs/out/b.csv', format: 'csv', formulaGuard: undefined, delimiter: undefined },
      { path: '/jobs/out/b.data', format: 'ndjson', formulaGuard: undefined, delimiter: undefined },
      { path: '/jobs/out/b.gpkg', format: 'gpkg', formulaGuard: undefined, delimiter: undefined },
      { path: '/jobs/out/b.tsv', format: 'csv', formulaGuard: false, delimiter: ';' },
    ]);
    // The default error report and run report derive from the first output.
    expect(config.errors.path).toBe('/jobs/out/b.errors.csv');
    expect(config.runReport).toBeUndefined();
    // A single `output:` has no more outputs, and keeps its fingerprint.
    const one = load(`${ELEVATION}output: out/b.csv\n`);
    expect(one.moreOutputs).toEqual([]);
    expect(fingerprintOf(one)).toBe(fingerprintOf(load(`${ELEVATION}outputs: [out/b.csv]\n`)));
    expect(fingerprintOf(one)).not.toBe(fingerprintOf(config));
  });

  it('takes a byte order mark for a CSV output and refuses it for any other format, naming the key', () => {
    const config = load(
      `${ELEVATION}outputs:\n  - { path: out/b.csv, bom: true, delimiter: ";" }\n  - out/b.ndjson\n`,
    );
    expect(config.output).toMatchObject({
      path: '/jobs/out/b.csv',
      format: 'csv',
      bom: true,
      delimiter: ';',
    });
    expect(config.moreOutputs[0]).not.toHaveProperty('bom');
    const error = configError(() =>
      load(`${ELEVATION}outputs:\n  - out/b.csv\n  - { path: out/b.geojson, bom: true }\n`),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({
      file: 'jobs/geocode.yaml',
      path: 'outputs[1].bom',
      received: 'geojson',
    });
    expect(error.message).toBe(
      'jobs/geocode.yaml: outputs[1].bom: a byte order mark is for CSV outputs only, got a geojson output',
    );
  });

  it('refuses a delimiter on an output that is not CSV, which would be ignored', () => {
    const error = configError(() =>
      load(
        `${ELEVATION}outputs:\n  - { path: out/b.csv, delimiter: ";" }\n  - { path: out/b.ndjson, delimiter: ";" }\n`,
      ),
    );
    expect(error.context).toMatchObject({ path: 'outputs[1].delimiter', received: 'ndjson' });
    expect(error.message).toBe(
      'jobs/geocode.yaml: outputs[1].delimiter: a delimiter is for CSV outputs only, got a ndjson output',
    );
  });

  it('takes a decimal comma for a CSV output with another delimiter, and refuses it with a comma or for another format', () => {
    const config = load(
      `${ELEVATION}outputs:\n  - { path: out/b.csv, decimal: ",", delimiter: ";" }\n  - { path: out/c.tsv, decimal: "," }\n`,
    );
    expect(config.output).toMatchObject({ format: 'csv', decimal: ',', delimiter: ';' });
    expect(config.moreOutputs[0]).toMatchObject({ decimal: ',' });
    const comma = configError(() => load(`${ELEVATION}output: { path: out/b.csv, decimal: "," }\n`));
    expect(comma.code).toBe('CONFIG_INVALID');
    expect(comma.context).toMatchObject({ path: 'output.decimal', received: ',' });
    expect(comma.message).toBe(
      'jobs/geocode.yaml: output.decimal: a decimal comma is for CSV outputs with another delimiter (; tab |), got delimiter ","',
    );
    const json = configError(() => load(`${ELEVATION}output: { path: out/b.ndjson, decimal: "," }\n`));
    expect(json.context).toMatchObject({ path: 'output.decimal', received: 'ndjson' });
  });

  it('refuses `output` and `outputs` together, and a file with neither, naming the key', () => {
    const both = configError(() => load(`${ELEVATION}output: a.csv\noutputs: [b.csv]\n`));
    expect(both.code).toBe('CONFIG_INVALID');
    expect(both.context).toMatchObject({ file: 'jobs/geocode.yaml', path: 'outputs' });
    expect(both.message).toBe(
      'jobs/geocode.yaml: outputs: give `output` (one) or `outputs` (a list), not both',
    );
    const neither = configError(() => load(ELEVATION));
    expect(neither.context).toMatchObject({ path: 'output' });
    expect(neither.message).toContain('jobs/geocode.yaml: output: expected a path');
    expect(configError(() => load(`${ELEVATION}outputs: []\n`)).context.path).toBe('outputs');
    const format = configError(() => load(`${ELEVATION}outputs: [{ path: a.x, format: xlsx }]\n`));
    expect(format.context.path).toBe('outputs[0].format');
  });

  it('takes `report: false` for no run report, and a path relative to the job file; refuses a path that is not .html', () => {
    expect(load(`${ELEVATION}output: o.csv\nreport: false\n`).runReport).toBe(false);
    expect(load(`${ELEVATION}output: o.csv\nreport: ../reports/run.html\n`).runReport).toBe(
      '/reports/run.html',
    );
    const error = configError(() => load(`${ELEVATION}output: o.csv\nreport: run.pdf\n`));
    expect(error.context).toMatchObject({ path: 'report', received: 'run.pdf' });
  });
});

describe("the schema's words, made the job file's", () => {
  it('says what a mapping field takes when it gives a column and a value at once', () => {
    const error = configError(() =>
      load('job: geocode\ninput: a.csv\noutput: b.csv\nmapping: { zip: { column: plz, value: "1" } }\n'),
    );
    expect(error.message).toBe(
      'jobs/geocode.yaml: mapping.zip: expected a column name, { column: <name> } or { value: <constant> }, one of them, got {"column":"plz","value":"1"}',
    );
  });

  it('says an endpoint must be an http(s) URL', () => {
    const error = configError(() =>
      load('job: elevation\ninput: a.csv\noutput: b.csv\nservice: { endpoints: { area: "ftp://x" } }\n'),
    );
    expect(error.message).toBe(
      'jobs/geocode.yaml: service.endpoints.area: expected an http(s) URL, got "ftp://x"',
    );
  });
});

describe('credential references', () => {
  const LOOKUP = 'job: customer-lookup\ninput: s.csv\noutput: o.csv\nmapping: { key: k }\n';

  it('refuses credentials given as the key itself, a string or a list, without echoing it', () => {
    for (const [written, kind] of [
      ['"Zq9SECRETkey77"', 'a string'],
      ['[Zq9SECRETkey77]', 'a list'],
    ] as const) {
      const error = configError(() => load(`${LOOKUP}service:\n  credentials: ${written}\n`));
      expect(error).toMatchObject({
        code: 'CONFIG_INVALID',
        context: { path: 'service.credentials', received: kind },
      });
      expect(`${error.message}${JSON.stringify(error.context)}`).not.toContain('Zq9SECRETkey77');
    }
  });

  it('refuses a key written as a list, a number or a mapping, without echoing it', () => {
    for (const [written, kind] of [
      ['[Zq9SECRETkey77]', 'a list'],
      ['{ k: Zq9SECRETkey77 }', 'a mapping'],
      ['779912345', 'a number'],
    ] as const) {
      const error = configError(() => load(`${LOOKUP}service:\n  credentials:\n    apiKey: ${written}\n`));
      expect(error).toMatchObject({
        code: 'CONFIG_INVALID',
        message: `jobs/geocode.yaml: service.credentials.apiKey: expected a reference such as \${GEOBATCH_API_KEY}, got ${kind}`,
        context: { path: 'service.credentials.apiKey', received: kind },
      });
      expect(`${error.message}${JSON.stringify(error.context)}`).not.toMatch(/Zq9SECRETkey77|779912345/);
    }
  });

  it('refuses a default in a credential reference, as the literal key it is, without echoing it', () => {
    const secret = 'literal-default-secret';
    for (const env of [{}, { MY_PK: 'from-the-environment' }] as Record<string, string>[]) {
      const error = configError(() =>
        load(`${LOOKUP}service:\n  credentials:\n    partnerKey: \${MY_PK:-${secret}}\n`, env),
      );
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        'jobs/geocode.yaml: service.credentials.partnerKey: a credential reference takes no default ' +
          '(the default is a key written into the file); secrets must come from the environment',
      );
      expect(error.context).toEqual({
        file: 'jobs/geocode.yaml',
        path: 'service.credentials.partnerKey',
        expected: `a reference without a default, such as \${MY_PK}`,
        hint: `write \`partnerKey: \${MY_PK}\` and export MY_PK (or leave it out: GEOBATCH_PARTNER_KEY is read anyway)`,
      });
      for (const text of [error.message, error.stack ?? '', JSON.stringify(error), String(error)])
        expect(text).not.toContain(secret);
    }
  });

  it('refuses a credential used as data, by its name or by another variable holding it, never echoing it', () => {
    const key = 'the-real-api-key';
    const cases: [string, Record<string, string>, string, string][] = [
      // The standard variable, read whether the file names it or not.
      [
        `job: geocode\ninput: s.csv\noutput: o.csv\nmapping: { zip: plz, country: { value: "\${GEOBATCH_API_KEY}" } }\n`,
        { GEOBATCH_API_KEY: key },
        'mapping.country.value',
        'GEOBATCH_API_KEY',
      ],
      // A variable the file names under credentials, used in a step's mapping with a default.
      [
        `input: s.csv\noutput: o.csv\nsteps:\n  - job: geocode\n    mapping: { city: "\${MY_KEY:-x}" }\nservice:\n  credentials:\n    apiKey: \${MY_KEY}\n`,
        { MY_KEY: key },
        'steps[0].mapping.city',
        'MY_KEY',
      ],
      // Another variable that holds the partner key's value.
      [
        `${LOOKUP}options: { prefix: "\${COPY}" }\n`,
        { GEOBATCH_PARTNER_KEY: key, COPY: key },
        'options.prefix',
        'COPY',
      ],
    ];
    for (const [text, env, path, variable] of cases) {
      const error = configError(() => load(text, env));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `jobs/geocode.yaml: ${path}: \${${variable}} holds a credential, which may only be named under service.credentials`,
      );
      expect(error.context).toMatchObject({ file: 'jobs/geocode.yaml', path });
      for (const shown of [error.message, error.stack ?? '', JSON.stringify(error), String(error)])
        expect(shown).not.toContain(key);
    }
    // A partner name is an account name, not a secret: a variable holding the same is data.
    expect(
      load(`${LOOKUP}options: { prefix: "\${CUSTOMER}_" }\n`, { GEOBATCH_PARTNER: 'acme', CUSTOMER: 'acme' }),
    ).toBeDefined();
    expect(
      load(`${LOOKUP}options: { prefix: "\${REGION}_" }\n`, {
        GEOBATCH_SYSTEM_PARTNER: 'demo',
        REGION: 'demo',
      }),
    ).toBeDefined();
    // Other variables are data as before.
    expect(load(`${LOOKUP}options: { prefix: "\${P}" }\n`, { GEOBATCH_API_KEY: key, P: 'x_' })).toBeDefined();
  });

  it('refuses a credential written out in the file, whole or inside a value, never echoing it', () => {
    const key = 'the-real-security-id';
    const cases: [string, string][] = [
      [
        `job: geocode\ninput: s.csv\noutput: o.csv\nmapping: { zip: plz, city: { value: ${key} } }\n`,
        'mapping.city.value',
      ],
      [`${LOOKUP}options: { prefix: "x_${key}_" }\n`, 'options.prefix'],
      // In the form a Basic header carries it: Base64.
      [
        `job: geocode\ninput: s.csv\noutput: o.csv\nmapping: { zip: plz, city: { value: ${Buffer.from(key).toString('base64')} } }\n`,
        'mapping.city.value',
      ],
    ];
    for (const [text, path] of cases) {
      const error = configError(() => load(text, { GEOBATCH_SECURITY_ID: key }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `jobs/geocode.yaml: ${path}: holds the value of GEOBATCH_SECURITY_ID, a credential, written out; a credential may only be given under service.credentials`,
      );
      expect(error.context).toMatchObject({ file: 'jobs/geocode.yaml', path });
      for (const shown of [error.message, error.stack ?? '', JSON.stringify(error), String(error)])
        expect(shown).not.toContain(key);
    }
    // Named where it belongs, it is a credential as before; a short key is only matched whole.
    expect(
      load(`${LOOKUP}service:\n  credentials:\n    securityID: \${GEOBATCH_SECURITY_ID}\n`, {
        GEOBATCH_SECURITY_ID: key,
      }),
    ).toBeDefined();
    expect(load(`${LOOKUP}options: { prefix: "abcde_" }\n`, { GEOBATCH_API_KEY: 'abcd' })).toBeDefined();
  });

  it('refuses the Basic pair partner:key in Base64, and a key URL-encoded in lower case or in part', () => {
    const geocode = (city: string) =>
      `job: geocode\ninput: s.csv\noutput: o.csv\nmapping: { zip: plz, city: { value: "${city}" } }\n`;
    const basic = { GEOBATCH_PARTNER: 'demo-partner', GEOBATCH_PARTNER_KEY: 'demo-partner-key' };
    const pair = Buffer.from('demo-partner:demo-partner-key').toString('base64');
    for (const city of [pair, `Basic ${pair}`]) {
      const error = configError(() => load(geocode(city), basic));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        'jobs/geocode.yaml: mapping.city.value: holds the value of GEOBATCH_PARTNER:GEOBATCH_PARTNER_KEY (HTTP Basic), a credential, written out; a credential may only be given under service.credentials',
      );
      expect(error.context).toMatchObject({ path: 'mapping.city.value' });
    }
    // The partner name alone is an account name, data as before.
    expect(load(geocode(Buffer.from('demo-partner').toString('base64')), basic)).toBeDefined();
    const key = { GEOBATCH_API_KEY: 'Ab+c/d=e&f g:h' };
    for (const city of ['ab%2bc%2fd%3de%26f%20g%3ah', 'Ab+c/d%3De%26f%20g%3Ah', '100% Ab%2Bc/d=e&f g:h']) {
      const error = configError(() => load(geocode(city), key));
      expect(error.message).toContain('holds the value of GEOBATCH_API_KEY, a credential, written out');
    }
  });

  it('refuses an empty default too, and in a file of steps', () => {
    const error = configError(() =>
      load(
        `input: s.csv\noutput: o.csv\nsteps:\n  - job: elevation\nservice:\n  credentials:\n    apiKey: "\${K:-}"\n`,
      ),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      'jobs/geocode.yaml: service.credentials.apiKey: a credential reference takes no default ' +
        '(the default is a key written into the file); secrets must come from the environment',
    );
    expect(error.context).toEqual({
      file: 'jobs/geocode.yaml',
      path: 'service.credentials.apiKey',
      expected: `a reference without a default, such as \${K}`,
      hint: `write \`apiKey: \${K}\` and export K (or leave it out: GEOBATCH_API_KEY is read anyway)`,
    });
  });
});

describe('numbers and booleans from the environment', () => {
  const LOOKUP = 'job: customer-lookup\ninput: s.csv\noutput: o.csv\nmapping: { key: k }\n';

  it('reads a substituted plain number or true/false where the schema takes one, and leaves strings as text', () => {
    const text =
      `job: customer-lookup\ninput: s.csv\noutput: { path: o.csv, formulaGuard: "\${FG}" }\n` +
      `mapping: { key: k }\noptions: { batchSize: "\${BS:-10}" }\n` +
      `service: { throttle: { rate: "\${RATE}", concurrency: "\${CONC:-4}" } }\nrun: { window: "\${W}" }\n`;
    const config = load(text, { BS: '20', FG: 'false', RATE: '2.5', W: '64' });
    expect(config.steps[0]?.options.batchSize).toBe(20);
    expect(config.output.formulaGuard).toBe(false);
    expect(config.service.throttle).toMatchObject({ global: { rate: 2.5, concurrency: 4 } });
    expect(config.run.window).toBe(64);
    // The default when the variable is unset or empty, as for any reference.
    expect(load(text, { BS: '', FG: 'true', RATE: '1', W: '1' }).steps[0]?.options.batchSize).toBe(10);
    // A string field keeps the text, however numeric: a postcode keeps its leading zero.
    const geocode = load(
      `job: geocode\ninput: s.csv\noutput: o.csv\nmapping: { zip: { value: "\${ZIP}" }, city: "\${COL}" }\n` +
        `service: { channel: "\${CH}" }\n`,
      { ZIP: '01067', COL: '42', CH: 'true' },
    );
    expect(geocode.steps[0]?.mapping).toEqual({ zip: { value: '01067' }, city: { column: '42' } });
    expect(geocode.service.channel).toBe('true');
  });

  it('reads `null` where the field takes it: a rate from the environment can mean no limit', () => {
    const text = `${LOOKUP}service: { throttle: { rate: "\${RATE:-null}" } }\n`;
    expect(load(text, {}).service.throttle).toMatchObject({ global: { rate: null } });
    expect(load(text, { RATE: '5' }).service.throttle).toMatchObject({ global: { rate: 5 } });
    // Not where the field does not take null, and the message says what else it takes.
    const error = configError(() => load(`${LOOKUP}options: { batchSize: "\${BS}" }\n`, { BS: 'null' }));
    expect(error.message).toBe(
      `jobs/geocode.yaml: options.batchSize: expected a number, got "null" from \`\${BS}\` (BS="null")`,
    );
    const rate = configError(() => load(text, { RATE: 'none' }));
    expect(rate.context).toMatchObject({
      expected: 'a number or null',
      hint: 'set RATE to a plain number, such as 10, or null',
    });
  });

  it('reads them in a file of steps too', () => {
    const config = load(
      `input: s.csv\noutput: o.csv\nsteps:\n  - job: elevation\n    options: { batchSize: "\${BS}" }\n`,
      {
        BS: '250',
      },
    );
    expect(config.steps[0]?.options.batchSize).toBe(250);
  });

  it('takes a word a field allows as that word, and a number as a number, even when it is the only one', () => {
    const search = `job: address-search\ninput: s.csv\noutput: o.csv\noptions: { branches: x, mode: explode, nearest: "\${N}" }\n`;
    expect(load(search, { N: 'all' }).steps[0]?.options.nearest).toBe('all');
    expect(load(search, { N: '5' }).steps[0]?.options.nearest).toBe(5);
    // A field that takes one number only (`version: 1`) takes it from the environment too.
    expect(load(`${LOOKUP}version: "\${V}"\n`, { V: '1' }).document.version).toBe(1);
  });

  it('checks a substituted number against the same limits as a written one', () => {
    const error = configError(() => load(`${LOOKUP}options: { batchSize: "\${BS}" }\n`, { BS: '600' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      'jobs/geocode.yaml: options.batchSize (from ${BS}): expected at most 100, got 600',
    );
    expect(error.context).toEqual({
      file: 'jobs/geocode.yaml',
      path: 'options.batchSize',
      expected: 'expected at most 100, got 600',
    });
  });

  it('names the variable, its value and what was expected when substituted text is not a plain number', () => {
    const error = configError(() => load(`${LOOKUP}options: { batchSize: "\${BS}" }\n`, { BS: '20 rows' }));
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toBe(
      `jobs/geocode.yaml: options.batchSize: expected a number, got "20 rows" from \`\${BS}\` (BS="20 rows")`,
    );
    expect(error.context).toEqual({
      file: 'jobs/geocode.yaml',
      path: 'options.batchSize',
      expected: 'a number',
      received: '20 rows',
      hint: 'set BS to a plain number, such as 10',
    });
    // Only substituted text is read as a number: a string written in the file stays refused.
    const written = configError(() => load(`${LOOKUP}options: { batchSize: "50" }\n`, { BS: '50' }));
    expect(written.message).toBe('jobs/geocode.yaml: options.batchSize: expected number, got "50"');
    expect(written.context).toMatchObject({
      path: 'options.batchSize',
      expected: 'expected number, got "50"',
    });
  });

  it('says when the text came from a default, and what else the field takes', () => {
    const error = configError(() =>
      load(
        `job: address-search\ninput: s.csv\noutput: o.csv\noptions: { branches: x, nearest: "\${N:-many}" }\n`,
      ),
    );
    expect(error.message).toBe(
      `jobs/geocode.yaml: options.nearest: expected a number or "all", got "many" from \`\${N:-many}\` (N is not set)`,
    );
    expect(error.context).toMatchObject({ path: 'options.nearest', expected: 'a number or "all"' });
  });

  it('names what a boolean takes', () => {
    const error = configError(() =>
      load(`job: elevation\ninput: s.csv\noutput: { path: o.csv, formulaGuard: "\${FG}" }\n`, { FG: 'yes' }),
    );
    expect(error.message).toBe(
      `jobs/geocode.yaml: output.formulaGuard: expected true or false, got "yes" from \`\${FG}\` (FG="yes")`,
    );
    expect(error.context).toMatchObject({ path: 'output.formulaGuard', hint: 'set FG to true or false' });
  });
});

describe('mapping constants', () => {
  const LOOKUP = 'job: customer-lookup\ninput: s.csv\noutput: o.csv\n';

  it('names the constant, not a column, when a constant is neither a string nor a number', () => {
    for (const [written, shown] of [
      ['[1, 2]', '[1,2]'],
      ['null', 'null'],
      ['{ a: 1 }', '{"a":1}'],
    ] as const) {
      const error = configError(() => load(`${LOOKUP}mapping:\n  key: { value: ${written} }\n`));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toBe(
        `jobs/geocode.yaml: mapping.key.value: expected a string or a number, got ${shown}`,
      );
      expect(error.context).toEqual({
        file: 'jobs/geocode.yaml',
        path: 'mapping.key.value',
        expected: 'a string or a number',
        received: shown,
      });
    }
  });

  it('names the step whose constant it is', () => {
    const error = configError(() =>
      load(
        'input: s.csv\noutput: o.csv\nsteps:\n  - job: customer-lookup\n    mapping: { key: { value: null } }\n',
      ),
    );
    expect(error.context.path).toBe('steps[0].mapping.key.value');
  });
});

describe('credentials in load errors', () => {
  afterEach(() => clearSecrets());

  it('never quotes a credential the environment holds in a load error', () => {
    const key = 'env-held-api-key';
    const partnerKey = 'env-held-partner-key';
    const lookup = `job: customer-lookup\ninput: s.csv\noutput: o.csv\nmapping: { key: k }\n`;
    // Refused as a credential used as data, before it could be read as a (bad) number.
    const standard = configError(() =>
      load(`${lookup}options: { batchSize: "\${GEOBATCH_API_KEY}" }\n`, { GEOBATCH_API_KEY: key }),
    );
    expect(standard.code).toBe('CONFIG_INVALID');
    expect(standard.context).toMatchObject({ path: 'options.batchSize' });
    expect(JSON.stringify(standard) + standard.message).not.toContain(key);
    const named = configError(() =>
      load(`${lookup}service: { credentials: { partnerKey: "\${MY_PK}" } }\nreport: "\${MY_PK}"\n`, {
        MY_PK: partnerKey,
      }),
    );
    expect(named.context).toMatchObject({ path: 'report' });
    expect(JSON.stringify(named)).not.toContain(partnerKey);
  });
});

describe('a job-file path that ends with / and so names a directory', () => {
  const ELEVATION = 'job: elevation\ninput: in.csv\n';
  const HINT = 'and so names a directory: name a file in it, e.g.';
  const cases: readonly (readonly [string, string, string, string])[] = [
    // [the job file's lines, the field named, the path, what the message ends with]
    [`${ELEVATION}output: ../o39/\n`, 'output', '../o39/', `${HINT} ../o39/result.csv`],
    [`${ELEVATION}output: { path: o39/ }\n`, 'output.path', 'o39/', `${HINT} o39/result.csv`],
    [`${ELEVATION}outputs: [a.csv, o39/]\n`, 'outputs[1]', 'o39/', `${HINT} o39/result.csv`],
    [
      `${ELEVATION}outputs: [a.csv, { path: o.gpkg/. }]\n`,
      'outputs[1].path',
      'o.gpkg/.',
      `${HINT} o.gpkg/result.csv`,
    ],
    [`${ELEVATION}output: a.csv\nerrors: errdir/\n`, 'errors', 'errdir/', `${HINT} errdir/errors.csv`],
    [
      `${ELEVATION}output: a.csv\nerrors: { path: errdir/, format: ndjson }\n`,
      'errors.path',
      'errdir/',
      `${HINT} errdir/errors.ndjson`,
    ],
    [
      'job: elevation\ninput: in/range.csv/\noutput: a.csv\n',
      'input',
      'in/range.csv/',
      'and so names a directory: name the file without the /, e.g. in/range.csv',
    ],
    [
      'job: elevation\ninput: { path: in/, format: csv }\noutput: a.csv\n',
      'input.path',
      'in/',
      'name the file without the /, e.g. in',
    ],
    [
      'job: matrix\ninput: o.csv\noutput: m.csv\noptions:\n  destinations: { path: stores.csv/ }\n',
      'options.destinations.path',
      'stores.csv/',
      'name the file without the /, e.g. stores.csv',
    ],
  ];

  for (const [text, key, given, ending] of cases) {
    it(`refuses ${key}: ${given} (CONFIG_INVALID), which path.resolve would make a file ${given.replace(/\/\.?$/, '')}`, () => {
      const error = configError(() => load(text));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(
        new RegExp(
          `^jobs/geocode\\.yaml: ${key.replace(/[[\]]/g, '\\$&')}: ${given.replace(/\./g, '\\.')} ends with /\\.? and so names a directory: `,
        ),
      );
      expect(error.message.endsWith(ending)).toBe(true);
      expect(error.context).toMatchObject({ file: 'jobs/geocode.yaml', path: key, received: given });
    });
  }

  it('leaves a path without the slash, and `-`, as they were', () => {
    const config = load(`${ELEVATION}output: o39/a.csv\nerrors: o39.errors.csv\n`);
    expect(config.output.path).toBe('/jobs/o39/a.csv');
    expect(config.errors.path).toBe('/jobs/o39.errors.csv');
    expect(load('job: elevation\ninput: "-"\noutput: "-"\n').output.path).toBe('-');
  });
});

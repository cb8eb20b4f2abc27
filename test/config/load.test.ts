import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintOf, parseJobFile } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';

const FILE = '/jobs/geocode.yaml';

function load(text: string, env: Record<string, string> = {}) {
  return parseJobFile(text, FILE, env, 'jobs/geocode.yaml');
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
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

  it('reads the input record limits the readers take', () => {
    const config = load(
      'job: elevation\ninput: { path: p.csv, maxRecordBytes: 1000, maxRecordLines: 5 }\noutput: o.csv\n',
    );
    expect(config.input).toMatchObject({ maxRecordBytes: 1000, maxRecordLines: 5 });
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
    expect(error.message).toMatch(/^jobs\/geocode\.yaml:\d+: not valid YAML or JSON/);
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
    expect(format.context.path).toBe('outputs.0.format');
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

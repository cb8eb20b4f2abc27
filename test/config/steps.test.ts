import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf, parseJobFile } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { JOB_KINDS } from '../../src/jobs/index.js';
import { assemble } from '../../src/run/assemble.js';
import { clearSecrets } from '../../src/secrets.js';
import { configError } from '../fixtures/config-error.js';
import { memoryLogger, tempDir } from '../fixtures/run-helpers.js';

const HEAD = 'input: in.csv\noutput: out.csv\n';
const GEOCODE_STEP = '  - job: geocode\n    mapping: { zip: plz, city: city }\n';
const ELEVATION_STEP = '  - job: elevation\n    mapping: { lon: geo_lon, lat: geo_lat }\n';

function load(text: string) {
  return parseJobFile(text, '/jobs/enrich.yaml', {}, 'jobs/enrich.yaml');
}

function refusal(text: string): ConfigError {
  try {
    load(text);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('a job file of several steps', () => {
  it("shares keys between steps with YAML's merge key (<<), the step's own keys over the merged", () => {
    const config = load(
      `${HEAD}steps:\n  - &geo\n    job: geocode\n    mapping: { zip: plz, city: city }\n    options: { prefix: a_ }\n` +
        '  - <<: *geo\n    name: again\n    options: { prefix: b_ }\n' +
        '  - job: elevation\n    mapping: { <<: { lon: a_lon }, lat: a_lat }\n',
    );
    expect(config.steps.map((step) => [step.kind, step.name])).toEqual([
      ['geocode', 'geocode'],
      ['geocode', 'again'],
      ['elevation', 'elevation'],
    ]);
    expect(config.steps[1]?.options).toMatchObject({ prefix: 'b_' });
    expect(Object.keys(config.steps[2]?.mapping ?? {}).sort()).toEqual(['lat', 'lon']);
  });

  it('resolves each step as its kind, named by its kind unless it names itself', () => {
    const config = load(`${HEAD}steps:\n${GEOCODE_STEP}${ELEVATION_STEP}    name: height\n`);
    expect(config.steps.map((s) => [s.name, s.kind])).toEqual([
      ['geocode', 'geocode'],
      ['height', 'elevation'],
    ]);
    expect(config.kind).toBe('geocode+height');
    expect(config.steps[1]?.mapping).toEqual({ lon: { column: 'geo_lon' }, lat: { column: 'geo_lat' } });
  });

  it('checks every step with its kind’s own schema, naming the step in the path', () => {
    const error = refusal(
      `${HEAD}steps:\n${GEOCODE_STEP}  - job: elevation\n    options: { batchSize: 600 }\n`,
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context.path).toBe('steps[1].options.batchSize');
  });

  it('refuses two steps with one name', () => {
    const error = refusal(`${HEAD}steps:\n${ELEVATION_STEP}${ELEVATION_STEP}`);
    expect(error.context).toMatchObject({ path: 'steps[1].name', received: 'elevation' });
  });

  it('refuses a step that writes several rows per input row anywhere but last', () => {
    const explode = '  - job: address-search\n    options: { branches: "100", mode: explode }\n';
    const refused = refusal(`${HEAD}steps:\n${explode}${ELEVATION_STEP}`);
    expect(refused.code).toBe('CONFIG_INVALID');
    expect(refused.context.path).toBe('steps[0]');
    expect(refused.message).toMatch(
      /steps\[0\]: the address-search step writes several rows per input row, so it must be the last step$/,
    );
    expect(load(`${HEAD}steps:\n${ELEVATION_STEP}${explode}`).steps).toHaveLength(2);
  });

  it("refuses `job:` and `steps:` together, saying where a step's keys go, and an empty list", () => {
    const both = refusal(`job: geocode\n${HEAD}steps:\n${GEOCODE_STEP}`);
    expect(both.code).toBe('CONFIG_INVALID');
    expect(both.message).toContain(
      'unknown key `job`: in a job file of steps, `job` belongs in each step (`steps: [{ job: ..., mapping: ... }]`), or leave `steps:` out for a job of one kind',
    );
    const mapping = refusal(`${HEAD}mapping: { zip: plz }\nsteps:\n${GEOCODE_STEP}`);
    expect(mapping.message).toContain(
      'unknown key `mapping`: in a job file of steps, `mapping` belongs in each step',
    );
    expect(refusal(`${HEAD}steps: []\n`).code).toBe('CONFIG_INVALID');
  });

  it('keeps the fingerprint of a one-job file as it was, and gives each pipeline its own', () => {
    const one = load(`job: elevation\n${HEAD}`);
    expect(one.steps).toHaveLength(1);
    const a = fingerprintOf(load(`${HEAD}steps:\n${GEOCODE_STEP}${ELEVATION_STEP}`));
    const b = fingerprintOf(
      load(`${HEAD}steps:\n${GEOCODE_STEP}${ELEVATION_STEP}    options: { prefix: h_ }\n`),
    );
    expect(a).not.toBe(b);
  });

  it('refuses, when assembled, two steps that would write the same column', async () => {
    const dir = tempDir();
    const config = parseJobFile(
      `input: in.csv\noutput: out.csv\nsteps:\n${ELEVATION_STEP}  - job: elevation\n    name: again\n`,
      join(dir, 'job.yaml'),
      { GEOBATCH_EMULATOR_URL: 'http://127.0.0.1:9', GEOBATCH_API_KEY: 'k' },
    );
    const error = await assemble(config, { logger: memoryLogger().logger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).context).toMatchObject({ path: 'steps' });
    expect((error as ConfigError).message).toContain('`elevation_m`');
  });
});

describe('a step without the mapping its kind requires', () => {
  // Every kind whose record has no default column to read: a step of it without `mapping:` used
  // to meet the schema's "expected object, got nothing", not the kind's own rule.
  const kinds = JOB_KINDS.filter((kind) => kind.mappingRequired).map((kind) => kind.name);

  it.each(kinds)(
    'refuses a step of kind %s by the rule its one-job file meets, the step in front',
    (kind) => {
      const one = configError(() => load(`${HEAD}job: ${kind}\n`));
      const step = configError(() => load(`${HEAD}steps:\n${ELEVATION_STEP}  - job: ${kind}\n`));
      expect(one.context.path).toMatch(/^mapping\b/);
      expect(step.code).toBe('CONFIG_INVALID');
      expect(step.context).toEqual({ ...one.context, path: `steps[1].${one.context.path}` });
      expect(step.message).toBe(`jobs/enrich.yaml: steps[1].${one.context.path}: ${one.context.expected}`);
      expect(step.context.expected).not.toMatch(/expected object/);
      expect(step.context.received).toBe('nothing');
    },
  );
});

describe("a step's place in the file's messages", () => {
  afterEach(() => clearSecrets());
  const step = (job: string, rest = '') =>
    `  - job: ${job}\n    mapping: { lon: geo_lon, lat: geo_lat${job === 'match' ? ', track: tour' : ''} }\n${rest}`;
  // Each source of a message about a step: the schema, a kind's own rule, the mapping's constants,
  // substitution from the environment, and the credential check.
  const cases: [what: string, steps: string, env: Record<string, string>, path: string][] = [
    [
      'a bad step option, refused by its kind',
      step('match', '    options: { maxPoints: 10, overlap: 6 }\n'),
      {},
      'steps[1].options.overlap',
    ],
    ['a bad step kind', step('boundarys'), {}, 'steps[1].job'],
    [
      'a bad step option, refused by the schema',
      step('elevation', '    options: { batchSize: 600 }\n'),
      {},
      'steps[1].options.batchSize',
    ],
    [
      'an item of a list option',
      step('boundaries', '    options: { levels: [4, "x"] }\n'),
      {},
      'steps[1].options.levels[1]',
    ],
    [
      'a bad constant',
      '  - job: elevation\n    mapping: { lon: geo_lon, lat: { value: [1] } }\n',
      {},
      'steps[1].mapping.lat.value',
    ],
    [
      'a variable not set',
      step('elevation', `    options: { prefix: "\${UNSET}" }\n`),
      {},
      'steps[1].options.prefix',
    ],
    [
      'a variable that is no number',
      step('elevation', `    options: { batchSize: "\${BS}" }\n`),
      { BS: 'many' },
      'steps[1].options.batchSize',
    ],
    [
      'a credential used as data',
      step('elevation', `    options: { prefix: "\${GEOBATCH_API_KEY}" }\n`),
      { GEOBATCH_API_KEY: 'k-123456' },
      'steps[1].options.prefix',
    ],
  ];

  it.each(cases)('writes it steps[i], as a path is read, for %s', (_what, second, env, path) => {
    const error = configError(() =>
      parseJobFile(`${HEAD}steps:\n${GEOCODE_STEP}${second}`, '/jobs/enrich.yaml', env, 'jobs/enrich.yaml'),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ file: 'jobs/enrich.yaml', path });
    expect(error.message).toMatch(new RegExp(`^jobs/enrich\\.yaml: ${path.replace(/[[\].$]/g, '\\$&')}: `));
    // The dotted form (steps.1.job) never comes back, in the message or in the context.
    expect(`${error.message} ${JSON.stringify(error.context)}`).not.toMatch(/\b(steps|levels)\.\d/);
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprintOf, parseJobFile } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors.js';
import { assemble } from '../../src/run/assemble.js';
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
    expect(error.context.path).toBe('steps.1.options.batchSize');
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

  it('refuses `job:` and `steps:` together, and an empty list', () => {
    expect(refusal(`job: geocode\n${HEAD}steps:\n${GEOCODE_STEP}`).code).toBe('CONFIG_INVALID');
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

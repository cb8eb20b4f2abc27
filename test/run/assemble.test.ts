import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import { assemble } from '../../src/run/assemble.js';
import { memoryLogger, tempDir, write } from '../fixtures/run-helpers.js';

const ENV = { GEOBATCH_EMULATOR_URL: 'http://127.0.0.1:9', GEOBATCH_API_KEY: 'k' };

/** Assembles a job file written into a fresh directory with the given side files. */
async function assembleJob(job: string, files: Record<string, string>) {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) write(join(dir, name), text);
  const config = parseJobFile(job, join(dir, 'job.yaml'), ENV);
  const { spec, client } = await assemble(config, { logger: memoryLogger().logger });
  await client.close();
  return { spec, dir };
}

async function refusal(job: string, files: Record<string, string>) {
  try {
    await assembleJob(job, files);
  } catch (error) {
    return error as { code: string; message: string; context: Record<string, unknown> };
  }
  throw new Error('expected the job to be refused');
}

const MATRIX =
  'job: matrix\ninput: depots.csv\noutput: out.csv\noptions:\n  destinations: { path: stores.csv }\n';
const DEPOTS = 'id,lon,lat\nB,13.4,52.5\n';

describe('assemble: matrix destinations', () => {
  it.each([
    ['an empty destinations file', '', 'is empty'],
    ['a destinations file with a header only', 'store_id,lon,lat\n', 'has a header and no row'],
  ])('refuses %s as a job-file error naming the file', async (_, stores, what) => {
    const error = await refusal(MATRIX, { 'depots.csv': DEPOTS, 'stores.csv': stores });
    expect(error.code).toBe('CONFIG_INVALID');
    // Before the kind reads it (which refuses it too: "holds no destination"), as validate does.
    expect(error.message).toMatch(
      new RegExp(`: options\\.destinations: \\S*stores\\.csv ${what}; it must hold at least one row$`),
    );
    expect(error.context.path).toBe('options.destinations');
  });

  it('refuses destinations whose rows lack coordinates, naming the row and the field', async () => {
    const error = await refusal(MATRIX, {
      'depots.csv': DEPOTS,
      'stores.csv': 'store_id,lon,lat\nS1,,\nS2,,\n',
    });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.context).toMatchObject({ row: 1, field: 'lon' });
  });

  it('refuses a destinations mapping to a column the file lacks, which would make every id a row number', async () => {
    const job =
      'job: matrix\ninput: depots.csv\noutput: out.csv\noptions:\n  destinations: { path: stores.csv, mapping: { id: store_no } }\n';
    const error = await refusal(job, {
      'depots.csv': DEPOTS,
      'stores.csv': 'store_id,lon,lat\nS1,13.5,52.4\n',
    });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(
      /job\.yaml: options\.destinations\.mapping\.id reads the column "store_no", which the header of \S*stores\.csv does not have$/,
    );
    expect(error.context).toMatchObject({
      file: expect.stringMatching(/job\.yaml$/),
      path: 'options.destinations.mapping.id',
      field: 'store_no',
      expected: expect.stringContaining('"store_id", "lon", "lat"'),
    });
    const spaced = await refusal(job.replace('store_no', 'Store_ID '), {
      'depots.csv': DEPOTS,
      'stores.csv': 'store_id,lon,lat\nS1,13.5,52.4\n',
    });
    expect(spaced.context.hint).toBe('the header has "store_id": map to it as written, or fix the header');
  });
});

describe('assemble: matrix destinations of a pipeline step', () => {
  const step = (destinations: string) =>
    `input: depots.csv\noutput: out.csv\nsteps:\n  - job: elevation\n  - job: matrix\n    options:\n      destinations: ${destinations}\n`;
  const STORES = 'store_id,lon,lat\nS1,13.5,52.4\nS2,13.6,52.3\n';

  it('names a destinations mapping to a column the file lacks by its whole path, the step in front', async () => {
    const error = await refusal(step('{ path: stores.csv, mapping: { lon: longitude } }'), {
      'depots.csv': DEPOTS,
      'stores.csv': STORES,
    });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatch(
      /job\.yaml: steps\[1\]\.options\.destinations\.mapping\.lon reads the column "longitude", which the header of \S*stores\.csv does not have$/,
    );
    expect(error.context).toMatchObject({
      file: expect.stringMatching(/job\.yaml$/),
      path: 'steps[1].options.destinations.mapping.lon',
      field: 'longitude',
    });
  });

  it.each([
    [
      'an empty destinations file',
      '{ path: stores.csv }',
      'store_id,lon,lat\n',
      'steps[1].options.destinations',
    ],
    [
      'more destinations than maxRows',
      '{ path: stores.csv, maxRows: 1 }',
      STORES,
      'steps[1].options.destinations.maxRows',
    ],
  ])(
    'puts the step in front of the path of %s, as its other messages have it',
    async (_, given, stores, path) => {
      const error = await refusal(step(given), { 'depots.csv': DEPOTS, 'stores.csv': stores });
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.context.path).toBe(path);
      expect(`${error.message} ${String(error.context.hint)}`).not.toMatch(/(^|\s)options\.destinations/);
    },
  );
});

describe('assemble: CSV keys of the job file', () => {
  it('hands maxRecordBytes, maxRecordLines and the output delimiter to the reader and the writer', async () => {
    const job =
      'job: elevation\ninput: { path: in.csv, maxRecordLines: 5, maxRecordBytes: 4096, delimiter: ";" }\n' +
      'output: { path: out.csv, delimiter: tab }\n';
    const { spec } = await assembleJob(job, { 'in.csv': 'id;lon;lat\n' });
    expect(spec.input.csv).toEqual({ delimiter: ';', maxRecordLines: 5 });
    expect(spec.input.maxRecordBytes).toBe(4096);
    expect(spec.output.delimiter).toBe('\t');
  });
});

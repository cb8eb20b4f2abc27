/**
 * A run opens a matrix's destinations file once: its header and first row are checked on the
 * reader the kind reads whole, where the run used to open it for the checks and again for the kind.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parseJobFile } from '../../src/config/load.js';
import * as open from '../../src/input/open.js';
import type { PairItem } from '../../src/jobs/matrix.js';
import { assemble } from '../../src/run/assemble.js';
import { memoryLogger, tempDir, write } from '../fixtures/run-helpers.js';

vi.mock('../../src/input/open.js', async (original) => {
  const actual = await original<typeof open>();
  return { ...actual, openReader: vi.fn(actual.openReader) };
});

const ENV = { GEOBATCH_EMULATOR_URL: 'http://127.0.0.1:9', GEOBATCH_API_KEY: 'k' };

async function assembleIn(dir: string, job: string) {
  const config = parseJobFile(job, join(dir, 'job.yaml'), ENV);
  const { spec, client } = await assemble(config, { logger: memoryLogger().logger });
  await client.close();
  return spec;
}

const opensOf = (path: string) =>
  vi.mocked(open.openReader).mock.calls.filter(([options]) => options.path === path).length;

describe('a matrix destinations file at a run start', () => {
  it.each([
    [
      'a one-job file',
      'job: matrix\ninput: depots.csv\noutput: out.csv\noptions:\n  destinations: { path: stores.csv, mapping: { id: store_id } }\n',
    ],
    [
      'a step',
      'input: depots.csv\noutput: out.csv\nsteps:\n  - job: elevation\n  - job: matrix\n    options:\n      destinations: { path: stores.csv, mapping: { id: store_id } }\n',
    ],
  ])('is opened once, in %s, and every destination is read', async (_, job) => {
    const dir = tempDir();
    write(join(dir, 'depots.csv'), 'id,lon,lat\nB,13.4,52.5\n');
    const stores = write(join(dir, 'stores.csv'), 'store_id,lon,lat\nS1,13.5,52.4\nS2,13.6,52.3\n');
    vi.mocked(open.openReader).mockClear();
    const spec = await assembleIn(dir, job);
    expect(opensOf(stores)).toBe(1);
    // Every destination, as before: the origin's row plans one pair a destination.
    const matrix = spec.steps === undefined ? spec.job : (spec.steps[1]?.job ?? spec.job);
    const planned = matrix.plan({
      kind: 'row',
      ref: { index: 0, line: 2 },
      fields: { lon: '13.4', lat: '52.5' },
    });
    expect(Array.isArray(planned) && (planned as PairItem[]).map((item) => item.destination)).toEqual([
      [13.5, 52.4],
      [13.6, 52.3],
    ]);
  });

  it('reads the file with its own decimal mark, and names the file, row and column of a number it refuses', async () => {
    const dir = tempDir();
    write(join(dir, 'depots.csv'), 'id;lon;lat\nB;5.085.000,0;3.348.000,0\n');
    // Karlsruhe in SUPERKONFORM metres as a German export writes them: `.` groups thousands.
    write(join(dir, 'stores.csv'), 'store_id;x;y\nS1;5.085.871,0;3.348.184,5\n');
    const job = (decimal: string) =>
      'job: matrix\ninput: { path: depots.csv, decimal: "," }\noutput: out.csv\noptions:\n  coordFormat: { input: SUPERKONFORM, output: GEODECIMAL_POINT }\n' +
      `  destinations: { path: stores.csv, mapping: { id: store_id, lon: x, lat: y }${decimal} }\n`;
    const spec = await assembleIn(dir, job(', decimal: ","'));
    const fields = { lon: '5.085.000,0', lat: '3.348.000,0' };
    const planned = spec.job.plan({ kind: 'row', ref: { index: 0, line: 2 }, fields });
    const first = Array.isArray(planned) ? (planned as PairItem[])[0] : undefined;
    // The service notes' check value: 8.4278, 49.01334.
    expect(first?.destination[0]).toBeCloseTo(8.4278, 4);
    expect(first?.destination[1]).toBeCloseTo(49.01334, 4);
    // Without it, the input's mark does not carry over: 412.345,6 is no number then.
    await expect(assembleIn(dir, job(''))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/stores\.csv row 1: /),
      context: { row: 1, field: 'x' },
    });
  });

  it('still refuses a file with a header and no row, and a mapped column its header lacks', async () => {
    const dir = tempDir();
    write(join(dir, 'depots.csv'), 'id,lon,lat\nB,13.4,52.5\n');
    const stores = write(join(dir, 'stores.csv'), 'store_id,lon,lat\n');
    const job =
      'job: matrix\ninput: depots.csv\noutput: out.csv\noptions:\n  destinations: { path: stores.csv, mapping: { id: store_id } }\n';
    vi.mocked(open.openReader).mockClear();
    await expect(assembleIn(dir, job)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(
        /: options\.destinations: \S*stores\.csv has a header and no row; it must hold/,
      ),
      context: { path: 'options.destinations' },
    });
    expect(opensOf(stores)).toBe(1);
    write(join(dir, 'stores.csv'), 'store_no,lon,lat\nS1,13.5,52.4\n');
    await expect(assembleIn(dir, job)).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      context: { path: 'options.destinations.mapping.id', field: 'store_id' },
    });
  });

  it('refuses a destination without its mapped id, and an id given twice, naming the rows', async () => {
    const dir = tempDir();
    write(join(dir, 'depots.csv'), 'id,lon,lat\nB,13.4,52.5\n');
    const job = (file: string, id: string) =>
      `job: matrix\ninput: depots.csv\noutput: out.csv\noptions:\n  destinations: { path: ${file}, mapping: { id: ${id} } }\n`;
    // An empty id would have become the row number: 2, another destination's id here.
    write(join(dir, 'stores.csv'), 'store_id,lon,lat\n2,13.5,52.4\n,13.6,52.3\n');
    await expect(assembleIn(dir, job('stores.csv', 'store_id'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/stores\.csv row 2: store_id: empty; expected the destination's id/),
      context: { row: 2, field: 'store_id', path: 'options.destinations.mapping.id' },
    });
    write(join(dir, 'stores.csv'), 'store_id,lon,lat\nS1,13.5,52.4\nS2,13.6,52.3\nS1,13.7,52.2\n');
    await expect(assembleIn(dir, job('stores.csv', 'store_id'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/stores\.csv rows 1 and 3: both have the id "S1"$/),
      context: { row: 3, received: '"S1"', path: 'options.destinations.mapping.id' },
    });
    // GeoJSON has no header to check: a mistyped property was read as no id at all.
    const feature = (sid: string, lon: number) =>
      `{"type":"Feature","properties":{"sid":"${sid}"},"geometry":{"type":"Point","coordinates":[${lon},52.4]}}`;
    write(
      join(dir, 'stores.geojson'),
      `{"type":"FeatureCollection","features":[${feature('S1', 13.5)},${feature('S2', 13.6)}]}`,
    );
    await expect(assembleIn(dir, job('stores.geojson', 'SID'))).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringMatching(/stores\.geojson row 1: SID: missing; expected the destination's id/),
      context: { row: 1, field: 'SID', hint: 'the destination has "sid": map to it as written' },
    });
    const spec = await assembleIn(dir, job('stores.geojson', 'sid'));
    const planned = spec.job.plan({
      kind: 'row',
      ref: { index: 0, line: 2 },
      fields: { lon: '13.4', lat: '52.5' },
    });
    expect(Array.isArray(planned) && (planned as PairItem[]).map((item) => item.destination)).toEqual([
      [13.5, 52.4],
      [13.6, 52.4],
    ]);
  });
});

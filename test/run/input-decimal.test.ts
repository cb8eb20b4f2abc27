import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-decimal-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

// A German Excel export: `;` between cells, a decimal comma, `.` grouping thousands.
const INPUT = [
  'osm_id;street;housenumber;plz;city;metres',
  '292950735;Kirchstraße;15;54441;Kanzem;1.500',
  '88611101;Gießener Straße;45;35305;Grünberg;2.500,5',
  '3787354271;Brökerweg;2;32107;Bad Salzuflen;1.50',
  '',
].join('\n');

/** geocode, then elevation and isochrone at the point geocode wrote (columns it added). */
function jobFile(input: string): string {
  return [
    `input: ${input}`,
    'output: out.csv',
    'report: false',
    'steps:',
    '  - job: geocode',
    '    mapping: { street: street, houseNo: housenumber, zip: plz, city: city, country: { value: DE } }',
    '    options: { prefix: geo_ }',
    '  - job: elevation',
    '    mapping: { lon: geo_lon, lat: geo_lat }',
    '  - job: isochrone',
    '    mapping: { lon: geo_lon, lat: geo_lat, metres: metres }',
    '',
  ].join('\n');
}

async function run(input: string) {
  writeFileSync(join(dir, 'in.csv'), INPUT);
  const file = join(dir, 'job.yaml');
  writeFileSync(file, jobFile(input));
  const summary = await runJobFile(file, { emulator });
  const records = (name: string): Record<string, string>[] =>
    parse(readFileSync(join(dir, name), 'utf8'), { columns: true });
  return { summary, output: records('out.csv'), errors: records('out.errors.csv') };
}

describe('input.decimal in a run', () => {
  it("reads the input's numbers with the declared comma and the earlier steps' columns as they were written", async () => {
    const { summary, output, errors } = await run('{ path: in.csv, decimal: "," }');
    expect(summary.rows).toMatchObject({ read: 3, ok: 2, failed: 1 });
    // The geocode step wrote its lon/lat; elevation and isochrone read them whatever input.decimal says.
    for (const record of output.slice(0, 2)) {
      expect(record, record.osm_id).toMatchObject({ geobatch_status: 'ok', metres: expect.any(String) });
      expect(Number(record.geo_lon)).toBeGreaterThan(5);
      expect(record.elevation_m).not.toBe('');
      expect(Number(record.iso_area_km2)).toBeGreaterThan(0);
    }
    // 1.50 is no number where `,` is the decimal mark: the row fails naming the column, the run goes on.
    expect(errors).toEqual([
      expect.objectContaining({
        geobatch_row: '3',
        geobatch_job: 'isochrone',
        geobatch_stage: 'input',
        geobatch_error: 'FIELD_INVALID',
        geobatch_message:
          'metres: expected a number written with input.decimal "," (`.` only between groups of three digits, as in ' +
          '1.500.000,25), got `1.50`',
      }),
    ]);
  });

  it('asks, without input.decimal, what 1.500 m is and reads no grouped number, as before', async () => {
    const { summary, errors } = await run('in.csv');
    expect(summary.rows).toMatchObject({ read: 3, ok: 1, failed: 2 });
    expect(errors.map((record) => [record.geobatch_row, record.geobatch_error])).toEqual([
      ['1', 'FIELD_INVALID'],
      ['2', 'FIELD_INVALID'],
    ]);
    expect(errors[0]?.geobatch_message).toMatch(
      /^metres: expected a distance in metres, got `1.500`: 1.5 with a decimal mark, 1500 with a thousands separator/,
    );
  });

  it("reads an NDJSON input's JSON numbers as numbers in every step, its text cells with the declared comma", async () => {
    // 49.01330 reaches the jobs as its text (a double would drop the 0): still a JSON number, not a cell's writing.
    writeFileSync(
      join(dir, 'in.ndjson'),
      '{"id":1,"lon":"8,4278","lat":49.01330}\n{"id":2,"lon":"8.4278","lat":49.0133}\n',
    );
    const file = join(dir, 'nd.yaml');
    writeFileSync(
      file,
      [
        'input: { path: in.ndjson, decimal: "," }',
        'output: nd.ndjson',
        'report: false',
        'steps:',
        '  - job: elevation',
        '    mapping: { lon: lon, lat: lat }',
        '  - job: reverse-geocode',
        '    mapping: { lon: lon, lat: lat }',
        '',
      ].join('\n'),
    );
    const summary = await runJobFile(file, { emulator });
    expect(summary.rows).toMatchObject({ read: 2, ok: 1, failed: 1 });
    const errors: Record<string, string>[] = parse(readFileSync(join(dir, 'nd.ndjson.errors.csv'), 'utf8'), {
      columns: true,
    });
    expect(errors).toEqual([
      expect.objectContaining({
        geobatch_row: '2',
        geobatch_job: 'elevation',
        geobatch_error: 'FIELD_INVALID',
        geobatch_message: expect.stringMatching(
          /^lon: expected a longitude .* input\.decimal ",".*, got `8\.4278`$/,
        ),
      }),
    ]);
  });
});

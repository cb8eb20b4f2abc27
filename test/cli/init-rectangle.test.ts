/**
 * `geobatch init` on a file of bounding boxes. Columns named `w;s;e;n` were read as a point (`lon:
 * w`, `lat: s`, "guessed by its values"), and `--kind address-search` drafted that point instead
 * of the rectangle. A box's four sides are now read as a rectangle in the spellings GIS exports
 * use, all four together and only where the values agree; a side alone is never a point's
 * coordinate.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initJobFile } from '../../src/cli/init.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/run/job-file.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { expectGolden } from './init-golden.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = tempDir();
});

afterAll(async () => {
  await emulator.close();
});

function input(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const columnsOf = (mapping: ReadonlyMap<string, { column: string }>) =>
  Object.fromEntries([...mapping].map(([field, guess]) => [field, guess.column]));

/** German Excel's boxes: decimal commas, a row with west and east swapped, one without north, one in Paris. */
const RECT =
  'id;w;s;e;n\nr1;13,3;52,5;13,45;52,55\nr2;13,45;52,5;13,3;52,55\nr3;13,3;52,5;13,45;\nr4;2,3;48,8;2,4;48,9\nr5;13.3;52.5;13.45;52.55\n';

describe('geobatch init: a bounding box in four columns', () => {
  it('reads w;s;e;n as a rectangle, guesses an area export of it, and the file runs as written', async () => {
    const job = join(dir, 'rect.yaml');
    const result = await initJobFile(input('rect.csv', RECT), { output: job });
    expectGolden('rect.area-export.yaml', result.text, dir);
    expect(result.candidate.kind.name).toBe('area-export');
    expect(columnsOf(result.candidate.mapping)).toEqual({ west: 'w', south: 's', east: 'e', north: 'n' });
    expect(result.candidate.problems).toEqual([]);
    const summary = await runJobFile(job, { emulator });
    expect(summary.exitCode).toBe(3);
    // r2 (west > east) and r3 (no north) fail as the rows they are; every other row is read.
    expect(summary.rows).toMatchObject({ read: 5, ok: 3, failed: 2 });
  });

  it('drafts the rectangle, not a point, for --kind address-search; with branches set, it runs', async () => {
    const job = join(dir, 'rect-search.yaml');
    const result = await initJobFile(input('rect-search.csv', RECT), { output: job, kind: 'address-search' });
    expect(columnsOf(result.candidate.mapping)).toEqual({ west: 'w', south: 's', east: 'e', north: 'n' });
    expect(result.text).toMatch(/^ {2}# lon: +# no column found$/m);
    // branches is the one TODO: nothing in a file says which categories are wanted.
    expect(result.candidate.problems).toEqual([expect.stringContaining('options.branches')]);
    writeFileSync(job, readFileSync(job, 'utf8').replace(/^ {2}branches: .*$/m, '  branches: "1201"'));
    const summary = await runJobFile(job, { emulator });
    expect(summary.rows).toMatchObject({ read: 5, ok: 3, failed: 2 });
  });

  it.each([
    ['W;S;E;N', 'id;W;S;E;N\na;13,3;52,5;13,45;52,55\n'],
    ['minx, miny, maxx, maxy', 'id,minx,miny,maxx,maxy\na,13.3,52.5,13.45,52.55\n'],
    ['xmin, ymin, xmax, ymax', 'id,XMin,YMin,XMax,YMax\na,13.3,52.5,13.45,52.55\n'],
    ['min_lon ... max_lat', 'id,min_lon,min_lat,max_lon,max_lat\na,13.3,52.5,13.45,52.55\n'],
    ['lon_min ... lat_max', 'id,lon_min,lat_min,lon_max,lat_max\na,13.3,52.5,13.45,52.55\n'],
    ['bbox_minx ...', 'id,bbox_minx,bbox_miny,bbox_maxx,bbox_maxy\na,13.3,52.5,13.45,52.55\n'],
    ['bbox_west ...', 'id,bbox_west,bbox_south,bbox_east,bbox_north\na,13.3,52.5,13.45,52.55\n'],
    ['extent.w ...', 'id,extent.w,extent.s,extent.e,extent.n\na,13.3,52.5,13.45,52.55\n'],
    ['south-west and north-east corners', 'id,sw_lng,sw_lat,ne_lng,ne_lat\na,13.3,52.5,13.45,52.55\n'],
    ['lower-left and upper-right', 'id,llx,lly,urx,ury\na,13.3,52.5,13.45,52.55\n'],
    [
      'westBoundLongitude ...',
      'id,westBoundLongitude,southBoundLatitude,eastBoundLongitude,northBoundLatitude\na,13.3,52.5,13.45,52.55\n',
    ],
  ])('reads %s as west, south, east, north', async (name, csv) => {
    const result = await initJobFile(input(`${name.replace(/\W+/g, '-')}.csv`, csv), {
      output: join(dir, `${name.replace(/\W+/g, '-')}.yaml`),
    });
    expect(result.candidate.kind.name).toBe('area-export');
    const header = (csv.split('\n')[0] as string).split(/[;,]/);
    expect(columnsOf(result.candidate.mapping)).toEqual({
      west: header[1],
      south: header[2],
      east: header[3],
      north: header[4],
    });
  });

  it('turns a box round whose corners lie in Germany only read with lat and lon the other way', async () => {
    const result = await initJobFile(input('turned.csv', 'id;w;s;e;n\nr1;52,5;13,3;52,55;13,45\n'), {
      output: join(dir, 'turned.yaml'),
    });
    expect(columnsOf(result.candidate.mapping)).toEqual({ west: 's', south: 'w', east: 'n', north: 'e' });
    expect(result.candidate.mapping.get('west')?.reason).toMatch(/other way round/);
  });
});

describe('geobatch init: sides that are not a rectangle', () => {
  it('never guesses w and s alone as a point, and says beside them why they are not a rectangle', async () => {
    const path = input('ws.csv', 'id,w,s\na,13.3,52.5\nb,8.4,49.0\n');
    const point = await initJobFile(path, { output: join(dir, 'ws-point.yaml'), kind: 'reverse-geocode' });
    expect(point.candidate.mapping.size).toBe(0);
    expect(point.candidate.undecided).toEqual([]);
    const box = await initJobFile(path, { output: join(dir, 'ws-box.yaml'), kind: 'area-export' });
    expect(box.candidate.mapping.size).toBe(0);
    expect(box.text).toMatch(
      /^ {2}# west: +# "w" not taken: a rectangle needs all four sides, and no column was found for east, north$/m,
    );
  });

  it('does not take four sides whose values say west >= east or south >= north in most rows', async () => {
    const csv = 'id,w,s,e,n\na,13.45,52.55,13.3,52.5\nb,8.5,49.1,8.4,49.0\nc,13.3,52.5,13.45,52.55\n';
    const result = await initJobFile(input('unordered.csv', csv), {
      output: join(dir, 'unordered.yaml'),
      kind: 'area-export',
    });
    expect(result.candidate.mapping.size).toBe(0);
    expect(result.text).toMatch(
      /^ {2}# north: +# "n" not taken: as a rectangle \(w, s, e, n\), west < east and south < north in 1 of 3 first rows$/m,
    );
  });
});

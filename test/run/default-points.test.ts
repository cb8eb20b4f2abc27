/**
 * A point read from default columns (lon/lng/longitude/x, lat/latitude/y) when the header holds
 * more than one of a kind: the first name of each list is read, and a file that went through
 * another tool (`lat`, `lon` beside `latitude`, `longitude`) would get the other places, every row
 * ok. The run and validate say which columns are read and how to choose others.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import { memoryLogger } from '../fixtures/run-helpers.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-default-points-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

async function warnings(job: string, dryRun = false): Promise<string[]> {
  const { logger, lines } = memoryLogger();
  await runJobFile(job, { emulator, logger, dryRun });
  return lines()
    .filter((line) => line.level === 40)
    .map((line) => String(line.msg));
}

const BOTH = 'id,latitude,longitude,lat,lon\n1,49.0094,8.4044,52.52,13.40\n';

describe('default point columns', () => {
  it('warns, naming the columns read and the keys to map, when the header has two of a kind', async () => {
    file('both.csv', BOTH);
    const job = file('both.yaml', 'job: elevation\ninput: both.csv\noutput: both.out.csv\n');
    expect(await warnings(job)).toContain(
      `the input's header has more than one column a point is read from by default ("lon", "longitude"; "lat", "latitude"): "lon" and "lat" are read; map mapping.lon and mapping.lat to read others`,
    );
    // The dry run says it as well: it is where a user checks a file before paying for it.
    expect((await warnings(job, true)).some((w) => w.includes('"lon" and "lat" are read'))).toBe(true);
  });

  it('names the keys a kind reads its default point for (a matrix origin), and each kind once', async () => {
    file('origins.csv', 'id,lng,x,lat\n1,8.4044,3456000,49.0094\n');
    const job = file(
      'origins.yaml',
      'job: matrix\ninput: origins.csv\noutput: origins.out.csv\nmapping: { destinationLon: { value: 8.41 }, destinationLat: { value: 49.01 } }\n',
    );
    const shown = (await warnings(job)).filter((w) => w.includes('by default'));
    expect(shown).toEqual([
      `the input's header has more than one column a point is read from by default ("lng", "x"): "lng" and "lat" are read; map mapping.originLon and mapping.originLat to read others`,
    ]);
  });

  it('says nothing when the point is mapped, or the header has one column of each kind', async () => {
    file('one.csv', 'id,longitude,lat\n1,8.4044,49.0094\n');
    const one = file('one.yaml', 'job: elevation\ninput: one.csv\noutput: one.out.csv\n');
    const mapped = file(
      'mapped.yaml',
      `job: elevation\ninput: ${file('mapped.csv', BOTH)}\noutput: mapped.out.csv\nmapping: { lon: longitude, lat: latitude }\n`,
    );
    for (const job of [one, mapped])
      expect((await warnings(job)).filter((w) => w.includes('by default'))).toEqual([]);
  });

  it('warns for the one key of a pair left unmapped, whose axis has two columns', async () => {
    // `lon: longitude` with `lat` unmapped read `lat` (49), not the `latitude` beside it (51).
    file('half.csv', 'id,lat,lon,latitude,longitude\n1,49.0,8.4,51.0,10.0\n');
    const job = file(
      'half.yaml',
      'job: elevation\ninput: half.csv\noutput: half.out.csv\nmapping: { lon: longitude }\n',
    );
    expect((await warnings(job)).filter((w) => w.includes('by default'))).toEqual([
      `the input's header has more than one column a point is read from by default ("lat", "latitude"): "lat" is read; map mapping.lat to read another`,
    ]);
  });

  it("says nothing for a kind's form that reads no point (address-search by address)", async () => {
    file('address.csv', 'id,zip,city,lat,lon,latitude,longitude\n1,76131,Karlsruhe,49.0,8.4,49.0,8.4\n');
    const job = file(
      'address.yaml',
      'job: address-search\ninput: address.csv\noutput: address.out.csv\nmapping: { zip: zip, city: city }\noptions: { branches: "1301" }\n',
    );
    expect((await warnings(job, true)).filter((w) => w.includes('by default'))).toEqual([]);
  });

  it('says nothing for a later step that reads the pair an earlier step adds', async () => {
    file('pipe.csv', 'id,street,housenumber,plz,city,longitude,x\n1,Kirchstraße,1,54441,Kanzem,1,2\n');
    const job = file(
      'pipe.yaml',
      [
        'input: pipe.csv',
        'output: pipe.out.csv',
        'steps:',
        '  - job: geocode',
        '    mapping: { street: street, houseNo: housenumber, zip: plz, city: city, country: { value: DE } }',
        '    options: { prefix: "" }',
        '  - job: elevation',
        '',
      ].join('\n'),
    );
    expect((await warnings(job)).filter((w) => w.includes('by default'))).toEqual([]);
  });

  it('is shown by validate as a warning', async () => {
    file('valid.csv', BOTH);
    const job = file('valid.yaml', 'job: elevation\ninput: valid.csv\noutput: valid.out.csv\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/cli/main.js', 'validate', job]);
    expect(stdout).toContain(
      '  warning: the input\'s header has more than one column a point is read from by default ("lon", "longitude"; "lat", "latitude"): "lon" and "lat" are read; map mapping.lon and mapping.lat to read others\n',
    );
  });
});

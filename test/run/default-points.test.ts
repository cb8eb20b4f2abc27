/**
 * A point read from default columns (lon/lng/longitude/x, lat/latitude/y) when the header holds
 * more than one of a kind: the first name of each list is read, and a file that went through
 * another tool (`lat`, `lon` beside `latitude`, `longitude`) would get the other places, every row
 * ok. The run and validate say which columns are read and how to choose others.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runJobFile } from '../../src/index.js';
import { emulatorWorkspace, memoryLogger } from '../fixtures/run-helpers.js';

const ws = emulatorWorkspace('geobatch-default-points-');
const { file } = ws;

async function warnings(job: string, dryRun = false): Promise<string[]> {
  const { logger, lines } = memoryLogger();
  await runJobFile(job, { emulator: ws.emulator, logger, dryRun });
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

  it('lets a later step read the point an earlier step gives when the header has no point columns', async () => {
    file('placed.csv', 'id,plz,ort\n1,98527,Suhl\n2,76133,Karlsruhe\n');
    const job = file(
      'placed.yaml',
      'input: placed.csv\noutput: placed.out.csv\nsteps:\n  - job: geocode\n    mapping: { zip: plz, city: ort }\n  - job: elevation\n',
    );
    const summary = await runJobFile(job, { emulator: ws.emulator, logger: memoryLogger().logger });
    expect(summary.rows).toMatchObject({ read: 2, ok: 2, failed: 0 });
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

const ALL = 'mapping.lon and mapping.lat to read others';
const TAIL = 'later rows like it are read alike, without another warning';
const BOTH_KEYS = `("lon", "longitude"; "lat", "latitude"): "lon" and "lat" are read; map ${ALL}`;

describe('default point keys of NDJSON and GeoJSON records, each record its own', () => {
  const records = [
    { id: 1, lat: 52.52, lon: 13.4 },
    { id: 2, latitude: 49.0094, longitude: 8.4044, lat: 52.52, lon: 13.4 },
    { id: 3, latitude: 49.0094, longitude: 8.4044, lat: 52.52, lon: 13.4 },
    { id: 4, lat: 49.0094, lon: 8.4044, x: 3456000, y: 5430000 },
  ];
  const ndjson = `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;

  it('warns at the first record read ambiguously, once for each way, in the run and the dry run', async () => {
    file('records.ndjson', ndjson);
    const job = file('records.yaml', 'job: elevation\ninput: records.ndjson\noutput: records.out.ndjson\n');
    const expected = [
      `row 2 of the input has more than one key a point is read from by default ${BOTH_KEYS}; ${TAIL}`,
      `row 4 of the input has more than one key a point is read from by default ("lon", "x"; "lat", "y"): "lon" and "lat" are read; map ${ALL}; ${TAIL}`,
    ];
    for (const dryRun of [false, true])
      expect((await warnings(job, dryRun)).filter((w) => w.includes('by default'))).toEqual(expected);
  });

  it('says nothing for records with one key of each kind, or a mapped point', async () => {
    file('plain.ndjson', `${JSON.stringify({ id: 1, longitude: 8.4, lat: 49 })}\n`);
    const plain = file('plain.yaml', 'job: elevation\ninput: plain.ndjson\noutput: plain.out.ndjson\n');
    file('mapped.ndjson', ndjson);
    const mapped = file(
      'mapped-nd.yaml',
      'job: elevation\ninput: mapped.ndjson\noutput: mapped.out.ndjson\nmapping: { lon: longitude, lat: latitude }\n',
    );
    for (const job of [plain, mapped])
      expect((await warnings(job)).filter((w) => w.includes('by default'))).toEqual([]);
  });

  it('warns of each way at most five times, and says the fifth is the last', async () => {
    const lons = [
      ['lon', 'lng'],
      ['lon', 'longitude'],
      ['lon', 'x'],
      ['lng', 'longitude'],
      ['lng', 'x'],
      ['longitude', 'x'],
    ];
    const lines = lons.map(([a, b], i) =>
      JSON.stringify({ id: i, [a as string]: 8.4, [b as string]: 8.5, lat: 49 }),
    );
    file('ways.ndjson', `${lines.join('\n')}\n`);
    const job = file('ways.yaml', 'job: elevation\ninput: ways.ndjson\noutput: ways.out.ndjson\n');
    const shown = (await warnings(job)).filter((w) => w.includes('by default'));
    expect(shown.map((w) => w.slice(0, 6))).toEqual(['row 1 ', 'row 2 ', 'row 3 ', 'row 4 ', 'row 5 ']);
    expect(shown[4]).toMatch(/; no more such warnings for this input$/);
  });

  it("reads a feature's Point before its properties: warns only for features without one", async () => {
    const feature = (geometry: unknown, id: number) => ({
      type: 'Feature',
      geometry,
      properties: { id, lat: 52.52, lon: 13.4, latitude: 49.0094, longitude: 8.4044 },
    });
    const collection = {
      type: 'FeatureCollection',
      features: [
        feature({ type: 'Point', coordinates: [8.4044, 49.0094] }, 1),
        feature(null, 2),
        feature(
          {
            type: 'Polygon',
            coordinates: [
              [
                [8, 49],
                [9, 49],
                [9, 50],
                [8, 49],
              ],
            ],
          },
          3,
        ),
      ],
    };
    file('features.geojson', JSON.stringify(collection));
    const job = file(
      'features.yaml',
      'job: elevation\ninput: features.geojson\noutput: features.out.geojson\n',
    );
    expect((await warnings(job)).filter((w) => w.includes('by default'))).toEqual([
      `row 2 of the input (a feature with no geometry) has more than one property a point is read from by default ${BOTH_KEYS}; ${TAIL}`,
    ]);
    // A matrix origin is read from the default columns before any geometry: a Point does not settle it.
    const point = { ...collection, features: [collection.features[0]] };
    file('origins.geojson', JSON.stringify(point));
    const matrix = file(
      'origins-geo.yaml',
      'job: matrix\ninput: origins.geojson\noutput: origins-geo.out.geojson\nmapping: { destinationLon: { value: 8.41 }, destinationLat: { value: 49.01 } }\n',
    );
    expect((await warnings(matrix, true)).filter((w) => w.includes('by default'))).toEqual([
      `row 1 of the input (a feature whose geometry is a Point) has more than one property a point is read from by default ("lon", "longitude"; "lat", "latitude"): "lon" and "lat" are read; map mapping.originLon and mapping.originLat to read others; ${TAIL}`,
    ]);
  });

  it('is shown by validate from the first records, as the run would show it', async () => {
    file('valid.ndjson', ndjson);
    const job = file('valid-nd.yaml', 'job: elevation\ninput: valid.ndjson\noutput: valid.out.ndjson\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['dist/cli/main.js', 'validate', job]);
    expect(stdout).toContain(
      `  warning: row 2 of the input has more than one key a point is read from by default ${BOTH_KEYS}; ${TAIL}\n`,
    );
    expect(stdout).toContain('  warning: row 4 of the input has more than one key');
  });
});

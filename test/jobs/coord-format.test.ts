import { describe, expect, it } from 'vitest';
import { distanceMetres } from '../../src/client/coords.js';
import { jobFileSchema } from '../../src/config/schema.js';
import { coordCells, coordFormats, readProjected } from '../../src/jobs/_coord-format.js';
import { readPoint, resolveMapping } from '../../src/jobs/_fields.js';
import type { GeocodeResult } from '../../src/jobs/_ports.js';
import { createGeocodeJob } from '../../src/jobs/geocode.js';
import { JOB_KINDS } from '../../src/jobs/index.js';
import { createMatrixJob } from '../../src/jobs/matrix.js';
import { createReverseGeocodeJob } from '../../src/jobs/reverse-geocode.js';
import type { LonLat } from '../../src/types.js';
import { row, signal } from './_rows.js';

// The reference values of /work/shared/spec/service-notes.md ("Coordinate formats").
const KARLSRUHE: LonLat = [8.4278, 49.01334];
const SUPERKONFORM_CHECKS: { name: string; wgs84: LonLat; sk: [number, number] }[] = [
  { name: 'Karlsruhe', wgs84: KARLSRUHE, sk: [5085871.0, 3348184.5] },
  { name: 'Berlin', wgs84: [13.4058, 52.5191], sk: [5429479.1, 3740276.4] },
  { name: 'Munich', wgs84: [11.5768, 48.1368], sk: [5316511.1, 3251174.8] },
];
const R = 6_371_000;
const mercator = ([lon, lat]: LonLat) => [
  (R * lon * Math.PI) / 180,
  R * Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)),
];

const columns = (x: string | number, y: string | number) => row({ x: String(x), y: String(y) });

describe('input columns in a coordinate format', () => {
  it.each(SUPERKONFORM_CHECKS)(
    'reads SUPERKONFORM columns of $name to within 1 m of the reference',
    ({ wgs84, sk }) => {
      const point = readPoint(columns(sk[0], sk[1]), {}, { format: 'SUPERKONFORM' }) as LonLat;
      expect(distanceMetres(point, wgs84)).toBeLessThan(1);
    },
  );

  it('reads GEODECIMAL integers (degrees x 100000) and MERCATOR metres', () => {
    expect(readPoint(columns(842780, 4901334), {}, { format: 'GEODECIMAL' })).toEqual(KARLSRUHE);
    const [mx, my] = mercator(KARLSRUHE);
    const point = readPoint(columns(mx as number, my as number), {}, { format: 'MERCATOR' }) as LonLat;
    expect(distanceMetres(point, KARLSRUHE)).toBeLessThan(0.01);
  });

  it('leaves degrees alone by default and for GEODECIMAL_POINT', () => {
    expect(readPoint(columns('8,4278', '49.01334'), {}, { format: 'GEODECIMAL_POINT' })).toEqual(KARLSRUHE);
    expect(readPoint(columns('8.4278', '49.01334'), {})).toEqual(KARLSRUHE);
  });

  it('refuses degrees in a column declared GEODECIMAL, naming the column and the value', () => {
    expect(readPoint(columns('8.4278', '49.01334'), {}, { format: 'GEODECIMAL' })).toEqual({
      code: 'FIELD_INVALID',
      field: 'x',
      message: 'x: expected a GEODECIMAL longitude (degrees x 100000, an integer), got 8.4278',
    });
  });

  it('refuses degrees in columns declared MERCATOR or SUPERKONFORM, rather than route from the sea off Africa', () => {
    for (const format of ['MERCATOR', 'SUPERKONFORM'] as const) {
      expect(readPoint(columns('13.41053', '52.52437'), {}, { format })).toEqual({
        code: 'FIELD_INVALID',
        field: 'x',
        message: `x: expected a ${format} x in metres, got 13.41053 (and 52.52437: degrees in a column declared ${format}?)`,
      });
    }
    // Metres near the projection's origin are read as they are when they cannot be degrees.
    expect(readPoint(columns(1000, 50), {}, { format: 'MERCATOR' })).toHaveLength(2);
  });

  it('suspects swapped GEODECIMAL columns when the latitude is out of range', () => {
    const issue = readPoint(columns(4901334, 95000000), {}, { format: 'GEODECIMAL' });
    expect(issue).toMatchObject({ code: 'FIELD_INVALID', field: 'y' });
    expect(readProjected(4901334, 9500000, 'GEODECIMAL')).toMatchObject({
      axis: 'lat',
      message: 'expected a GEODECIMAL latitude from -9000000 to 9000000, got 9500000 (x and y swapped?)',
    });
  });

  it('names a missing or non-numeric projected value, and one outside the projection', () => {
    expect(readPoint(columns('', '3348184.5'), {}, { format: 'SUPERKONFORM' })).toEqual({
      code: 'FIELD_MISSING',
      field: 'x',
      message: 'x: expected a SUPERKONFORM x in metres, got an empty value',
    });
    expect(readPoint(columns('5085871', 'n/a'), {}, { format: 'MERCATOR' })).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'y',
      message: 'y: expected a MERCATOR y in metres, got `n/a`',
    });
    expect(readPoint(columns(9e9, 1), {}, { format: 'MERCATOR' })).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'x',
    });
  });

  it('refuses a value whose one mark may separate thousands (German 100.000) rather than guess, naming the column', () => {
    // GEODECIMAL 100.000 is 1° written the German way; read as 100 it was 0.001°, silently.
    expect(readPoint(columns('100.000', '4901334'), {}, { format: 'GEODECIMAL' })).toEqual({
      code: 'FIELD_INVALID',
      field: 'x',
      message:
        'x: expected a GEODECIMAL longitude (degrees x 100000, an integer), got `100.000`: 100 with a decimal mark, ' +
        '100000 with a thousands separator; write it without thousands separators (100000) or with other than three ' +
        'decimals, or declare the mark with input.decimal',
    });
    expect(readPoint(columns('5085871', '334,818'), {}, { format: 'SUPERKONFORM' })).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'y',
      message: expect.stringContaining('y: expected a SUPERKONFORM y in metres, got `334,818`: 334.818 with'),
    });
    // Other than three decimals, or past one group, the value is what it says.
    expect(readPoint(columns('5085871,0', '3348184.50'), {}, { format: 'SUPERKONFORM' })).toHaveLength(2);
  });

  it('reads a value the input declares its mark for (input.decimal) without asking: groups of three with ","', () => {
    const comma = resolveMapping({}, ',');
    expect(readPoint(columns('100.000', '4.901.334'), comma, { format: 'GEODECIMAL' })).toEqual([
      1, 49.01334,
    ]);
    const [sk] = SUPERKONFORM_CHECKS as [(typeof SUPERKONFORM_CHECKS)[0]];
    const point = readPoint(columns('5.085.871,0', '3.348.184,5'), comma, {
      format: 'SUPERKONFORM',
    }) as LonLat;
    expect(distanceMetres(point, sk.wgs84)).toBeLessThan(1);
    // With ".", the comma is the one that groups.
    const dot = resolveMapping({}, '.');
    expect(readPoint(columns('842,780', '4,901,334'), dot, { format: 'GEODECIMAL' })).toEqual(KARLSRUHE);
    expect(readPoint(columns('5085871.0', '3348,184.5'), comma, { format: 'SUPERKONFORM' })).toEqual({
      code: 'FIELD_INVALID',
      field: 'x',
      message:
        'x: expected a SUPERKONFORM x in metres written with input.decimal "," (`.` only between groups of three ' +
        'digits, as in 1.500.000,25), got `5085871.0`',
    });
  });

  it('reads degrees with three decimals as decimals: no thousand is a degree', () => {
    expect(readPoint(columns('8,403', '49.010'), {})).toEqual([8.403, 49.01]);
  });

  it('keeps a GeoJSON Point geometry in WGS84 whatever the columns are in', () => {
    const feature = row({ name: 'a' }, { type: 'Point', coordinates: [8.4278, 49.01334] });
    expect(readPoint(feature, {}, { format: 'SUPERKONFORM' })).toEqual(KARLSRUHE);
  });
});

describe('output columns in a coordinate format', () => {
  it.each(SUPERKONFORM_CHECKS)(
    'writes $name in SUPERKONFORM within 1 m of the reference, to the centimetre',
    ({ wgs84, sk }) => {
      const [x, y] = coordCells(wgs84, 'SUPERKONFORM') as [number, number];
      expect(Math.hypot(x - sk[0], y - sk[1])).toBeLessThan(1);
      expect(Math.round(x * 100)).toBe(x * 100);
    },
  );

  it('writes GEODECIMAL as integers and keeps GEODECIMAL_POINT as given', () => {
    expect(coordCells(KARLSRUHE, 'GEODECIMAL')).toEqual([842780, 4901334]);
    expect(coordCells([8.123456789, 49.1], 'GEODECIMAL_POINT')).toEqual([8.123456789, 49.1]);
    expect(coordCells(null, 'MERCATOR')).toEqual([null, null]);
  });

  it.each(['GEODECIMAL', 'MERCATOR', 'SUPERKONFORM'] as const)(
    'round-trips %s: what a job writes, a job reads back to within 2 cm',
    (format) => {
      for (const { wgs84 } of SUPERKONFORM_CHECKS) {
        const [x, y] = coordCells(wgs84, format) as [number, number];
        const back = readPoint(columns(x, y), {}, { format }) as LonLat;
        // GEODECIMAL keeps 1e-5 degrees (about 1 m); the metric formats the centimetre.
        expect(distanceMetres(back, wgs84)).toBeLessThan(format === 'GEODECIMAL' ? 1 : 0.02);
      }
    },
  );
});

describe('the coordFormat option of the kinds', () => {
  it('takes one format for input and output, or each apart', () => {
    expect(coordFormats(undefined)).toEqual({ input: 'GEODECIMAL_POINT', output: 'GEODECIMAL_POINT' });
    expect(coordFormats('MERCATOR')).toEqual({ input: 'MERCATOR', output: 'MERCATOR' });
    expect(coordFormats({ input: 'SUPERKONFORM' })).toEqual({
      input: 'SUPERKONFORM',
      output: 'GEODECIMAL_POINT',
    });
  });

  it('is an option of every kind that says an option sets its coordinates, and refuses unknown formats', () => {
    // Derived from each kind's own `coordinates`, not a list to keep: a new kind with columns in
    // a format an option sets has the option, and one that reads degrees only has none.
    for (const kind of JOB_KINDS) {
      const coordinates = kind.coordinates?.({} as never);
      const set = [...(coordinates?.reads ?? []), ...(coordinates?.writes ? [coordinates.writes] : [])].some(
        (part) => part.option !== undefined,
      );
      expect('coordFormat' in kind.options.shape, kind.name).toBe(set);
    }
    const parsed = jobFileSchema.safeParse({
      job: 'elevation',
      input: 'in.csv',
      output: 'out.csv',
      options: { coordFormat: 'UTM32' },
    });
    expect(parsed.success).toBe(false);
  });

  it('sends a reverse-geocode row given in SUPERKONFORM as WGS84, and writes the match in SUPERKONFORM', async () => {
    const asked: LonLat[] = [];
    const match = { lon: 13.4058, lat: 52.5191, zip: '10178', city: 'Berlin' };
    const client = {
      reverseGeocode: async (point: LonLat) => {
        asked.push(point);
        return { match, exception: null } as unknown as GeocodeResult;
      },
    };
    const job = createReverseGeocodeJob(client, { mapping: {}, coordFormat: 'SUPERKONFORM' });
    const r = row({ x: '5085871.0', y: '3348184.5' });
    const [item] = job.plan(r) as LonLat[];
    const results = await job.execute([item as LonLat], signal);
    expect(distanceMetres(asked[0] as LonLat, KARLSRUHE)).toBeLessThan(1);
    const rendered = job.render(r, [...results.values()]);
    if (!rendered.ok) throw new Error(rendered.failure.message);
    const cols = rendered.records[0]?.columns ?? {};
    expect(
      Math.hypot((cols.rev_lon as number) - 5429479.1, (cols.rev_lat as number) - 3740276.4),
    ).toBeLessThan(1);
    // The geometry stays WGS84 (RFC 7946), whatever the columns say.
    const geometry = rendered.records[0]?.geometry as { coordinates: number[] };
    expect(distanceMetres(geometry.coordinates as unknown as LonLat, KARLSRUHE)).toBeLessThan(1);
  });

  it('reads both points of a matrix pair in the input format', () => {
    const job = createMatrixJob(
      { routing: { matrix: async () => [] } },
      {
        mapping: {
          originLon: { column: 'ox' },
          originLat: { column: 'oy' },
          destinationLon: { column: 'dx' },
          destinationLat: { column: 'dy' },
        },
        coordFormat: { input: 'GEODECIMAL' },
      },
    );
    expect(job.plan(row({ ox: '842780', oy: '4901334', dx: '1340580', dy: '5251910' }))).toEqual([
      { origin: KARLSRUHE, destination: [13.4058, 52.5191] },
    ]);
  });

  it('writes a geocoding match in GEODECIMAL when asked', async () => {
    const client = {
      geocode: async () =>
        ({
          match: { lon: 8.4278, lat: 49.01334, zip: '76131' },
          exception: null,
        }) as unknown as GeocodeResult,
    };
    const job = createGeocodeJob(client, { mapping: { zip: { column: 'plz' } }, coordFormat: 'GEODECIMAL' });
    const r = row({ plz: '76131' });
    const items = job.plan(r) as never[];
    const results = await job.execute(items, signal);
    const rendered = job.render(r, [...results.values()]);
    expect(rendered).toMatchObject({
      ok: true,
      records: [{ columns: { geo_lon: 842780, geo_lat: 4901334 } }],
    });
  });
});

import { describe, expect, it } from 'vitest';
import {
  convert,
  distanceMetres,
  fromWgs84,
  isCoordIssue,
  readDecimal,
  readLonLat,
  thousandsAmbiguity,
  toWgs84,
} from '../../src/client/coords.js';
import type { CoordFormat } from '../../src/contract/index.js';
import type { LonLat } from '../../src/types.js';

// service-notes.md, "Coordinate formats": the check values.
const SUPERKONFORM_CHECKS: [string, LonLat, [number, number]][] = [
  ['Karlsruhe', [8.4278, 49.01334], [5085871.0, 3348184.5]],
  ['Berlin', [13.4058, 52.5191], [5429479.1, 3740276.4]],
  ['Munich', [11.5768, 48.1368], [5316511.1, 3251174.8]],
];
const FORMATS: CoordFormat[] = ['GEODECIMAL_POINT', 'GEODECIMAL', 'MERCATOR', 'SUPERKONFORM'];
const PLACES: LonLat[] = [
  [8.4278, 49.01334],
  [13.4058, 52.5191],
  [11.5768, 48.1368],
  [-73.9857, 40.7484],
  [151.2093, -33.8688],
];

describe('coordinate formats', () => {
  it.each(SUPERKONFORM_CHECKS)('puts %s at the SUPERKONFORM check value within 1 m', (_, wgs, expected) => {
    const [x, y] = fromWgs84(wgs, 'SUPERKONFORM');
    expect(Math.hypot(x - expected[0], y - expected[1])).toBeLessThan(1);
  });

  it.each(SUPERKONFORM_CHECKS)('reads the SUPERKONFORM check value of %s back within 1 m', (_, wgs, sk) => {
    expect(distanceMetres(toWgs84(sk, 'SUPERKONFORM'), wgs)).toBeLessThan(1);
  });

  it('writes GEODECIMAL as integer degrees x 100000 (Karlsruhe 842780/4901334)', () => {
    expect(fromWgs84([8.4278, 49.01334], 'GEODECIMAL')).toEqual([842780, 4901334]);
  });

  it('uses a sphere of 6371000 m for MERCATOR, not Web Mercator', () => {
    const [x] = fromWgs84([1, 0], 'MERCATOR');
    expect(x).toBeCloseTo((6_371_000 * Math.PI) / 180, 6);
  });

  it.each(FORMATS)('round-trips %s within 1 m', (format) => {
    for (const place of PLACES) {
      expect(distanceMetres(toWgs84(fromWgs84(place, format), format), place)).toBeLessThan(1);
    }
  });

  it('converts between two non-WGS84 formats through WGS84', () => {
    const sk = fromWgs84([8.4278, 49.01334], 'SUPERKONFORM');
    const merc = convert(sk, 'SUPERKONFORM', 'MERCATOR');
    expect(distanceMetres(toWgs84(merc, 'MERCATOR'), [8.4278, 49.01334])).toBeLessThan(1);
  });
});

describe('readLonLat', () => {
  it('quotes a cell out of range as written (`1e3`), not as the number read, and a number as it is', () => {
    expect(readLonLat('8.4', '1e3')).toEqual({
      code: 'FIELD_INVALID',
      axis: 'lat',
      message: 'expected a latitude from -90 to 90, got `1e3`',
    });
    expect(readLonLat(' 2E2 ', '49')).toMatchObject({
      axis: 'lon',
      message: 'expected a longitude from -180 to 180, got `2E2`',
    });
    // An NDJSON or GeoJSON number came as a number: shown as one.
    expect(readLonLat(8.4, 1e3)).toMatchObject({ message: 'expected a latitude from -90 to 90, got 1000' });
    expect(readLonLat(200, 49)).toMatchObject({ message: 'expected a longitude from -180 to 180, got 200' });
  });

  it('accepts numbers and numeric strings', () => {
    expect(readLonLat(8.4, 49)).toEqual([8.4, 49]);
    expect(readLonLat(' 8.4 ', '49.01')).toEqual([8.4, 49.01]);
    expect(readLonLat(-180, 90)).toEqual([-180, 90]);
  });

  it('reads the decimal comma German spreadsheets write', () => {
    expect(readLonLat('8,4278', '49,01334')).toEqual([8.4278, 49.01334]);
    expect(readLonLat('1e-3', '-4.5E1')).toEqual([0.001, -45]);
  });

  it.each([
    [undefined, 49, 'FIELD_MISSING', 'lon', 'expected a longitude, got an empty value'],
    [8, '', 'FIELD_MISSING', 'lat', 'expected a latitude, got an empty value'],
    ['8,4,2', 49, 'FIELD_INVALID', 'lon', 'expected a longitude in decimal degrees, got `8,4,2`'],
    ['0x1A', 49, 'FIELD_INVALID', 'lon', 'expected a longitude in decimal degrees, got `0x1A`'],
    [8, 'Infinity', 'FIELD_INVALID', 'lat', 'expected a latitude in decimal degrees, got `Infinity`'],
    [8, Number.NaN, 'FIELD_INVALID', 'lat', 'expected a latitude in decimal degrees, got NaN'],
    [181, 49, 'FIELD_INVALID', 'lon', 'expected a longitude from -180 to 180, got 181'],
    [100, -91, 'FIELD_INVALID', 'lat', 'expected a latitude from -90 to 90, got -91'],
  ])('refuses lon %j lat %j as %s of %s', (lon, lat, code, axis, message) => {
    const result = readLonLat(lon, lat);
    expect(isCoordIssue(result)).toBe(true);
    expect(result).toEqual({ code, axis, message });
  });

  it('suggests that longitude and latitude are swapped when only that explains the values', () => {
    const result = readLonLat(49.01, 120.5);
    expect(result).toMatchObject({ code: 'FIELD_INVALID', axis: 'lat' });
    expect(isCoordIssue(result) && result.message).toContain('swapped');
  });
});

describe('readDecimal with a declared decimal mark (input.decimal)', () => {
  it.each([
    ['1,500', 1.5],
    ['8,4278', 8.4278],
    ['1.500', 1500],
    ['1.500.000,25', 1500000.25],
    ['5.085.871,0', 5085871],
    ['999.999', 999999],
    ['1500', 1500],
    ['-1.234,5', -1234.5],
    ['+12,5', 12.5],
    [',5', 0.5],
    ['7,', 7],
    ['0,25', 0.25],
    ['1,5e3', 1500],
    ['-4,5E-1', -0.45],
    ['1.500,5e3', 1500500],
  ])('reads %j with "," as %d', (text, expected) => {
    expect(readDecimal(text, ',')).toBe(expected);
  });

  it.each([
    ['1.500', 1.5],
    ['8.4278', 8.4278],
    ['1,500', 1500],
    ['1,500,000.25', 1500000.25],
    ['-1,234.5', -1234.5],
    ['.5', 0.5],
    ['2.5e-2', 0.025],
  ])('reads %j with "." as %d', (text, expected) => {
    expect(readDecimal(text, '.')).toBe(expected);
  });

  it.each([
    // `.` anywhere but between groups of three: not guessed at.
    '8.4278',
    '1.50',
    '1.5000',
    '15.00',
    '0.500',
    '1.500.00',
    '1.5.000',
    '.500',
    '1.500,000,5',
    '1,5,0',
    '1.500.',
    ' 1,5',
    '1 500,5',
    '1,5e',
    'e5',
    '0x1A',
    'Infinity',
    '1,5e400',
    '',
    '-',
    ',',
  ])('refuses %j with ","', (text) => {
    expect(readDecimal(text, ',')).toBeUndefined();
  });

  it.each(['8,4278', '1,50', '0,500', '1,5000.5', '1.500.000'])('refuses %j with "."', (text) => {
    expect(readDecimal(text, '.')).toBeUndefined();
  });

  it('reads as before without a mark: either one as the decimal mark, none grouping', () => {
    expect(readDecimal('1,5')).toBe(1.5);
    expect(readDecimal('1.5')).toBe(1.5);
    expect(readDecimal('1.500.000,25')).toBeUndefined();
  });

  it('finds nothing ambiguous once the mark is declared', () => {
    expect(thousandsAmbiguity('1.500', 'a distance in metres')).toContain(
      'declare the mark with input.decimal',
    );
    expect(thousandsAmbiguity('1.500', 'a distance in metres', ',')).toBeUndefined();
    expect(thousandsAmbiguity('1,500', 'a distance in metres', '.')).toBeUndefined();
  });
});

describe('readLonLat with declared decimal marks', () => {
  it('reads each value with its own mark, numbers as they are', () => {
    expect(readLonLat(' 8,4278 ', '49,01334', { lon: ',', lat: ',' })).toEqual([8.4278, 49.01334]);
    expect(readLonLat('8,4278', '49.01334', { lon: ',' })).toEqual([8.4278, 49.01334]);
    expect(readLonLat(8.4278, 49.01334, { lon: ',', lat: ',' })).toEqual([8.4278, 49.01334]);
  });

  it('refuses a value in the other writing, naming the declared mark', () => {
    expect(readLonLat('8,4278', '49.01334', { lon: ',', lat: ',' })).toEqual({
      code: 'FIELD_INVALID',
      axis: 'lat',
      message:
        'expected a latitude in decimal degrees written with input.decimal "," (`.` only between groups ' +
        'of three digits, as in 1.500.000,25), got `49.01334`',
    });
    expect(readLonLat('8,4278', '49.01334', { lon: '.', lat: '.' })).toEqual({
      code: 'FIELD_INVALID',
      axis: 'lon',
      message:
        'expected a longitude in decimal degrees written with input.decimal "." (`,` only between groups ' +
        'of three digits, as in 1,500,000.25), got `8,4278`',
    });
  });

  it('says nothing of the mark for a value that has none', () => {
    expect(readLonLat('abc', '49,0', { lon: ',', lat: ',' })).toEqual({
      code: 'FIELD_INVALID',
      axis: 'lon',
      message: 'expected a longitude in decimal degrees, got `abc`',
    });
    expect(readLonLat('  ', '49,0', { lon: ',' })).toMatchObject({ code: 'FIELD_MISSING', axis: 'lon' });
  });

  it('refuses degrees that read only as a thousand (11.571 with ","), naming the mark, not a range', () => {
    // Read as the group it is in 1.500.000,25, `11.571` was 11571 and failed as out of range.
    expect(readLonLat('11.571', '48,1374', { lon: ',', lat: ',' })).toEqual({
      code: 'FIELD_INVALID',
      axis: 'lon',
      message:
        'expected a longitude in decimal degrees written with input.decimal "," (as in 48,1374; `.` groups ' +
        'thousands, which degrees never have), got `11.571`',
    });
    expect(readLonLat('11,5134', '48.137', { lon: ',', lat: ',' })).toMatchObject({
      code: 'FIELD_INVALID',
      axis: 'lat',
      message: expect.stringMatching(
        /^expected a latitude in decimal degrees written with input\.decimal ",".*got `48\.137`$/,
      ),
    });
    expect(readLonLat('8,404', '49.5', { lon: '.', lat: '.' })).toMatchObject({
      code: 'FIELD_INVALID',
      axis: 'lon',
      message: expect.stringContaining(
        '(as in 48.1374; `,` groups thousands, which degrees never have), got `8,404`',
      ),
    });
  });
});

import type { LineString, MultiLineString, MultiPoint, Point, Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { pointKey, pointSource, readPoint, readText, resolveMapping } from '../../src/jobs/_fields.js';
import { markNumberTexts } from '../../src/number-texts.js';
import type { Fields, Row } from '../../src/types.js';
import { row } from './_rows.js';

describe('readPoint', () => {
  it('reads conventionally named columns without a mapping', () => {
    expect(readPoint(row({ Longitude: '8.4278', Latitude: '49.01334' }), {})).toEqual([8.4278, 49.01334]);
  });

  it('reads conventionally named columns whose header has spaces around the names (`id, lon, lat`)', () => {
    expect(readPoint(row({ id: '1', ' lon': ' 8.4278', ' lat ': '49.01334' }), {})).toEqual([
      8.4278, 49.01334,
    ]);
  });

  it('names the latitude too when both cells are wrong, and only the longitude when the latitude is right', () => {
    expect(readPoint(row({ lon: 'E 13.4', lat: 'N 52.5' }), {})).toEqual({
      code: 'FIELD_INVALID',
      field: 'lon',
      message:
        'lon: expected a longitude in decimal degrees, got `E 13.4`; lat: expected a latitude in decimal degrees, got `N 52.5`',
    });
    expect(readPoint(row({ lon: '13.4°', lat: '95' }), {})).toMatchObject({
      message:
        'lon: expected a longitude in decimal degrees, got `13.4°`; lat: expected a latitude from -90 to 90, got `95`',
    });
    expect(readPoint(row({ lon: 'E 13.4', lat: '52.5' }), {})).toMatchObject({
      message: 'lon: expected a longitude in decimal degrees, got `E 13.4`',
    });
  });

  it('names the longitude too when both are out of range, not the latitude alone', () => {
    const point = readPoint(row({ lon: '200', lat: '95' }), resolveMapping({}));
    expect(point).toEqual({
      code: 'FIELD_INVALID',
      field: 'lon',
      message:
        'lon: expected a longitude from -180 to 180, got `200`; lat: expected a latitude from -90 to 90, got `95`',
    });
    // Only the latitude wrong: as before.
    expect(readPoint(row({ lon: '113.4', lat: '95' }), {})).toMatchObject({
      field: 'lat',
      message: 'lat: expected a latitude from -90 to 90, got `95`',
    });
  });

  it('reads mapped columns and decimal commas', () => {
    const mapping = { lon: { column: 'x_wgs' }, lat: { column: 'y_wgs' } };
    expect(readPoint(row({ x_wgs: '8,4278', y_wgs: '49,01334' }), mapping)).toEqual([8.4278, 49.01334]);
  });

  it('falls back to a Point geometry', () => {
    expect(readPoint(row({ name: 'a' }, { type: 'Point', coordinates: [10.7442, 50.6583] }), {})).toEqual([
      10.7442, 50.6583,
    ]);
  });

  it("takes a feature's Point over columns only named like coordinates; a mapping still wins", () => {
    const point: Point = { type: 'Point', coordinates: [8.4, 49] };
    // Gauss-Krüger metres in `x`/`y`, as German open data carries them beside the geometry.
    expect(readPoint(row({ x: '3456789.1', y: '5432100.2' }, point), {})).toEqual([8.4, 49]);
    // A stale position in `lon`/`lat`: the feature's own Point is where its output is drawn.
    expect(readPoint(row({ lon: '9', lat: '50' }, point), {})).toEqual([8.4, 49]);
    const mapping = { lon: { column: 'lon' }, lat: { column: 'lat' } };
    expect(readPoint(row({ lon: '9', lat: '50' }, point), mapping)).toEqual([9, 50]);
    expect(readPoint(row({ lon: '9', lat: '50' }, point), {}, { geometry: false })).toEqual([9, 50]);
    expect(readPoint(row({ x: '8.4' }, { type: 'Point', coordinates: [8, 91] }), {})).toEqual({
      code: 'FIELD_INVALID',
      field: 'geometry',
      message: 'geometry: expected a latitude from -90 to 90, got 91 (longitude and latitude swapped?)',
    });
  });

  it("never takes a point an earlier step gave for mapped columns that are empty: the input's own feature only", () => {
    // A later step's row: the input's record, and the point geocoding gave it.
    const input = row({ id: 'B1', mylon: '', mylat: '' });
    const geocoded: Point = { type: 'Point', coordinates: [10.69, 50.61] };
    const later = (source: Row): Row => ({
      ...source,
      geometry: geocoded,
      source,
      added: { geo_lon: 10.69 },
    });
    const mapping = { lon: { column: 'mylon' }, lat: { column: 'mylat' } };
    expect(readPoint(later(input), mapping)).toEqual({
      code: 'FIELD_MISSING',
      field: 'mylon',
      message: 'mylon and mylat: both empty; expected a longitude and a latitude',
    });
    // A feature of the input keeps its own Point; unmapped, the step's point is read (the README's pipeline).
    const feature = row({ mylon: '', mylat: '' }, { type: 'Point', coordinates: [8.4, 49] });
    expect(readPoint(later(feature), mapping)).toEqual([8.4, 49]);
    expect(readPoint(later(input), {})).toEqual([10.69, 50.61]);
  });

  it('says a mapped column the row does not have is missing, not empty', () => {
    const mapping = { lon: { column: 'geo_lon' }, lat: { column: 'geo_lati' } };
    expect(readPoint(row({ geo_lon: '8.4', geo_lat: '49' }), mapping)).toEqual({
      code: 'FIELD_MISSING',
      field: 'geo_lati',
      message: 'geo_lati: missing; expected a latitude column (lat) beside geo_lon',
    });
  });

  it('names the column of a missing coordinate', () => {
    expect(readPoint(row({ lon: '8.4', lat: '' }), {})).toMatchObject({
      code: 'FIELD_MISSING',
      field: 'lat',
    });
  });

  it('says columns that are there are empty, and columns that are not there are missing', () => {
    const mapping = { lon: { column: 'x' }, lat: { column: 'y' } };
    expect(readPoint(row({ x: '', y: ' ' }), mapping)).toEqual({
      code: 'FIELD_MISSING',
      field: 'x',
      message: 'x and y: both empty; expected a longitude and a latitude',
    });
    expect(readPoint(row({ name: 'a' }), mapping, { geometry: false })).toEqual({
      code: 'FIELD_MISSING',
      field: 'x',
      message: 'x and y: missing; expected a longitude column (lon) and a latitude column (lat)',
    });
  });

  it('reads a MultiPoint of one point as that point, over default columns as a Point is', () => {
    const one: MultiPoint = { type: 'MultiPoint', coordinates: [[8.4, 49]] };
    expect(readPoint(row({ name: 'a' }, one), {})).toEqual([8.4, 49]);
    expect(readPoint(row({ x: '3456789', y: '5432100' }, one), {})).toEqual([8.4, 49]);
    expect(pointSource(row({ name: 'a' }, one), {})).toBe('geometry');
  });

  it('refuses a MultiPoint of several points as such, naming the geometry and that one point is expected', () => {
    const two: MultiPoint = {
      type: 'MultiPoint',
      coordinates: [
        [8.4, 49],
        [8.5, 49.1],
      ],
    };
    expect(readPoint(row({ name: 'a' }, two), {})).toEqual({
      code: 'FIELD_INVALID',
      field: 'geometry',
      message:
        'geometry: a MultiPoint of 2 points; expected a single point (a Point, or a MultiPoint of one point), or lon and lat mapped to columns',
    });
    // Mapped columns are read before the geometry, as for any other feature.
    expect(readPoint(row({ a: '9', b: '50' }, two), { lon: { column: 'a' }, lat: { column: 'b' } })).toEqual([
      9, 50,
    ]);
  });

  it('says what geometry a feature has when it is not the Point wanted', () => {
    const missing =
      'lon and lat: missing; expected a longitude column (lon) and a latitude column (lat), or a Point geometry';
    const line: LineString = {
      type: 'LineString',
      coordinates: [
        [8.4, 49],
        [8.5, 49.1],
      ],
    };
    expect(readPoint(row({ name: 'a' }, line), {})).toEqual({
      code: 'FIELD_MISSING',
      field: 'lon',
      message: `${missing}; this feature's geometry is a LineString`,
    });
    const polygon: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [8, 49],
          [9, 49],
          [9, 50],
          [8, 49],
        ],
      ],
    };
    expect(readPoint(row({ name: 'a' }, polygon), {})).toMatchObject({
      message: `${missing}; this feature's geometry is a Polygon`,
    });
    const lines: MultiLineString = { type: 'MultiLineString', coordinates: [line.coordinates] };
    expect(readPoint(row({ name: 'a' }, lines), {})).toMatchObject({
      message: `${missing}; this feature's geometry is a MultiLineString`,
    });
    expect(readPoint(row({ name: 'a' }, null), {})).toEqual({
      code: 'FIELD_MISSING',
      field: 'lon',
      message: `${missing}; this feature has no geometry`,
    });
    // A CSV row has no geometry to speak of: it is not told of one.
    expect(readPoint(row({ name: 'a' }), {})).toMatchObject({
      message: 'lon and lat: missing; expected a longitude column (lon) and a latitude column (lat)',
    });
    expect(readPoint(row({ lon: '', lat: '' }, line), {})).toEqual({
      code: 'FIELD_MISSING',
      field: 'lon',
      message:
        "lon and lat: both empty; expected a longitude and a latitude, or a Point geometry; this feature's geometry is a LineString",
    });
  });

  it('names the column and the value of a non-number', () => {
    expect(readPoint(row({ lon: '8.4', lat: 'north' }), {})).toEqual({
      code: 'FIELD_INVALID',
      field: 'lat',
      message: 'lat: expected a latitude in decimal degrees, got `north`',
    });
  });

  it('suspects swapped columns when the latitude is out of range but would fit as a longitude', () => {
    const issue = readPoint(row({ lon: '49.0', lat: '120.5' }), {});
    expect(issue).toMatchObject({ code: 'FIELD_INVALID', field: 'lat' });
    expect((issue as { message: string }).message).toContain('swapped');
  });

  it('names the geometry when a Point geometry is out of range', () => {
    expect(readPoint(row({}, { type: 'Point', coordinates: [8, 91] }), {})).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'geometry',
    });
  });

  it('names the mapped key of a constant and fails a row with neither columns nor geometry', () => {
    expect(readPoint(row({ y: '49' }), { lon: { value: 'x' } })).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'lon',
    });
    expect(readPoint(row({ name: 'a' }), {})).toMatchObject({ code: 'FIELD_MISSING', field: 'lon' });
  });

  it('names both mapped keys a record lacks, not the first alone', () => {
    const mapping = { lon: { column: 'geo_lon' }, lat: { column: 'geo_lat' } };
    expect(readPoint(row({ id: '1' }), mapping)).toEqual({
      code: 'FIELD_MISSING',
      field: 'geo_lon',
      message: 'geo_lon and geo_lat: missing; expected a longitude column (lon) and a latitude column (lat)',
    });
  });

  it('names the column that is not there, not "both empty", when the other is there and empty', () => {
    // `id,lat,latitude`: no longitude column at all, and lat is empty in this row.
    expect(readPoint(row({ id: '1', lat: '', latitude: '49.0' }), {})).toEqual({
      code: 'FIELD_MISSING',
      field: 'lon',
      message: 'lon: missing; expected a longitude column (lon) beside lat, which is empty here',
    });
    expect(readPoint(row({ lng: '' }), {})).toMatchObject({
      field: 'lat',
      message: expect.stringMatching(
        /^lat: missing; expected a latitude column \(lat\) beside lng, which is empty here/,
      ),
    });
  });

  it('says a column the row does not have is missing, also when the other one is filled', () => {
    // `id,lat,latitude` and `id,longitude`: "got an empty value" named a column the file lacks.
    expect(readPoint(row({ id: '2', lat: '48', latitude: '49' }), {})).toEqual({
      code: 'FIELD_MISSING',
      field: 'lon',
      message: 'lon: missing; expected a longitude column (lon) beside lat',
    });
    expect(readPoint(row({ id: '2', longitude: '8.4' }), {})).toEqual({
      code: 'FIELD_MISSING',
      field: 'lat',
      message: 'lat: missing; expected a latitude column (lat) beside longitude',
    });
  });

  it('rejects a longitude out of range', () => {
    expect(readPoint(row({ lon: '181', lat: '49' }), {})).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'lon',
    });
  });
});

describe("readPoint's default columns in a pipeline's later step", () => {
  /** A row as a later step sees it: the input's fields, then the columns the earlier steps added. */
  const stepRow = (input: Fields, added: Fields): Row => ({ ...row({ ...input, ...added }), added });

  it('takes lon and lat from the one source that has both, never one from each', () => {
    // `Lat`/`Lng` in the input, `lon`/`lat` from a geocode step with an empty prefix: each default
    // column alone would be lon (the step's) with Lat (the input's), a point in no one's file.
    const geocoded = stepRow({ Lat: '52.52', Lng: '13.40' }, { lon: '8.3979', lat: '49.0083' });
    expect(readPoint(geocoded, {}, { geometry: false })).toEqual([8.3979, 49.0083]);
    // The step added only a part of a pair: the input's pair is read, whole.
    expect(readPoint(stepRow({ Lat: '52.52', Lng: '13.40' }, { lon: '8.3979' }), {})).toEqual([13.4, 52.52]);
    // A mapping is read as written, wherever its columns come from.
    const mapping = { lon: { column: 'Lng' }, lat: { column: 'lat' } };
    expect(readPoint(geocoded, mapping)).toEqual([13.4, 49.0083]);
    // Outside a pipeline nothing changes.
    expect(readPoint(row({ Lat: '52.52', lon: '8.3979' }), {})).toEqual([8.3979, 52.52]);
  });

  it('fails a row whose only pair is one column from the input and one from a step, asking for a mapping', () => {
    expect(readPoint(stepRow({ Lat: '52.52' }, { lon: '8.3979' }), {}, { geometry: false })).toEqual({
      code: 'FIELD_MISSING',
      field: 'Lat',
      message:
        "lon and Lat: lon is a column an earlier step added, Lat the input's; expected a longitude and a latitude from one of them: map lon and lat in this step's mapping",
    });
    expect(
      readPoint(stepRow({ x: '8.3979' }, { lat: '49.0083' }), {}, { lon: 'originLon', lat: 'originLat' }),
    ).toMatchObject({
      code: 'FIELD_MISSING',
      field: 'x',
      message: expect.stringMatching(
        /^x and lat: lat is a column an earlier step added, x the input's; .*: map originLon and originLat in this step's mapping$/,
      ),
    });
  });
});

describe('field helpers', () => {
  it('treats blank cells as absent and constants as given', () => {
    const mapping = { zip: { column: 'plz' }, country: { value: 'DE' } };
    expect(readText(row({ plz: '   ' }), mapping, 'zip')).toBeUndefined();
    expect(readText(row({ plz: ' 76131 ' }), mapping, 'zip')).toBe('76131');
    expect(readText(row({}), mapping, 'country')).toBe('DE');
  });

  it('keys points to 1e-6 degrees so near-identical points share a request', () => {
    expect(pointKey([8.42780001, 49.0133400001])).toBe(pointKey([8.4278, 49.01334]));
    expect(pointKey([8.427801, 49.01334])).not.toBe(pointKey([8.4278, 49.01334]));
  });
});

describe('readPoint with input.decimal', () => {
  const comma = resolveMapping({}, ',');
  const point = resolveMapping({ lon: 'x_wgs', lat: 'y_wgs' }, '.');

  it("reads the input's cells with the declared mark, mapped or by their conventional names", () => {
    expect(readPoint(row({ lon: '8,4278', lat: '49,01334' }), comma)).toEqual([8.4278, 49.01334]);
    expect(readPoint(row({ x_wgs: '8.4278', y_wgs: '49.01334' }), point)).toEqual([8.4278, 49.01334]);
  });

  it('fails the row naming the column, the value and the declared mark', () => {
    expect(readPoint(row({ lon: '8,4278', lat: '49.01334' }), comma)).toEqual({
      code: 'FIELD_INVALID',
      field: 'lat',
      message:
        'lat: expected a latitude in decimal degrees written with input.decimal "," (`.` only between ' +
        'groups of three digits, as in 1.500.000,25), got `49.01334`',
    });
    expect(readPoint(row({ x_wgs: '8,4278', y_wgs: '49.01334' }), point)).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'x_wgs',
      message: expect.stringContaining('written with input.decimal "."'),
    });
  });

  it('reads the columns an earlier step added as geobatch writes them, whatever the input declares', () => {
    const later = (input: Fields, added: Fields): Row => ({ ...row({ ...input, ...added }), added });
    // A step's text with a decimal point: read as written, though the input's mark is ",".
    expect(
      readPoint(
        later({ name: 'a' }, { geo_lon: '8.4278', geo_lat: 49.01334 }),
        resolveMapping({ lon: 'geo_lon', lat: 'geo_lat' }, ','),
      ),
    ).toEqual([8.4278, 49.01334]);
    // Unmapped: the step's default pair, shadowing the input's own lon/lat.
    expect(readPoint(later({ lon: '8,5', lat: '49,1' }, { lon: '8.4278', lat: '49.01334' }), comma)).toEqual([
      8.4278, 49.01334,
    ]);
    // The input's cells next to them keep the input's mark.
    const mixed = resolveMapping({ lon: 'geo_lon', lat: 'y' }, ',');
    expect(readPoint(later({ y: '49,01334' }, { geo_lon: '8.4278' }), mixed)).toEqual([8.4278, 49.01334]);
  });

  it('reads a JSON number kept as its text (`49.01330`) as the number it is', () => {
    const fields: Fields = { lon: '8,4278', lat: '49.01330' };
    markNumberTexts(fields, ['lat']);
    expect(readPoint(row(fields), comma)).toEqual([8.4278, 49.0133]);
  });

  it('reads a constant of the job file as before, with either mark', () => {
    const constants = resolveMapping({ lon: { value: '8.4278' }, lat: { value: '49,01334' } }, ',');
    expect(readPoint(row({}), constants)).toEqual([8.4278, 49.01334]);
  });
});

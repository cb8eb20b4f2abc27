import { describe, expect, it } from 'vitest';
import { columnName } from '../../src/jobs/_column-name.js';
import { readPoint } from '../../src/jobs/_fields.js';
import { createGeocodeJob } from '../../src/jobs/geocode.js';
import { row } from './_rows.js';

describe('columnName', () => {
  it('shows a plain identifier as it is', () => {
    for (const name of ['plz', 'geo_lon', 'Straße', '_x1', 'Ort']) expect(columnName(name)).toBe(name);
  });

  it('quotes a name with a space, a sign or an unseen character, as messages must tell it from the sentence', () => {
    expect(columnName('Post Code')).toBe('"Post Code"');
    expect(columnName('geo.lon')).toBe('"geo.lon"');
    expect(columnName('lon:')).toBe('"lon:"');
    expect(columnName('1lat')).toBe('"1lat"');
    expect(columnName('')).toBe('""');
    expect(columnName('\u00a0lon')).toBe('"\\u00a0lon"');
    expect(columnName('La\u0308nge')).toBe('"La\\u0308nge"');
  });
});

describe('row messages name columns quoted where they are not plain', () => {
  it("quotes geocode's unfilled columns", () => {
    const mapping = { zip: { column: 'Post Code' }, city: { column: 'Ort' } };
    const job = createGeocodeJob({ geocode: async () => ({ match: null }) } as never, { mapping });
    expect(job.plan(row({ 'Post Code': '', Ort: '' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'Post Code',
      message: '"Post Code" and Ort: both empty; expected a postcode or a city (or a single-slot address)',
    });
    expect(job.plan(row({ 'Post Code': '123', Ort: 'Suhl' }))).toEqual({
      code: 'FIELD_INVALID',
      field: 'Post Code',
      message: '"Post Code": expected a 5-digit German postcode, got `123`',
    });
  });

  it("quotes a point's columns", () => {
    const mapping = { lon: { column: 'X Coord' }, lat: { column: 'Y Coord' } };
    expect(readPoint(row({ 'X Coord': '', 'Y Coord': '' }), mapping)).toEqual({
      code: 'FIELD_MISSING',
      field: 'X Coord',
      message: '"X Coord" and "Y Coord": both empty; expected a longitude and a latitude',
    });
    expect(readPoint(row({ 'X Coord': '200', 'Y Coord': '50' }), mapping)).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'X Coord',
      message: expect.stringMatching(/^"X Coord": expected a longitude/),
    });
  });
});

import { describe, expect, it } from 'vitest';
import { prefixedCache, prefixedColumns } from '../../src/jobs/_prefixed.js';

describe('prefixed output columns', () => {
  it('names the columns once, in the order of the suffixes, and fills them by suffix', () => {
    const columns = prefixedColumns('geo_', ['lon', 'lat', 'zip']);
    expect(columns.names).toEqual(['geo_lon', 'geo_lat', 'geo_zip']);
    const fields = columns.fields({ zip: '01067', lat: 51.05, lon: 13.74 });
    expect(Object.entries(fields)).toEqual([
      ['geo_lon', 13.74],
      ['geo_lat', 51.05],
      ['geo_zip', '01067'],
    ]);
  });

  it('keeps null and false as values, and an empty prefix leaves the names as they are', () => {
    const columns = prefixedColumns('', ['elevation_m', 'elevation_nodata']);
    expect(columns.fields({ elevation_m: null, elevation_nodata: true })).toEqual({
      elevation_m: null,
      elevation_nodata: true,
    });
    expect(columns.fields({ elevation_m: 0, elevation_nodata: false })).toEqual({
      elevation_m: 0,
      elevation_nodata: false,
    });
  });

  it('makes the columns of a prefix once and keeps prefixes apart', () => {
    const of = prefixedCache(['a', 'b']);
    expect(of('x_')).toBe(of('x_'));
    expect(of('y_').names).toEqual(['y_a', 'y_b']);
    expect(of('x_').names).toEqual(['x_a', 'x_b']);
  });
});

import { describe, expect, it } from 'vitest';
import { axisOfName } from '../../src/jobs/_axis-names.js';

describe('axisOfName', () => {
  it.each([
    ['lat', 'lat'],
    ['Breite', 'lat'],
    ['geo_lat', 'lat'],
    ['from_y', 'lat'],
    ['Latitude (WGS84)', 'lat'],
    ['lng', 'lon'],
    ['Geo-Länge', 'lon'],
    ['toLon', 'lon'],
    ['x', 'lon'],
  ])('says %s holds the %s', (column, axis) => {
    expect(axisOfName(column)).toBe(axis);
  });

  it('says nothing of a name that names neither half, or both', () => {
    expect(axisOfName('coord')).toBeUndefined();
    expect(axisOfName('lat_lon')).toBeUndefined();
    expect(axisOfName('')).toBeUndefined();
  });
});

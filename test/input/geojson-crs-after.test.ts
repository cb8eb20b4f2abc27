/** A `crs` member written after the features: found once they are read (crsAfterFeatures). */
import { describe, expect, it } from 'vitest';
import { crsAfterFeatures } from '../../src/input/_geojson-crs.js';

const FEATURES =
  '"features":[{"type":"Feature","properties":{"a":1},"geometry":{"type":"Point","coordinates":[500000,5800000]}}]';
const crs = (name: string) => `"crs":{"type":"name","properties":{"name":"${name}"}}`;

describe('crsAfterFeatures', () => {
  it('names a projected system after the features, whatever members follow it', () => {
    for (const tail of [
      `${FEATURES},${crs('EPSG:25832')}}`,
      `${FEATURES},${crs('EPSG:25832')},"bbox":[1,2,3,4]}`,
      `${FEATURES},"bbox":[1,2,3,4],${crs('EPSG:25832')}}`,
      `]}],"crs":{"type":"EPSG","properties":{"code":25832}}}`,
    ])
      expect(crsAfterFeatures('in.geojson', tail)?.crs, tail).toBe('EPSG:25832');
  });

  it('says nothing of WGS84 or CRS84, nor of a file without crs', () => {
    expect(
      crsAfterFeatures('in.geojson', `${FEATURES},${crs('urn:ogc:def:crs:OGC:1.3:CRS84')}}`),
    ).toBeUndefined();
    expect(crsAfterFeatures('in.geojson', `${FEATURES},${crs('EPSG:4326')}}`)).toBeUndefined();
    expect(crsAfterFeatures('in.geojson', `${FEATURES}}`)).toBeUndefined();
  });
});

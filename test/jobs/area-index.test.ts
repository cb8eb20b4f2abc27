import type { Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import { AreaIndex } from '../../src/jobs/_area-index.js';
import type { AreaFeature } from '../../src/jobs/_ports.js';

function square(key: string, x0: number, y0: number, size = 1): AreaFeature {
  const geometry: Polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [x0, y0],
        [x0 + size, y0],
        [x0 + size, y0 + size],
        [x0, y0 + size],
        [x0, y0],
      ],
    ],
  };
  return { key, name: `area ${key}`, level: 6, geometry, isoCountry: 'DE', properties: {} };
}

describe('AreaIndex', () => {
  it('answers a point inside a known area', () => {
    const index = new AreaIndex();
    index.add([square('08212', 8, 49), square('08215', 9, 49)]);
    expect(index.covering([8.5, 49.5])?.key).toBe('08212');
    expect(index.covering([9.5, 49.5])?.key).toBe('08215');
    expect(index.covering([7.5, 49.5])).toBeUndefined();
  });

  it('counts a point on a shared border as covered, and picks the lowest key', () => {
    const index = new AreaIndex();
    index.add([square('B', 9, 49), square('A', 8, 49)]);
    expect(index.covering([9, 49.5])?.key).toBe('A');
    // On the outer edge only one area covers it.
    expect(index.covering([10, 49.5])?.key).toBe('B');
  });

  it('answers locally only points strictly inside a known area, never a border an unseen area may share', () => {
    const index = new AreaIndex();
    index.add([square('B', 9, 49)]);
    expect(index.inside([9.5, 49.5])?.key).toBe('B');
    // 'A' (lower key) may cover this border point too: only the service can say which wins.
    expect(index.inside([9, 49.5])).toBeUndefined();
    expect(index.inside([9, 49])).toBeUndefined();
    expect(index.covering([9, 49.5])?.key).toBe('B');
  });

  it('keeps one copy of an area received twice and finds areas added later', () => {
    const index = new AreaIndex();
    index.add([square('A', 8, 49)]);
    expect(index.covering([12.5, 49.5])).toBeUndefined();
    index.add([square('A', 8, 49), square('C', 12, 49)]);
    expect(index.size).toBe(2);
    expect(index.covering([12.5, 49.5])?.key).toBe('C');
  });
});

import { describe, expect, it } from 'vitest';
import { haversine } from '../../../src/emulator/lib/_geo.js';
import { PointIndex } from '../../../src/emulator/lib/_point-index.js';
import { mulberry32 } from '../../../src/emulator/lib/_rng.js';

describe('PointIndex', () => {
  const random = mulberry32(7);
  const points = Array.from({ length: 3000 }, () => ({ lon: 6 + random() * 9, lat: 47.5 + random() * 7 }));
  const index = new PointIndex(points);

  function bruteForce(lon: number, lat: number, k: number, max: number): number[] {
    return points
      .map((p) => haversine(lon, lat, p.lon, p.lat))
      .filter((d) => d <= max)
      .sort((a, b) => a - b)
      .slice(0, k);
  }

  /** Same count as brute force, great-circle distances, each no farther than brute force's (0.1% slack). */
  function expectNearest(lon: number, lat: number, k: number, max = Number.POSITIVE_INFINITY) {
    const found = index.nearest(lon, lat, k, max);
    const expected = bruteForce(lon, lat, k, max);
    expect(found).toHaveLength(expected.length);
    found.forEach((n, i) => {
      const p = points[n.index] as { lon: number; lat: number };
      expect(n.distance).toBe(haversine(lon, lat, p.lon, p.lat));
      expect(n.distance).toBeLessThanOrEqual((expected[i] as number) * 1.001 + 1e-6);
      expect(n.distance).toBeLessThanOrEqual(max);
    });
  }

  it('finds the nearest neighbours a brute-force search finds, inside and around the data', () => {
    for (let q = 0; q < 200; q++) expectNearest(5 + random() * 11, 47 + random() * 8, 4);
  });

  it('honours the maximum distance', () => {
    for (let q = 0; q < 100; q++) expectNearest(6 + random() * 9, 47.5 + random() * 7, 10, 8000);
    expect(index.nearest(30, 60, 1, 10_000)).toEqual([]);
  });

  it('finds points in a box', () => {
    const inBox = index.within(8, 49, 9, 50).sort((a, b) => a - b);
    const expected = points.flatMap((p, i) =>
      p.lon >= 8 && p.lon <= 9 && p.lat >= 49 && p.lat <= 50 ? [i] : [],
    );
    expect(inBox).toEqual(expected);
  });
});

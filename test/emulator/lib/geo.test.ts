import { describe, expect, it } from 'vitest';
import { destination, haversine, radiusBox } from '../../../src/emulator/lib/_geo.js';

describe('spherical geometry', () => {
  it('measures Karlsruhe to Berlin at about 525 km', () => {
    expect(haversine(8.4037, 49.0069, 13.405, 52.52) / 1000).toBeCloseTo(525, -1);
  });

  it('walks a distance and back', () => {
    const [lon, lat] = destination(8.4, 49, 10_000, 45);
    expect(haversine(8.4, 49, lon, lat)).toBeCloseTo(10_000, 3);
  });

  it('bounds every point within a radius', () => {
    const [w, s, e, n] = radiusBox(8.4, 49, 50_000);
    for (let b = 0; b < 360; b += 15) {
      const [lon, lat] = destination(8.4, 49, 49_999, b);
      expect(lon >= w && lon <= e && lat >= s && lat <= n).toBe(true);
    }
  });
});

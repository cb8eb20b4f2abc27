import type { Geometry, MultiPolygon, Polygon, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { countVertices, fitGeometry } from '../../src/report/_fit.js';

/** A closed ring of `n` vertices around (lon, lat), `r` degrees wide. */
function circle(n: number, lon = 10, lat = 51, r = 0.5): Position[] {
  const ring = Array.from({ length: n }, (_, i): Position => {
    const a = (2 * Math.PI * i) / n;
    // A wobble keeps Douglas-Peucker from finding a trivially straight shape.
    const w = r * (1 + 0.05 * Math.sin(17 * a));
    return [lon + w * Math.cos(a), lat + w * Math.sin(a)];
  });
  return [...ring, ring[0] as Position];
}

function ringsOf(geometry: Geometry): Position[][] {
  if (geometry.type === 'Polygon') return geometry.coordinates;
  if (geometry.type === 'MultiPolygon') return geometry.coordinates.flat();
  return [];
}

describe('fitGeometry', () => {
  it('rounds coordinates to 1e-5 degrees and leaves a small geometry otherwise alone', () => {
    expect(fitGeometry({ type: 'Point', coordinates: [8.123456789, 49.987654321] }, 10)).toEqual({
      type: 'Point',
      coordinates: [8.12346, 49.98765],
    });
    const line: Geometry = {
      type: 'LineString',
      coordinates: [
        [1, 2],
        [3, 4],
        [5, 7],
      ],
    };
    expect(fitGeometry(line, 10)).toEqual(line);
  });

  it('simplifies a 10,000-vertex polygon under the budget, still a closed polygon of the same extent', () => {
    const polygon: Polygon = { type: 'Polygon', coordinates: [circle(10_000)] };
    const fitted = fitGeometry(polygon, 100);
    expect(fitted.type).toBe('Polygon');
    expect(countVertices(fitted)).toBeLessThanOrEqual(100);
    expect(countVertices(fitted)).toBeGreaterThan(20);
    const ring = (fitted as Polygon).coordinates[0] ?? [];
    expect(ring[0]).toEqual(ring.at(-1));
    const lons = ring.map((p) => p[0] ?? 0);
    expect(Math.min(...lons)).toBeLessThan(9.6);
    expect(Math.max(...lons)).toBeGreaterThan(10.4);
  });

  it('drops islands and holes too small to see rather than exceed the budget', () => {
    const islands: MultiPolygon = {
      type: 'MultiPolygon',
      coordinates: [
        [circle(2000, 10, 51, 1), circle(40, 10, 51, 0.01)],
        ...Array.from({ length: 1000 }, (_, i) => [circle(12, 12 + i * 0.001, 53, 0.0004)]),
      ],
    };
    expect(countVertices(islands)).toBeGreaterThan(10_000);
    const fitted = fitGeometry(islands, 60);
    expect(countVertices(fitted)).toBeLessThanOrEqual(60);
    // The large part survives as a ring around (10, 51), hole and specks gone.
    const rings = ringsOf(fitted);
    expect(rings.length).toBeGreaterThanOrEqual(1);
    expect(rings.some((ring) => ring.some(([lon = 0]) => lon < 9.2))).toBe(true);
  });

  it('thins a MultiPoint evenly, keeping its first and last member', () => {
    const points: Position[] = Array.from({ length: 1000 }, (_, i) => [i / 100, 50]);
    const fitted = fitGeometry({ type: 'MultiPoint', coordinates: points }, 11);
    // Every 99.9th of 1000: indices 0, 100, ..., 500, 599, ..., 999.
    const lons = [0, 1, 2, 3, 4, 5, 5.99, 6.99, 7.99, 8.99, 9.99];
    expect(fitted).toEqual({ type: 'MultiPoint', coordinates: lons.map((lon) => [lon, 50]) });
  });

  it('shares the budget among the members of a GeometryCollection', () => {
    const fitted = fitGeometry(
      {
        type: 'GeometryCollection',
        geometries: [
          { type: 'Polygon', coordinates: [circle(3000)] },
          { type: 'LineString', coordinates: circle(3000, 12, 50) },
        ],
      },
      80,
    );
    expect(fitted.type).toBe('GeometryCollection');
    expect(countVertices(fitted)).toBeLessThanOrEqual(80);
  });
});

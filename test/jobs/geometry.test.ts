import type { Polygon, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { areaKm2, lonStep, pathAfter, pathLength, toWkt } from '../../src/jobs/_geometry.js';
import { rewind } from '../../src/jobs/_polygons.js';

/** Twice the planar signed area: > 0 counter-clockwise. */
function signed(ring: readonly Position[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1 = 0, y1 = 0] = ring[i] as Position;
    const [x2 = 0, y2 = 0] = ring[i + 1] as Position;
    sum += x1 * y2 - x2 * y1;
  }
  return sum;
}

const square = (x: number, y: number, size: number, clockwise: boolean): Position[] => {
  const ring = [
    [x, y],
    [x + size, y],
    [x + size, y + size],
    [x, y + size],
    [x, y],
  ];
  return clockwise ? ring.reverse() : ring;
};

describe('rewind', () => {
  it('turns exterior rings counter-clockwise and holes clockwise, whichever way they came', () => {
    const polygon: Polygon = {
      type: 'Polygon',
      coordinates: [square(0, 0, 4, true), square(1, 1, 1, false)],
    };
    const [outer, hole] = rewind(polygon).coordinates as [Position[], Position[]];
    expect(signed(outer)).toBeGreaterThan(0);
    expect(signed(hole)).toBeLessThan(0);
    // Same positions, only the direction changed; the ring stays closed.
    expect(new Set(outer.map(String))).toEqual(new Set(square(0, 0, 4, false).map(String)));
    expect(outer[0]).toEqual(outer[outer.length - 1]);
  });

  it('leaves rings that are already right as they are, in multipolygons too', () => {
    const good = [square(0, 0, 1, false), square(0.2, 0.2, 0.1, true)];
    const turned = rewind({ type: 'MultiPolygon', coordinates: [good, [square(5, 5, 1, true)]] });
    expect(turned.coordinates[0]).toEqual(good);
    expect(signed(turned.coordinates[1]?.[0] ?? [])).toBeGreaterThan(0);
  });
});

describe('areaKm2', () => {
  it('measures a one-degree cell at the equator as the sphere does, and subtracts holes', () => {
    // On a sphere of radius R, the cell between two meridians and two parallels has R² Δλ (sin φ2 - sin φ1).
    const exact = (6378137 ** 2 * (Math.PI / 180) * Math.sin(Math.PI / 180)) / 1e6;
    expect(areaKm2({ type: 'Polygon', coordinates: [square(0, 0, 1, true)] })).toBeCloseTo(exact, 3);
    const withHole = areaKm2({
      type: 'Polygon',
      coordinates: [square(0, 0, 1, false), square(0, 0, 0.5, true)],
    });
    expect(withHole).toBeLessThan(exact * 0.76);
    expect(withHole).toBeGreaterThan(exact * 0.74);
  });

  /** A circle of `radius` degrees of latitude around (lon, lat), `n` positions, closed. */
  const circle = (lon: number, lat: number, radius: number, n = 50): Position[] => {
    const ring: Position[] = [];
    for (let i = 0; i <= n; i++) {
      const angle = (2 * Math.PI * (i % n)) / n;
      const x = lon + (radius * Math.cos(angle)) / Math.cos((lat * Math.PI) / 180);
      // Longitudes as the service writes them: within -180..180.
      ring.push([((((x + 180) % 360) + 360) % 360) - 180, lat + radius * Math.sin(angle)]);
    }
    return ring;
  };

  it('measures a ring across the antimeridian as the same ring anywhere else, either way round', () => {
    const here = areaKm2({ type: 'Polygon', coordinates: [circle(8.4, -16.5, 0.1)] });
    const across = { type: 'Polygon', coordinates: [circle(179.99, -16.5, 0.1)] } as Polygon;
    // The ring does cross it: positions on both sides.
    expect(across.coordinates[0]?.some((p) => (p[0] as number) < -179)).toBe(true);
    expect(areaKm2(across)).toBeCloseTo(here, 6);
    expect(areaKm2(rewind(across))).toBeCloseTo(here, 6);
    expect(here).toBeGreaterThan(100);
  });

  it('measures a ring around a pole as the cap it encloses, not the rest of the hemisphere', () => {
    // A parallel's cap north of latitude φ has the area 2πR²(1 - sin φ).
    const ring: Position[] = Array.from({ length: 361 }, (_, i) => [((i % 360) - 180) as number, 89.9]);
    const cap = (2 * Math.PI * 6378137 ** 2 * (1 - Math.sin((89.9 * Math.PI) / 180))) / 1e6;
    expect(areaKm2({ type: 'Polygon', coordinates: [ring] })).toBeCloseTo(cap, 1);
    expect(areaKm2({ type: 'Polygon', coordinates: [[...ring].reverse()] })).toBeCloseTo(cap, 1);
    const south = ring.map(([x, y]) => [x as number, -(y as number)]);
    expect(areaKm2({ type: 'Polygon', coordinates: [south] })).toBeCloseTo(cap, 1);
  });
});

describe('lonStep', () => {
  it('goes the short way round the antimeridian', () => {
    expect(lonStep(179.9, -179.9)).toBeCloseTo(0.2, 9);
    expect(lonStep(-179.9, 179.9)).toBeCloseTo(-0.2, 9);
    expect(lonStep(8, 9)).toBe(1);
  });
});

describe('rewind across the antimeridian', () => {
  it('winds a ring by its shape, not by the 360° jump in its longitudes', () => {
    const clockwise: Position[] = [
      [179.5, -16],
      [-179.5, -16],
      [-179.5, -17],
      [179.5, -17],
      [179.5, -16],
    ];
    const [outer] = rewind({ type: 'Polygon', coordinates: [clockwise] }).coordinates as [Position[]];
    expect(outer).toEqual([...clockwise].reverse());
    const [kept] = rewind({ type: 'Polygon', coordinates: [outer] }).coordinates as [Position[]];
    expect(kept).toEqual(outer);
  });
});

describe('pathAfter', () => {
  const path = [
    [8, 49],
    [8.01, 49],
    [8.02, 49],
    [8.03, 49],
  ];

  it('cuts a line at the point nearest to a given one and keeps what follows', () => {
    const rest = pathAfter(path, [8.015, 49.0001]);
    expect(rest[0]?.[0]).toBeCloseTo(8.015, 9);
    expect(rest[0]?.[1]).toBeCloseTo(49, 9);
    expect(rest.slice(1)).toEqual([
      [8.02, 49],
      [8.03, 49],
    ]);
  });

  it('starts at the vertex itself when the point is on one, without repeating it', () => {
    expect(pathAfter(path, [8.02, 49])).toEqual([
      [8.02, 49],
      [8.03, 49],
    ]);
  });

  it('cuts at the first pass of a line that comes back over the same place', () => {
    const loop = [
      [8, 49],
      [8.01, 49],
      [8.01, 49.01],
      [8, 49.01],
      [8, 49],
      [8.01, 49],
    ];
    expect(pathAfter(loop, [8.005, 49])).toHaveLength(6);
  });

  it('measures a path in metres', () => {
    // 0.01° of longitude at 49°N is about 729.6 m.
    expect(pathLength(path)).toBeCloseTo(3 * 729.6, -1);
  });
});

describe('toWkt', () => {
  it('writes each geometry type as OGC WKT', () => {
    expect(toWkt({ type: 'Point', coordinates: [8.4, 49] })).toBe('POINT (8.4 49)');
    expect(
      toWkt({
        type: 'LineString',
        coordinates: [
          [8, 49],
          [9, 50],
        ],
      }),
    ).toBe('LINESTRING (8 49, 9 50)');
    expect(toWkt({ type: 'Polygon', coordinates: [square(0, 0, 1, false)] })).toBe(
      'POLYGON ((0 0, 1 0, 1 1, 0 1, 0 0))',
    );
    expect(toWkt({ type: 'MultiPolygon', coordinates: [[square(0, 0, 1, false)]] })).toBe(
      'MULTIPOLYGON (((0 0, 1 0, 1 1, 0 1, 0 0)))',
    );
    expect(toWkt(null)).toBeNull();
  });
});

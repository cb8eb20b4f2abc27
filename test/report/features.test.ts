import type { Geometry, Polygon, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { countVertices } from '../../src/report/_fit.js';
import { createFeatureSample } from '../../src/report/features.js';

const point = (i: number) => ({
  type: 'Point' as const,
  coordinates: [6 + (i % 900) / 100, 48 + (i % 600) / 100],
});

function square(i: number, n: number): Polygon {
  // A polygon of n vertices on a wobbly circle, so that simplifying it has work to do.
  const ring: Position[] = Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * k) / n;
    const r = 0.05 * (1 + 0.1 * Math.sin(13 * a));
    return [7 + (i % 50) * 0.1 + r * Math.cos(a), 48 + Math.floor(i / 50) * 0.1 + r * Math.sin(a)];
  });
  return { type: 'Polygon', coordinates: [[...ring, ring[0] as Position]] };
}

describe('createFeatureSample', () => {
  it('keeps every geometry of a small output and counts records without one', () => {
    const sample = createFeatureSample();
    for (let row = 1; row <= 10; row++) sample.add(point(row), 'ok', row);
    sample.add(null, 'failed', 11, 'NO_MATCH');
    sample.add(undefined, 'ok', 12);
    sample.add(point(13), 'failed', 13, 'OUTSIDE_COVERAGE');
    const result = sample.result();
    expect(result.features.map((f) => [f.row, f.status, f.code])).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [i + 1, 'ok', null]),
      [13, 'failed', 'OUTSIDE_COVERAGE'],
    ]);
    expect(result.withGeometry).toEqual({ ok: 10, failed: 1 });
    expect(result.withoutGeometry).toEqual({ ok: 1, failed: 1 });
  });

  it('leaves off the map, and counts, geometries whose coordinates are not degrees (UTM metres)', () => {
    const sample = createFeatureSample();
    sample.add(point(1), 'ok', 1);
    sample.add({ type: 'Point', coordinates: [462000, 5430000] }, 'failed', 2, 'FIELD_INVALID');
    // Unwrapped across the antimeridian: on the map.
    sample.add({ type: 'Point', coordinates: [180.5, -17] }, 'ok', 4);
    sample.add(
      {
        type: 'LineString',
        coordinates: [
          [3_456_000, 5_430_000],
          [8.1, 49],
        ],
      },
      'ok',
      3,
    );
    const result = sample.result();
    expect(result.features.map((f) => f.row)).toEqual([1, 4]);
    expect(result.withGeometry).toEqual({ ok: 2, failed: 0 });
    expect(result.offTheGlobe).toEqual({ ok: 1, failed: 1 });
  });

  it('samples a million records evenly within the cap and counts them all', () => {
    const sample = createFeatureSample({ maxFeatures: 5000 });
    for (let row = 1; row <= 1_000_000; row++) sample.add(point(row), 'ok', row);
    const { features, withGeometry } = sample.result();
    expect(withGeometry).toEqual({ ok: 1_000_000, failed: 0 });
    expect(features.length).toBeGreaterThan(2500);
    expect(features.length).toBeLessThanOrEqual(5000);
    // Even: the same gap between consecutive rows, from the first row to near the last.
    const rows = features.map((f) => f.row);
    const gaps = new Set(rows.slice(1).map((r, i) => r - (rows[i] as number)));
    expect(gaps.size).toBe(1);
    expect(rows[0]).toBe(1);
    const [gap = 0] = gaps;
    expect(rows.at(-1)).toBeGreaterThan(1_000_000 - 2 * gap);
  });

  it('keeps rare failures on the map among a flood of ok rows', () => {
    const sample = createFeatureSample({ maxFeatures: 100 });
    for (let row = 1; row <= 100_000; row++) {
      const failed = row === 5 || row === 50_000 || row === 99_999;
      sample.add(point(row), failed ? 'failed' : 'ok', row, failed ? 'NO_MATCH' : null);
    }
    const { features } = sample.result();
    expect(features.filter((f) => f.status === 'failed').map((f) => f.row)).toEqual([5, 50_000, 99_999]);
    expect(features.length).toBeLessThanOrEqual(100);
  });

  it('gives failures at most half the map when both kinds overflow it', () => {
    const sample = createFeatureSample({ maxFeatures: 100 });
    for (let row = 1; row <= 1000; row++) sample.add(point(row), row % 2 === 0 ? 'ok' : 'failed', row, null);
    const shown = sample.result().features;
    expect(shown.length).toBeLessThanOrEqual(100);
    expect(shown.filter((f) => f.status === 'failed').length).toBeLessThanOrEqual(50);
    expect(shown.filter((f) => f.status === 'ok').length).toBeGreaterThanOrEqual(25);
  });

  it('keeps all shapes under one vertex budget, each still a polygon', () => {
    const sample = createFeatureSample({ maxFeatures: 2000, maxVertices: 20_000 });
    for (let i = 0; i < 2000; i++) sample.add(square(i, 400), 'ok', i + 1);
    const { features } = sample.result();
    expect(features).toHaveLength(2000);
    const vertices = features.reduce((n, f) => n + countVertices(f.geometry), 0);
    expect(vertices).toBeLessThanOrEqual(20_000);
    expect(features.every((f) => f.geometry.type === 'Polygon' && countVertices(f.geometry) >= 4)).toBe(true);
  });

  it('gives the same sample for the same output', () => {
    const run = () => {
      const sample = createFeatureSample({ maxFeatures: 300, maxVertices: 5000 });
      for (let i = 0; i < 3000; i++) sample.add(i % 3 ? point(i) : square(i, 60), 'ok', i + 1);
      return sample.result();
    };
    expect(run()).toEqual(run());
  });

  it('refuses a cap that is not a positive integer, naming it', () => {
    expect(() => createFeatureSample({ maxFeatures: 0 })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: 'Expected `maxFeatures` to be a positive integer, got `0`',
      }),
    );
  });
});

describe('createFeatureSample across the antimeridian', () => {
  /** The geometry handed to the map for one record. */
  function mapped(geometry: Geometry): Geometry | undefined {
    const sample = createFeatureSample();
    sample.add(geometry, 'ok', 1);
    return sample.result().features[0]?.geometry;
  }

  /** The largest longitude step between consecutive positions of any line or ring. */
  function largestStep(geometry: Geometry | undefined): number {
    if (geometry === undefined || geometry.type === 'Point' || geometry.type === 'MultiPoint') return 0;
    if (geometry.type === 'GeometryCollection') return Math.max(0, ...geometry.geometries.map(largestStep));
    const lines: Position[][] =
      geometry.type === 'LineString'
        ? [geometry.coordinates]
        : geometry.type === 'MultiPolygon'
          ? geometry.coordinates.flat()
          : geometry.coordinates;
    return Math.max(
      0,
      ...lines.flatMap((line) => line.slice(1).map((p, i) => Math.abs((p[0] ?? 0) - (line[i]?.[0] ?? 0)))),
    );
  }

  // An isochrone around a point east of Fiji's Taveuni (179.9, -16.8), written as the service
  // writes longitudes: -179.x east of the dateline. Its hole lies across the dateline too.
  const fiji: Polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [179.7, -17],
        [-179.9, -17],
        [-179.8, -16.8],
        [-179.9, -16.6],
        [179.7, -16.6],
        [179.6, -16.8],
        [179.7, -17],
      ],
      [
        [179.95, -16.9],
        [179.95, -16.7],
        [-179.95, -16.7],
        [-179.95, -16.9],
        [179.95, -16.9],
      ],
    ],
  };

  it('draws an isochrone across the antimeridian beside the dateline, not as a band round the world', () => {
    const drawn = mapped(fiji);
    expect(drawn).toEqual({
      type: 'Polygon',
      coordinates: [
        [
          [179.7, -17],
          [180.1, -17],
          [180.2, -16.8],
          [180.1, -16.6],
          [179.7, -16.6],
          [179.6, -16.8],
          [179.7, -17],
        ],
        [
          [179.95, -16.9],
          [179.95, -16.7],
          [180.05, -16.7],
          [180.05, -16.9],
          [179.95, -16.9],
        ],
      ],
    });
    expect(largestStep(fiji)).toBeGreaterThan(359);
    expect(largestStep(drawn)).toBeLessThan(1);
  });

  it('hands a polygon that crosses nothing to the map as it is', () => {
    const karlsruhe: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [8.3, 48.95],
          [8.5, 48.95],
          [8.5, 49.1],
          [8.3, 49.1],
          [8.3, 48.95],
        ],
      ],
    };
    expect(mapped(karlsruhe)).toEqual(karlsruhe);
    // West of the dateline only, and a wide one: steps of 100° are no crossing.
    const pacific: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [-179.5, -20],
          [-79.5, -20],
          [-79.5, 20],
          [-179.5, 20],
          [-179.5, -20],
        ],
      ],
    };
    expect(mapped(pacific)).toEqual(pacific);
  });

  it('draws a part on the far side of the dateline beside the rest of its shape', () => {
    const islands: Geometry = {
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [179.3, -16.5],
            [179.5, -16.5],
            [179.5, -16.3],
            [179.3, -16.5],
          ],
        ],
        [
          [
            [-179.9, -16.2],
            [-179.7, -16.2],
            [-179.7, -16],
            [-179.9, -16.2],
          ],
        ],
      ],
    };
    expect(mapped(islands)).toEqual({
      type: 'MultiPolygon',
      coordinates: [
        islands.coordinates[0],
        [
          [
            [180.1, -16.2],
            [180.3, -16.2],
            [180.3, -16],
            [180.1, -16.2],
          ],
        ],
      ],
    });
  });

  it('draws a route and a failed row through its points across the dateline contiguously', () => {
    const route: Geometry = {
      type: 'LineString',
      coordinates: [
        [179.8, -16.8],
        [179.95, -16.7],
        [-179.9, -16.7],
        [-179.8, -16.6],
      ],
    };
    expect(mapped(route)).toEqual({
      type: 'LineString',
      coordinates: [
        [179.8, -16.8],
        [179.95, -16.7],
        [180.1, -16.7],
        [180.2, -16.6],
      ],
    });
    const sample = createFeatureSample();
    const line: Geometry = {
      type: 'LineString',
      coordinates: [
        [-179.5, -16.8],
        [179.5, -16.5],
      ],
    };
    sample.add(line, 'failed', 7, 'NO_MATCH');
    expect(sample.result().features).toEqual([
      {
        geometry: {
          type: 'LineString',
          coordinates: [
            [-179.5, -16.8],
            [-180.5, -16.5],
          ],
        },
        status: 'failed',
        row: 7,
        code: 'NO_MATCH',
      },
    ]);
  });

  /** The geometries handed to the map for several records, in their order. */
  function mappedAll(geometries: readonly Geometry[]): Geometry[] {
    const sample = createFeatureSample();
    for (const [i, geometry] of geometries.entries()) sample.add(geometry, 'ok', i + 1);
    return sample.result().features.map((f) => f.geometry);
  }

  /** West and east ends of the longitudes handed to the map: what its view is fitted to. */
  function lonExtent(geometries: readonly Geometry[]): [number, number] {
    const lons: number[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value) && typeof value[0] === 'number') lons.push(value[0]);
      else if (Array.isArray(value)) value.forEach(walk);
    };
    for (const g of geometries) walk(g.type === 'GeometryCollection' ? [] : g.coordinates);
    return [Math.min(...lons), Math.max(...lons)];
  }

  // Two isochrones of a few km on either side of the dateline near Taveuni, each crossing it.
  const eastOfTaveuni: Polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [179.7, -17],
        [-179.9, -17],
        [-179.9, -16.6],
        [179.7, -16.6],
        [179.7, -17],
      ],
    ],
  };
  const westOfSamoa: Polygon = {
    type: 'Polygon',
    coordinates: [
      [
        [-179.75, -17.2],
        [-179.75, -16.8],
        [179.85, -16.8],
        [179.85, -17.2],
        [-179.75, -17.2],
      ],
    ],
  };

  it('draws isochrones centred on either side of the antimeridian side by side, not a world apart', () => {
    expect(mappedAll([eastOfTaveuni, westOfSamoa])).toEqual([
      {
        type: 'Polygon',
        coordinates: [
          [
            [179.7, -17],
            [180.1, -17],
            [180.1, -16.6],
            [179.7, -16.6],
            [179.7, -17],
          ],
        ],
      },
      {
        type: 'Polygon',
        coordinates: [
          [
            [180.25, -17.2],
            [180.25, -16.8],
            [179.85, -16.8],
            [179.85, -17.2],
            [180.25, -17.2],
          ],
        ],
      },
    ]);
    // Either order: the data set is gathered, not each shape after the one before.
    expect(lonExtent(mappedAll([westOfSamoa, eastOfTaveuni]))).toEqual([179.7, 180.25]);
  });

  it("draws points, a failed row's among them, beside the shapes across the antimeridian from them", () => {
    const sample = createFeatureSample();
    sample.add(eastOfTaveuni, 'ok', 1);
    sample.add({ type: 'Point', coordinates: [179.6, -16.5] }, 'ok', 2);
    sample.add({ type: 'Point', coordinates: [-179.95, -16.7] }, 'failed', 3, 'OUTSIDE_COVERAGE');
    const stops: Geometry = {
      type: 'MultiPoint',
      coordinates: [
        [-179.9, -16.9],
        [-179.8, -16.8],
      ],
    };
    sample.add(stops, 'ok', 4);
    const features = sample.result().features;
    // Gathered round 179.875, west of the dateline: what lies east of it moves by a turn.
    expect(features.map((f) => [f.row, f.geometry])).toEqual([
      [1, mappedAll([eastOfTaveuni])[0]],
      [2, { type: 'Point', coordinates: [179.6, -16.5] }],
      [
        4,
        {
          type: 'MultiPoint',
          coordinates: [
            [180.1, -16.9],
            [180.2, -16.8],
          ],
        },
      ],
      [3, { type: 'Point', coordinates: [180.05, -16.7] }],
    ]);
    expect(lonExtent(features.map((f) => f.geometry))).toEqual([179.6, 180.2]);
  });

  it('draws a MultiPoint whose points straddle the antimeridian as one group beside the dateline', () => {
    const straddling: Geometry = {
      type: 'MultiPoint',
      coordinates: [
        [179.9, -16.9],
        [-179.8, -16.8],
        [179.7, -17],
      ],
    };
    // Written as it is, its middle is 0°: gathered with other data, it would be moved off Africa.
    expect(mapped(straddling)).toEqual({
      type: 'MultiPoint',
      coordinates: [
        [179.9, -16.9],
        [180.2, -16.8],
        [179.7, -17],
      ],
    });
    const withFiji = mappedAll([{ type: 'Point', coordinates: [-179.95, -16.7] }, straddling]);
    // Gathered round 180 (-180 as written), the group a hand's width wide, not the world's.
    expect(lonExtent(withFiji)).toEqual([-180.3, -179.8]);
  });

  it('gathers a Pacific data set on the side of the dateline where its middle lies', () => {
    // Auckland, Suva, Apia, Honolulu: most of it east of the dateline, the middle too (-173.6).
    const places = [
      [174.76, -36.85],
      [178.44, -18.14],
      [-171.77, -13.83],
      [-157.86, 21.31],
    ].map((coordinates) => ({ type: 'Point' as const, coordinates }));
    expect(mappedAll(places).map((g) => (g as { coordinates: Position }).coordinates[0])).toEqual([
      -185.24, -181.56, -171.77, -157.86,
    ]);
  });

  it('leaves data that does not straddle the antimeridian exactly where it is', () => {
    // Round the world: San Francisco, New York, London, Delhi, Sydney, Suva, Apia. The widest gap
    // (London to Delhi, 77°) is wider than the one across the dateline, but no hemisphere.
    const world = [
      [-122.42, 37.77],
      [-74.01, 40.71],
      [-0.13, 51.51],
      [77.21, 28.61],
      [151.21, -33.87],
      [178.44, -18.14],
      [-171.77, -13.83],
    ].map((coordinates) => ({ type: 'Point' as const, coordinates }));
    const europe = [
      [-9.14, 38.72],
      [2.35, 48.86],
      [13.4, 52.52],
      [24.94, 60.17],
      [30.52, 50.45],
    ].map((coordinates) => ({ type: 'Point' as const, coordinates }));
    // All west of the dateline and wide, as the Pacific polygon above.
    const westOnly = [
      { type: 'Point' as const, coordinates: [-179.9, -16.7] },
      { type: 'Point' as const, coordinates: [-79.5, 9] },
    ];
    for (const data of [world, europe, westOnly]) expect(mappedAll(data)).toEqual(data);
  });

  it('leaves a ring round a pole as it is written', () => {
    // Cut at ±180 and closed through the pole, as such rings are written: right as it is.
    const antarctica: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [-180, -70],
          [-90, -72],
          [0, -70],
          [90, -68],
          [180, -70],
          [180, -90],
          [-180, -90],
          [-180, -70],
        ],
      ],
    };
    expect(mapped(antarctica)).toEqual(antarctica);
    // Round the pole without touching it: unwrapped, it would end a turn from its start.
    const cap: Polygon = {
      type: 'Polygon',
      coordinates: [
        [
          [0, 88],
          [90, 88],
          [170, 88],
          [-170, 88],
          [-90, 88],
          [0, 88],
        ],
      ],
    };
    expect(mapped(cap)).toEqual(cap);
  });
});

import { describe, expect, it } from 'vitest';
import { readMatrix } from '../../src/client/_routing-read.js';
import type { RoutingResponse } from '../../src/contract/index.js';
import type { LonLat } from '../../src/types.js';
import { fileRig } from './_emulator.js';

const r = fileRig();
const { seen } = r;

// service-notes.md: the vendor's sample coordinates around Karlsruhe.
const A: LonLat = [8.362124, 49.010627];
const B: LonLat = [8.437334, 49.004997];
const C: LonLat = [8.381356, 48.991031];
const body = () => seen.at(-1)?.body as { routingparams: Record<string, unknown>; features: unknown[] };

describe('routing against the emulator', () => {
  it('routes through points in order, as Point features', async () => {
    const route = await r.client.routing.route([A, B], { speedProfile: 'BICYCLE' });
    expect(route.distance_m).toBeGreaterThan(0);
    expect(route.duration_s).toBeGreaterThan(0);
    expect(route.geometry?.type).toBe('LineString');
    expect(body().routingparams).toMatchObject({
      type: 'ROUTE',
      speedProfile: 'BICYCLE',
      coordFormatOut: 'GEODECIMAL_POINT',
    });
    expect(body().features).toHaveLength(2);
  });

  it('answers a matrix in the order of the destinations, sending a start point and a MultiPoint', async () => {
    const legs = await r.client.routing.matrix(A, [B, C, B]);
    expect(legs).toHaveLength(3);
    expect(legs[0]).toEqual(legs[2]);
    expect(legs[1]?.distance_m).toBeLessThan(legs[0]?.distance_m ?? 0);
    expect(body().features).toMatchObject([
      { geometry: { type: 'Point' }, properties: { type: 'StartPoint' } },
      { geometry: { type: 'MultiPoint', coordinates: [B, C, B] } },
    ]);
  });

  it('optimises a trip and says in which order it visits the points', async () => {
    const trip = await r.client.routing.trip([A, B, C], { roundTrip: true });
    expect(trip.distance_m).toBeGreaterThan(0);
    expect(trip.order?.[0]).toBe(0);
    expect(new Set(trip.order)).toEqual(new Set([0, 1, 2]));
    expect(body().routingparams).toMatchObject({ type: 'TRIP', routingRoundTrip: true });
  });

  it('draws an isochrone polygon around its origin', async () => {
    const iso = await r.client.routing.isochrone(A, { timeInMinutes: 10, isochroneGrid: 50 });
    expect(['Polygon', 'MultiPolygon']).toContain(iso.polygon.type);
    expect(body().routingparams).toMatchObject({
      type: 'ISOCHRONE',
      timeInMinutes: 10,
      distanceInMeters: null,
      isochroneGrid: '50',
    });
  });

  it('matches a GPS track, one destination per input point', async () => {
    const matched = await r.client.routing.match([A, B, C]);
    expect(matched.destinations).toHaveLength(3);
    expect(matched.destinations[0]).toMatchObject({ isMatched: true, inPoint: { type: 'Point' } });
  });

  it('refuses a route with fewer than two points before sending', async () => {
    const before = seen.length;
    await expect(r.client.routing.route([A])).rejects.toMatchObject({
      code: 'USAGE',
      context: { service: 'routing' },
    });
    expect(seen).toHaveLength(before);
  });
});

describe('readMatrix', () => {
  const collection = (
    features: RoutingResponse['features'],
    properties?: Record<string, unknown>,
  ): RoutingResponse => ({
    type: 'FeatureCollection',
    features,
    ...(properties ? { properties } : {}),
  });
  const end = (properties: Record<string, unknown>) => ({
    type: 'Feature' as const,
    geometry: null,
    properties,
  });

  it('puts per-feature answers back in request order by their index', () => {
    const response = collection([
      end({ index: 1, distance: 20, duration: 2 }),
      end({ index: 0, distance: 10, duration: 1 }),
    ]);
    expect(readMatrix(response, 2)).toEqual([
      { distance_m: 10, duration_s: 1 },
      { distance_m: 20, duration_s: 2 },
    ]);
  });

  it('skips a start point feature and reads capitalised or string numbers', () => {
    const response = collection([end({ type: 'StartPoint' }), end({ Distance: '15', Duration: '3' })]);
    expect(readMatrix(response, 1)).toEqual([{ distance_m: 15, duration_s: 3 }]);
  });

  it('reads distances and durations arrays', () => {
    const response = collection([], { distances: [5, 6], durations: [1, 2] });
    expect(readMatrix(response, 2)).toEqual([
      { distance_m: 5, duration_s: 1 },
      { distance_m: 6, duration_s: 2 },
    ]);
  });

  it('names what is missing: a count that does not match, a duplicate index, a leg without a number', () => {
    const path = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as { context: { path: string } }).context.path;
      }
      return 'no error';
    };
    expect(path(() => readMatrix(collection([end({ distance: 1, duration: 1 })]), 2))).toBe('features');
    expect(
      path(() =>
        readMatrix(
          collection([
            end({ index: 0, distance: 1, duration: 1 }),
            end({ index: 0, distance: 1, duration: 1 }),
          ]),
          2,
        ),
      ),
    ).toBe('features[1].properties.index');
    expect(path(() => readMatrix(collection([end({ distance: 1 })]), 1))).toBe(
      'features[0].properties.duration',
    );
    expect(path(() => readMatrix(collection([], { distances: [1], durations: [null] }), 1))).toBe(
      'properties.durations[0]',
    );
  });
});

/** Routing legs (ROUTE and TRIP) and extra routingparams, as the routing kinds use them. */
import { describe, expect, it } from 'vitest';
import { readRoute, readTrip } from '../../src/client/_routing-read.js';
import type { RoutingResponse } from '../../src/contract/index.js';
import type { LonLat } from '../../src/types.js';
import { fileRig } from './_emulator.js';

const r = fileRig();
const { seen } = r;

const A: LonLat = [8.362124, 49.010627];
const B: LonLat = [8.437334, 49.004997];
const C: LonLat = [8.381356, 48.991031];
const body = () => seen.at(-1)?.body as { routingparams: Record<string, unknown> };

describe('routing legs', () => {
  it('reads a route’s legs, one per pair of consecutive points', async () => {
    const route = await r.client.routing.route([A, B, C]);
    expect(route.legs).toHaveLength(2);
    const sum = (route.legs ?? []).reduce((s, l) => s + l.distance_m, 0);
    expect(Math.abs(sum - route.distance_m)).toBeLessThanOrEqual(1);
  });

  it('reads a trip’s legs in visiting order, the way back included on a round trip', async () => {
    const trip = await r.client.routing.trip([A, B, C], { roundTrip: true });
    expect(trip.order).toHaveLength(4);
    expect(trip.legs).toHaveLength(3);
    const sum = (trip.legs ?? []).reduce((s, l) => s + l.distance_m, 0);
    expect(Math.abs(sum - trip.distance_m)).toBeLessThanOrEqual(2);
  });

  it('gives null legs when the answer has none, or one without numbers', () => {
    const answer = (legs: unknown): RoutingResponse => ({
      type: 'FeatureCollection',
      properties: { distance: 10, duration: 1 },
      features: [{ type: 'Feature', geometry: null, properties: legs === undefined ? {} : { legs } }],
    });
    expect(readRoute(answer(undefined), 'routing ROUTE').legs).toBeNull();
    expect(readRoute(answer([{ distance: 5 }]), 'routing ROUTE').legs).toBeNull();
    expect(readTrip(answer([{ Distance: '5', time: 2 }])).legs).toEqual([{ distance_m: 5, duration_s: 2 }]);
  });
});

describe('extra routingparams', () => {
  it('sends them beside the ones the client sets, never instead of them', async () => {
    await r.client.routing.route([A, B], {
      routingTimeMode: 'DEPARTURE',
      params: { routingTime: '2024-05-06T08:00:00+02:00', type: 'MATRIX', coordFormatOut: 'MERCATOR' },
    });
    expect(body().routingparams).toMatchObject({
      type: 'ROUTE',
      coordFormatOut: 'GEODECIMAL_POINT',
      routingTimeMode: 'DEPARTURE',
      routingTime: '2024-05-06T08:00:00+02:00',
    });
  });
});

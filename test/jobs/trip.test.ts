import type { LineString } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TripOptions } from '../../src/client/index.js';
import { createCounters } from '../../src/engine/counters.js';
import { type Mapping, resolveMapping } from '../../src/jobs/_fields.js';
import type { Leg, RouteResult, TripResult } from '../../src/jobs/_ports.js';
import { createTripJob } from '../../src/jobs/trip.js';
import type { Fields, LonLat, Outcome } from '../../src/types.js';
import { type Rig, rig } from '../client/_emulator.js';
import { codes, recordOf, runRows } from './_run.js';

const mapping: Mapping = { trip: { column: 'trip_id' }, sequence: { column: 'seq' } };
const stop = (trip: string, seq: string, lon: number, lat = 49): Fields => ({
  trip_id: trip,
  seq,
  lon: String(lon),
  lat: String(lat),
});

interface FakeOptions {
  /** Leave `legs` out of TRIP answers. */
  noTripLegs?: boolean;
  /** Leave `legs` out of ROUTE answers too. */
  noRouteLegs?: boolean;
  order?: (n: number) => number[];
}

/**
 * A fake TRIP: visits the start, then the other stops from the last sent to the second (reverse),
 * each leg 1000 m x its number and 100 s x its number; a round trip adds the way back.
 */
function fakeClient(options: FakeOptions = {}) {
  const trips: { points: readonly LonLat[]; options: TripOptions | undefined }[] = [];
  const routes: (readonly LonLat[])[] = [];
  const legsFor = (count: number): Leg[] =>
    Array.from({ length: count }, (_, i) => ({ distance_m: 1000 * (i + 1), duration_s: 100 * (i + 1) }));
  return {
    trips,
    routes,
    routing: {
      trip: async (points: readonly LonLat[], opts?: TripOptions): Promise<TripResult> => {
        trips.push({ points, options: opts });
        const n = points.length;
        const order = options.order?.(n) ?? [
          0,
          ...Array.from({ length: n - 1 }, (_, i) => n - 1 - i),
          ...(opts?.roundTrip ? [0] : []),
        ];
        const legs = legsFor(order.length - 1);
        return {
          distance_m: legs.reduce((s, l) => s + l.distance_m, 0),
          duration_s: legs.reduce((s, l) => s + l.duration_s, 0),
          geometry: { type: 'LineString', coordinates: order.map((i) => [...(points[i] as LonLat)]) },
          properties: {},
          order,
          legs: options.noTripLegs ? null : legs,
        };
      },
      route: async (points: readonly LonLat[]): Promise<RouteResult> => {
        routes.push(points);
        return {
          distance_m: 0,
          duration_s: 0,
          geometry: null,
          properties: {},
          legs: options.noRouteLegs ? null : legsFor(points.length - 1),
        };
      },
    },
  };
}

const columns = (outcome: Outcome | undefined) => recordOf(outcome).columns;

describe('trip job', () => {
  it('sends each trip once, its stops ordered by the sequence column, the lowest first', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping });
    // Numeric order although "10" < "9" as text; trip B in text order as one value is not a number.
    const outcomes = await runRows(job, [
      stop('A', '10', 8.3),
      stop('A', '9', 8.2),
      stop('A', '1', 8.1),
      stop('B', 'b', 9.2),
      stop('B', 'a', 9.1),
      stop('B', '1', 9.0),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(client.trips.map((t) => t.points.map((p) => p[0]))).toEqual([
      [8.1, 8.2, 8.3],
      [9.0, 9.1, 9.2],
    ]);
  });

  it('orders the stops by sequence numbers written with the decimal mark the input declares', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping: resolveMapping(mapping, ',') });
    const german = (trip: string, seq: string, lon: string): Fields => ({
      trip_id: trip,
      seq,
      lon,
      lat: '49',
    });
    // With ",": 1.000 is a thousand, 2,5 two and a half; read as text, "1.000" < "2,5" < "20".
    const outcomes = await runRows(job, [
      german('A', '1.000', '8,3'),
      german('A', '20', '8,2'),
      german('A', '2,5', '8,1'),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok']);
    expect(client.trips.map((t) => t.points.map((p) => p[0]))).toEqual([[8.1, 8.2, 8.3]]);
  });

  it('reads a decimal comma in a sequence as a number when the input declares no mark', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping });
    // 9,5 is nine and a half, between 9 and 10: as text it would sort after "10" and "11".
    const outcomes = await runRows(job, [
      stop('A', '10', 8.3),
      stop('A', '9,5', 8.2),
      stop('A', '11', 8.4),
      stop('A', '9', 8.1),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(client.trips.map((t) => t.points.map((p) => p[0]))).toEqual([[8.1, 8.2, 8.3, 8.4]]);
  });

  it('asks about a sequence written 1,000 instead of reading it as stop 1, and sends the rest', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping });
    // Read as 1, `1,000` would come before 999 and make the wrong stop the start.
    const outcomes = await runRows(job, [
      stop('A', '999', 8.1),
      stop('A', '1,000', 8.2),
      stop('A', '1001', 8.3),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'FIELD_INVALID', 'ok']);
    expect(outcomes[1]).toMatchObject({
      issue: {
        field: 'seq',
        message: expect.stringContaining(
          "seq: expected the stop's place in its trip, got `1,000`: 1 with a decimal mark, 1000 with a thousands separator",
        ),
      },
    });
    expect(client.trips.map((t) => t.points.map((p) => p[0]))).toEqual([[8.1, 8.3]]);
  });

  it.each(['1 000', '1,000.0', "1'000", '1.000,0'])(
    'fails a stop whose sequence %s is a number with thousands separators, rather than sort the trip as text',
    async (thousand) => {
      const client = fakeClient();
      // Read as text, it sorted the whole trip as text: it became the start, and 10 came before 2.
      const outcomes = await runRows(createTripJob(client, { mapping }), [
        stop('T', '2', 8.2),
        stop('T', thousand, 8.9),
        stop('T', '10', 8.3),
        stop('T', '1', 8.1),
      ]);
      expect(codes(outcomes)).toEqual(['ok', 'FIELD_INVALID', 'ok', 'ok']);
      expect(outcomes[1]).toMatchObject({
        issue: {
          field: 'seq',
          message: `seq: expected the stop's place in its trip, got \`${thousand}\`, a number written with thousands separators; write it without them`,
        },
      });
      expect(client.trips.map((t) => t.points.map((p) => p[0]))).toEqual([[8.1, 8.2, 8.3]]);
    },
  );

  it('gives each stop its visiting order and the distance and time driven when it is reached', async () => {
    const job = createTripJob(fakeClient(), { mapping, roundTrip: true });
    const outcomes = await runRows(job, [stop('A', '1', 8.1), stop('A', '2', 8.2), stop('A', '3', 8.3)]);
    // Visited 8.1 (start), then 8.3 (leg 1: 1000 m), then 8.2 (leg 2: 2000 m), then back (3000 m).
    expect(outcomes.map(columns)).toEqual([
      {
        trip_order: 1,
        trip_leg_distance_m: null,
        trip_leg_duration_s: null,
        trip_distance_m: 0,
        trip_duration_s: 0,
        trip_stops: 3,
        trip_total_distance_m: 6000,
        trip_total_duration_s: 600,
      },
      {
        trip_order: 3,
        trip_leg_distance_m: 2000,
        trip_leg_duration_s: 200,
        trip_distance_m: 3000,
        trip_duration_s: 300,
        trip_stops: 3,
        trip_total_distance_m: 6000,
        trip_total_duration_s: 600,
      },
      {
        trip_order: 2,
        trip_leg_distance_m: 1000,
        trip_leg_duration_s: 100,
        trip_distance_m: 1000,
        trip_duration_s: 100,
        trip_stops: 3,
        trip_total_distance_m: 6000,
        trip_total_duration_s: 600,
      },
    ]);
  });

  it('puts the trip’s line on its last row and each other stop’s point on its own', async () => {
    const job = createTripJob(fakeClient(), { mapping, wkt: true });
    const outcomes = await runRows(job, [stop('A', '1', 8.1), stop('A', '2', 8.2), stop('B', '1', 9)]);
    expect(recordOf(outcomes[0]).geometry).toEqual({ type: 'Point', coordinates: [8.1, 49] });
    expect(recordOf(outcomes[0]).columns.trip_wkt).toBeNull();
    expect(recordOf(outcomes[1]).geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [8.1, 49],
        [8.2, 49],
      ],
    });
    expect(recordOf(outcomes[1]).columns.trip_wkt).toBe('LINESTRING (8.1 49, 8.2 49)');
    // A trip of one stop is answered without a request: nowhere to drive.
    expect(columns(outcomes[2])).toMatchObject({
      trip_order: 1,
      trip_distance_m: 0,
      trip_total_distance_m: 0,
    });
  });

  it('asks a ROUTE through the visiting order for the legs when the TRIP answer has none', async () => {
    const client = fakeClient({ noTripLegs: true });
    const job = createTripJob(client, { mapping, roundTrip: true });
    const outcomes = await runRows(job, [stop('A', '1', 8.1), stop('A', '2', 8.2), stop('A', '3', 8.3)]);
    expect(client.routes.map((points) => points.map((p) => p[0]))).toEqual([[8.1, 8.3, 8.2, 8.1]]);
    expect(columns(outcomes[1])).toMatchObject({ trip_order: 3, trip_distance_m: 3000 });
  });

  it('fails the trip as RESPONSE_INVALID when neither answer has legs, or the order is not a visit of every stop', async () => {
    const noLegs = await runRows(
      createTripJob(fakeClient({ noTripLegs: true, noRouteLegs: true }), { mapping }),
      [stop('A', '1', 8.1), stop('A', '2', 8.2)],
    );
    expect(noLegs[0]).toMatchObject({
      status: 'failed',
      issue: { code: 'RESPONSE_INVALID', stage: 'response' },
    });
    const badOrder = await runRows(createTripJob(fakeClient({ order: () => [0, 1, 1] }), { mapping }), [
      stop('A', '1', 8.1),
      stop('A', '2', 8.2),
      stop('A', '3', 8.3),
    ]);
    expect(codes(badOrder)).toEqual(['RESPONSE_INVALID', 'RESPONSE_INVALID', 'RESPONSE_INVALID']);
  });

  it('fails every stop of a trip larger than maxStops with LIMIT_EXCEEDED, naming the option as the limit, and routes the trips around it', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping, maxStops: 3 });
    const rows = [
      stop('A', '1', 8.1),
      stop('A', '2', 8.2),
      ...Array.from({ length: 5 }, (_, i) => stop('BIG', String(i + 1), 9 + i / 10)),
      stop('C', '1', 10.1),
      stop('C', '2', 10.2),
    ];
    const counters = createCounters();
    const outcomes = await runRows(job, rows, { counters });
    expect(codes(outcomes)).toEqual(['ok', 'ok', ...Array(5).fill('LIMIT_EXCEEDED'), 'ok', 'ok']);
    expect(outcomes[2]).toMatchObject({
      issue: {
        // Nothing was sent: the rows are what is wrong (the README's stage table).
        stage: 'input',
        message:
          "trip BIG (from row 3) has more than 3 stops; the job's options.maxStops is 3 (geobatch sends at most 1000 points a request): split the trip, or raise options.maxStops",
      },
    });
    expect(client.trips).toHaveLength(2);
    // The refused trip is no request sent (the summary read it as one that failed to connect).
    expect(counters).toMatchObject({ requestsSent: 2, itemsSent: 4 });
  });

  it('routes a trip of exactly maxStops stops, also at the end of the input', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping, maxStops: 3 });
    const rows = ['A', 'A', 'A', 'B', 'B', 'B'].map((t, i) => stop(t, String(i), 8 + i / 10));
    expect(codes(await runRows(job, rows))).toEqual(Array(6).fill('ok'));
    expect(client.trips.map((t) => t.points.length)).toEqual([3, 3]);
  });

  it('fails a trip with more rows than the window holds instead of routing it in parts', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping });
    const rows = [
      ...Array.from({ length: 6 }, (_, i) => stop('A', String(i + 1), 8 + i / 10)),
      stop('B', '1', 9),
      stop('B', '2', 9.1),
    ];
    const outcomes = await runRows(job, rows, { window: 4 });
    expect(codes(outcomes)).toEqual([...Array(6).fill('LIMIT_EXCEEDED'), 'ok', 'ok']);
    expect(outcomes[0]).toMatchObject({ issue: { message: expect.stringContaining('raise run.window') } });
    expect(client.trips).toHaveLength(1);
  });

  it('leaves a stop that fails on its own out of its trip, and fails a trip that comes again', async () => {
    const client = fakeClient();
    const job = createTripJob(client, { mapping });
    const outcomes = await runRows(job, [
      stop('A', '1', 8.1),
      { trip_id: 'A', seq: '2', lon: '', lat: '' },
      stop('A', '3', 8.3),
      stop('B', '1', 9.1),
      stop('A', '4', 8.4),
      stop('B', '2', 9.2),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'FIELD_MISSING', 'ok', 'ok', 'FIELD_INVALID', 'ok']);
    expect(columns(outcomes[0]).trip_stops).toBe(2);
    expect(client.trips.map((t) => t.points.length)).toEqual([2, 2]);
  });

  it('stops at trip boundaries only, so that a resumed run never routes half a trip', async () => {
    const job = createTripJob(fakeClient(), { mapping });
    await runRows(job, [stop('A', '1', 8.1), stop('A', '2', 8.2), stop('B', '1', 9.1), stop('B', '2', 9.2)]);
    expect([0, 1, 2, 3, 4].map((i) => job.resumableAt?.(i))).toEqual([true, false, true, false, true]);
  });
});

describe('trip job against the emulator', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(async () => {
    await r.stop();
  });

  it('visits every stop once from the start, with distances that add up to the trip’s total', async () => {
    const job = createTripJob(r.client, { mapping, roundTrip: true });
    const places: [number, number][] = [
      [8.4037, 49.0069],
      [8.6821, 50.1109],
      [8.2473, 49.9929],
      [8.466, 49.4875],
      [9.1829, 48.7758],
    ];
    const outcomes = await runRows(
      job,
      places.map(([lon, lat], i) => stop('T', String(i + 1), lon, lat)),
    );
    const rows = outcomes.map(columns);
    expect(rows[0]).toMatchObject({ trip_order: 1, trip_distance_m: 0 });
    expect(rows.map((c) => c.trip_order).sort()).toEqual([1, 2, 3, 4, 5]);
    const byOrder = [...rows].sort((a, b) => Number(a.trip_order) - Number(b.trip_order));
    let driven = 0;
    for (const c of byOrder.slice(1)) {
      driven += Number(c.trip_leg_distance_m);
      expect(c.trip_distance_m).toBe(driven);
    }
    const line = recordOf(outcomes[4]).geometry as LineString;
    // Round trip: the line ends where it began, and the total includes the way back.
    expect(line.coordinates[0]).toEqual(line.coordinates[line.coordinates.length - 1]);
    expect(Number(rows[0]?.trip_total_distance_m)).toBeGreaterThan(driven);
  });
});

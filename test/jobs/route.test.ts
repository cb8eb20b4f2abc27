import type { LineString } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceMetres } from '../../src/client/coords.js';
import type { RoutingOptions } from '../../src/client/index.js';
import { isGeobatchError } from '../../src/errors.js';
import { type Mapping, resolveMapping } from '../../src/jobs/_fields.js';
import type { RouteResult } from '../../src/jobs/_ports.js';
import { createRouteJob, type RouteItem, routeKind } from '../../src/jobs/route.js';
import type { LonLat } from '../../src/types.js';
import { type Rig, rig } from '../client/_emulator.js';
import { row } from './_rows.js';
import { codes, recordOf, runRows } from './_run.js';

const mapping: Mapping = {
  originLon: { column: 'from_lon' },
  originLat: { column: 'from_lat' },
  destinationLon: { column: 'to_lon' },
  destinationLat: { column: 'to_lat' },
  via: { column: 'via' },
  time: { column: 'depart' },
};

const trip = (extra: Record<string, string> = {}) => ({
  from_lon: '8.4',
  from_lat: '49',
  to_lon: '9.2',
  to_lat: '48.8',
  via: '',
  depart: '',
  ...extra,
});

/** A fake ROUTE: 1000.4 m per point, 60.6 s, a line through the points. */
function fakeClient() {
  const calls: { points: readonly LonLat[]; options: RoutingOptions | undefined }[] = [];
  return {
    calls,
    routing: {
      route: async (points: readonly LonLat[], options?: RoutingOptions): Promise<RouteResult> => {
        calls.push({ points, options });
        return {
          distance_m: 1000.4 * points.length,
          duration_s: 60.6,
          geometry: { type: 'LineString', coordinates: points.map((p) => [...p]) },
          properties: {},
          legs: null,
        };
      },
    },
  };
}

describe('route job', () => {
  it('plans origin, via points and destination in order, from either way of writing the via points', () => {
    const job = createRouteJob(fakeClient(), { mapping });
    const expected = [
      [8.4, 49],
      [8.6, 49.1],
      [8.9, 48.9],
      [9.2, 48.8],
    ];
    for (const via of ['8.6,49.1;8.9,48.9', '8.6 49.1 | 8.9 48.9', '[[8.6,49.1],[8.9,48.9]]']) {
      expect((job.plan(row(trip({ via }))) as RouteItem[])[0]?.points, via).toEqual(expected);
    }
  });

  it('reads the points and via points with the decimal comma the input declares, via pairs apart by spaces', () => {
    const job = createRouteJob(fakeClient(), { mapping: resolveMapping(mapping, ',') });
    const german = (via: string) =>
      row(trip({ from_lon: '8,4', from_lat: '49', to_lon: '9,2', to_lat: '48,8', via }));
    const expected = [
      [8.4, 49],
      [8.6, 49.1],
      [8.9, 48.9],
      [9.2, 48.8],
    ];
    for (const via of ['8,6 49,1; 8,9 48,9', '8,6  49,1 | 8,9 48,9', '[[8.6,49.1],["8,9","48,9"]]'])
      expect((job.plan(german(via)) as RouteItem[])[0]?.points, via).toEqual(expected);
    expect(job.plan(german('8,6,49,1'))).toEqual({
      code: 'FIELD_INVALID',
      field: 'via',
      message:
        'via: point 1: expected `lon lat` pairs separated by `;`, their numbers by spaces as input.decimal is "," ' +
        '(or a JSON array of [lon, lat] pairs), got `8,6,49,1`',
    });
    expect(job.plan(german('8.6 49,1'))).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'via',
      message: expect.stringMatching(
        /^via: point 1: expected a longitude in decimal degrees written with input\.decimal ","/,
      ),
    });
  });

  it('names every empty point column in one message when both ends are empty', () => {
    const job = createRouteJob(fakeClient(), { mapping });
    expect(job.plan(row(trip({ from_lon: '', from_lat: '', to_lon: '', to_lat: '' })))).toEqual({
      code: 'FIELD_MISSING',
      field: 'from_lon',
      message:
        "from_lon, from_lat, to_lon and to_lat: all empty; expected the origin's and the destination's longitude and latitude",
    });
    // A column not in the row at all is told apart from an empty one.
    const { to_lat: _, ...noLat } = trip({ from_lon: '', from_lat: '', to_lon: '' });
    expect(job.plan(row(noLat))).toEqual({
      code: 'FIELD_MISSING',
      field: 'from_lon',
      message:
        "from_lon: empty, from_lat: empty, to_lon: empty, to_lat: missing; expected the origin's and the destination's longitude and latitude",
    });
  });

  it('fails a row before any request when a point, a via point or the time cannot be used, naming the column', () => {
    const job = createRouteJob(fakeClient(), { mapping });
    expect(job.plan(row(trip({ to_lon: '' })))).toMatchObject({ code: 'FIELD_MISSING', field: 'to_lon' });
    expect(job.plan(row(trip({ via: '9.5;53.3' })))).toEqual({
      code: 'FIELD_INVALID',
      field: 'via',
      message:
        'via: point 1: expected `lon,lat` pairs separated by `;` (or a JSON array of [lon, lat] pairs), got `9.5`',
    });
    // Quoted as the cell wrote it, with how to read decimal commas.
    expect(job.plan(row(trip({ via: '8,45 49,05' })))).toEqual({
      code: 'FIELD_INVALID',
      field: 'via',
      message:
        'via: point 1: expected `lon,lat` pairs separated by `;` (or a JSON array of [lon, lat] pairs), got `8,45 49,05`; write it with decimal points (8.45,49.05), or set input.decimal: "," if the whole file writes decimal commas',
    });
    expect(job.plan(row(trip({ via: '[[8.6,49.1,3]]' })))).toMatchObject({
      message: expect.stringMatching(/, got `\[8\.6,49\.1,3\]`$/),
    });
    expect(job.plan(row(trip({ via: '8.6,95' })))).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'via',
      message: 'via: point 1: expected a latitude from -90 to 90, got `95` (longitude and latitude swapped?)',
    });
    expect(job.plan(row(trip({ depart: 'tomorrow morning' })))).toMatchObject({
      code: 'FIELD_INVALID',
      field: 'depart',
    });
    // A day the month does not have is no date-time either, not one the service should guess at.
    expect(job.plan(row(trip({ depart: '2024-02-30T08:00:00+01:00' })))).toEqual({
      code: 'FIELD_INVALID',
      field: 'depart',
      message:
        'depart: expected an ISO 8601 date-time such as 2024-05-06T08:30:00+02:00, got `2024-02-30T08:00:00+01:00`',
    });
    // A date alone is no moment to leave or arrive at.
    expect(job.plan(row(trip({ depart: '2024-05-06' })))).toEqual({
      code: 'FIELD_INVALID',
      field: 'depart',
      message: 'depart: expected an ISO 8601 date-time such as 2024-05-06T08:30:00+02:00, got `2024-05-06`',
    });
    expect(job.plan(row(trip({ depart: '2024-05-06T08:00:00+02' })))).toMatchObject([
      { time: '2024-05-06T08:00:00+02' },
    ]);
    // A JSON via nested thousands deep is no list of pairs: refused, not a stack overflow.
    const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
    expect(job.plan(row(trip({ via: deep })))).toMatchObject({ code: 'FIELD_INVALID', field: 'via' });
    const many = Array.from({ length: 999 }, () => '8.5,49').join(';');
    expect(job.plan(row(trip({ via: many })))).toMatchObject({
      code: 'FIELD_INVALID',
      message: 'via: at most 998 via points fit in one request, got 999',
    });
  });

  it('sends identical routes once, and the same route at another time as its own request', async () => {
    const client = fakeClient();
    const job = createRouteJob(client, { mapping });
    const at8 = trip({ depart: '2024-05-06T08:00:00+02:00' });
    const outcomes = await runRows(job, [at8, at8, trip({ depart: '2024-05-06T09:00:00+02:00' }), at8]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok', 'ok']);
    expect(client.calls).toHaveLength(2);
  });

  it('sends one moment written two ways once, and a time without an offset apart from one with Z', async () => {
    const client = fakeClient();
    const job = createRouteJob(client, { mapping });
    const times = [
      '2024-05-06T08:00:00+02:00',
      '2024-05-06T08:00:00+0200',
      '2024-05-06T06:00:00Z',
      '2024-05-06T06:00:00',
    ];
    const outcomes = await runRows(
      job,
      times.map((depart) => trip({ depart })),
    );
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok', 'ok']);
    // The first three are one moment; the last is the service's to place (its zone, perhaps).
    expect(client.calls.map((call) => call.options?.params)).toEqual([
      { routingTime: '2024-05-06T08:00:00+02:00' },
      { routingTime: '2024-05-06T06:00:00' },
    ]);
  });

  it('sends the speed profile, the time mode, and the time under the routingparams name configured', async () => {
    const client = fakeClient();
    const job = createRouteJob(client, {
      mapping,
      speedProfile: 'BICYCLE',
      routingTimeMode: 'ARRIVAL',
      timeParam: 'arrivalTime',
    });
    const outcomes = await runRows(job, [
      trip({ depart: '2024-05-06T08:00:00+02:00' }),
      trip({ to_lat: '48.7' }),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'ok']);
    expect(client.calls[0]?.options).toMatchObject({
      speedProfile: 'BICYCLE',
      routingTimeMode: 'ARRIVAL',
      params: { arrivalTime: '2024-05-06T08:00:00+02:00' },
    });
    // A row with a blank time sends none: the service takes its own.
    expect(client.calls[1]?.options).toMatchObject({ routingTimeMode: 'ARRIVAL' });
    expect(client.calls[1]?.options?.params).toBeUndefined();
  });

  it('writes distance and duration in whole units and the route line as geometry, and WKT when asked', async () => {
    const job = createRouteJob(fakeClient(), { mapping, wkt: true });
    expect(job.columns).toEqual(['route_distance_m', 'route_duration_s', 'route_wkt']);
    const record = recordOf((await runRows(job, [trip()]))[0]);
    expect(record.columns).toEqual({
      route_distance_m: 2001,
      route_duration_s: 61,
      route_wkt: 'LINESTRING (8.4 49, 9.2 48.8)',
    });
    expect(record.geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [8.4, 49],
        [9.2, 48.8],
      ],
    });
  });

  it('refuses a mapping without the destination before any row is read', () => {
    const { destinationLat: _, ...partial } = mapping;
    let error: unknown;
    try {
      routeKind.create({ client: fakeClient() as never, mapping: partial, options: {} } as never);
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.context.path).toBe('mapping.destinationLat');
  });
});

describe('route job against the emulator', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(async () => {
    await r.stop();
  });

  it('gives the great circle through every via point times the profile’s detour, and its line', async () => {
    const job = createRouteJob(r.client, { mapping, speedProfile: 'SLOW' });
    const points: LonLat[] = [
      [8.4037, 49.0069],
      [8.6821, 50.1109],
      [13.405, 52.52],
    ];
    const outcomes = await runRows(job, [
      trip({
        from_lon: '8.4037',
        from_lat: '49.0069',
        via: '8.6821,50.1109',
        to_lon: '13.405',
        to_lat: '52.52',
      }),
    ]);
    const record = recordOf(outcomes[0]);
    // SLOW: detour 1.3 at 60 km/h, each leg rounded to the metre by the emulator.
    const metres =
      distanceMetres(points[0] as LonLat, points[1] as LonLat) +
      distanceMetres(points[1] as LonLat, points[2] as LonLat);
    expect(record.columns.route_distance_m).toBeCloseTo(metres * 1.3, -1);
    expect(record.columns.route_duration_s).toBeCloseTo((metres * 1.3) / (60 / 3.6), -1);
    expect((record.geometry as LineString).coordinates).toEqual(points);
  });
});

/**
 * Points the service can only refuse are refused by the client, before anything is sent: a NaN
 * from a failed parse cost a request and came back as the service's German 400.
 */
import { describe, expect, it } from 'vitest';
import type { LonLat } from '../../src/types.js';
import { fileRig } from './_emulator.js';

const r = fileRig();
const { seen } = r;

const A: LonLat = [8.362124, 49.010627];
const WGS84 = '[longitude, latitude] as numbers, longitude from -180 to 180, latitude from -90 to 90';

describe('a point the service cannot read', () => {
  it.each<[string, () => Promise<unknown>, string, string, string]>([
    ['reverse geocoding', () => r.client.reverseGeocode([Number.NaN, 49]), 'the point', 'point', '[NaN, 49]'],
    ['elevation', () => r.client.elevation.point([8.4, 191]), 'the point', 'point', '[8.4, 191]'],
    [
      'elevation',
      () => r.client.elevation.points([A, A, [8.4, Number.POSITIVE_INFINITY]]),
      'point 3 of 3',
      'points[2]',
      '[8.4, Infinity]',
    ],
    ['routing ROUTE', () => r.client.routing.route([A, [181, 49]]), 'point 2 of 2', 'points[1]', '[181, 49]'],
    [
      'routing MATRIX destinations',
      () => r.client.routing.matrix(A, [A, ['8.4', 49] as unknown as LonLat]),
      'point 2 of 2',
      'points[1]',
      // Quoted: a string is no number, though it reads as one.
      '["8.4", 49]',
    ],
    [
      'routing MATRIX origin',
      () => r.client.routing.matrix([Number.NaN, 0], [A]),
      'the point',
      'point',
      '[NaN, 0]',
    ],
    [
      'routing TRIP',
      () => r.client.routing.trip([[Number.NaN, 1], A]),
      'point 1 of 2',
      'points[0]',
      '[NaN, 1]',
    ],
    ['routing MATCH', () => r.client.routing.match([A, [8, -195]]), 'point 2 of 2', 'points[1]', '[8, -195]'],
    [
      'routing ISOCHRONE',
      () => r.client.routing.isochrone([Number.NaN, 1], { timeInMinutes: 10 }),
      'the point',
      'point',
      '[NaN, 1]',
    ],
  ])('%s: rejects %#, naming the point, and sends nothing', async (what, call, which, field, shown) => {
    const before = seen.length;
    const error = await call().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      code: 'FIELD_INVALID',
      message: `${what}: expected ${which} to be ${WGS84}, got ${shown}`,
      context: { field, expected: WGS84, received: shown },
    });
    expect(seen.length).toBe(before);
  });

  it('refuses an area point and an address search position the same way, sending nothing', async () => {
    const before = seen.length;
    await expect(r.client.area.point({ level: 6, latitude: Number.NaN, longitude: 8 })).rejects.toMatchObject(
      {
        code: 'FIELD_INVALID',
        message: expect.stringMatching(/^area point: expected the point to be .*, got \[8, NaN\]$/),
      },
    );
    await expect(
      r.client.area.points({
        level: 6,
        points: [
          { latitude: 49, longitude: 8 },
          { latitude: 999, longitude: 8 },
        ],
      }),
    ).rejects.toMatchObject({ code: 'FIELD_INVALID', context: { field: 'points[1]' } });
    await expect(
      r.client.addressSearch.byBranchesAndPosition({ Branches: '1301', LocX: Number.NaN, LocY: 49 }),
    ).rejects.toMatchObject({ code: 'FIELD_INVALID' });
    // In another format only finiteness is checked: metres are that format's own.
    await expect(
      r.client.addressSearch.byBranchesAndPosition({
        Branches: '1301',
        LocX: Number.POSITIVE_INFINITY,
        LocY: 5_400_000,
        CoordFormatIn: 'MERCATOR',
      }),
    ).rejects.toMatchObject({ code: 'FIELD_INVALID', context: { expected: '[x, y] as finite numbers' } });
    expect(seen.length).toBe(before);
  });

  it('refuses the numbers besides the points that JSON would send as null, naming them, sending nothing', async () => {
    // NaN minutes went out as null and came back as the service's 400 "exactly one of
    // timeInMinutes and distanceInMeters", which was given.
    const before = seen.length;
    await expect(r.client.routing.isochrone(A, { timeInMinutes: Number.NaN })).rejects.toMatchObject({
      code: 'FIELD_INVALID',
      message: 'routing ISOCHRONE: expected timeInMinutes to be a number above 0, got NaN',
      context: { field: 'timeInMinutes', expected: 'a number above 0', received: 'NaN' },
    });
    await expect(r.client.routing.isochrone(A, { distanceInMeters: -5 })).rejects.toMatchObject({
      context: { field: 'distanceInMeters' },
    });
    await expect(r.client.routing.isochrone(A, {} as { timeInMinutes: number })).rejects.toMatchObject({
      code: 'FIELD_INVALID',
      message: 'routing ISOCHRONE: expected exactly one of timeInMinutes and distanceInMeters, got neither',
    });
    await expect(
      r.client.area.point({ level: Number.NaN, latitude: 49, longitude: 8 }),
    ).rejects.toMatchObject({
      code: 'FIELD_INVALID',
      message: 'area point: expected level to be a whole number from 0, got NaN',
    });
    await expect(
      r.client.area.points({ level: 2.5, points: [{ latitude: 49, longitude: 8 }] }),
    ).rejects.toMatchObject({ code: 'FIELD_INVALID', context: { field: 'level' } });
    await expect(r.client.area.osmids({ osmids: [62_422, Number.NaN] })).rejects.toMatchObject({
      code: 'FIELD_INVALID',
      message: 'area osmid: expected osmids[1] to be a positive whole number, got NaN',
    });
    // A rectangle with a NaN corner or none, empty lists, an out-of-range zoom or reduceGeometry.
    const box = (lat: number) => ({
      northEast: { latitude: lat, longitude: 9 },
      southWest: { latitude: 48, longitude: 8 },
    });
    await expect(r.client.area.rectangle({ level: 4, boundingBox: box(Number.NaN) })).rejects.toMatchObject({
      code: 'FIELD_INVALID',
      context: { field: 'points[0]' },
    });
    await expect(r.client.area.rectangle({ level: 4 } as never)).rejects.toMatchObject({
      code: 'FIELD_INVALID',
    });
    await expect(r.client.area.osmids({} as never)).rejects.toMatchObject({
      code: 'FIELD_INVALID',
      message: 'area osmid: expected osmids to be a list of one or more, got nothing',
    });
    await expect(r.client.area.osmids({ osmids: [] })).rejects.toMatchObject({
      context: { received: 'an empty list' },
    });
    await expect(r.client.area.points({ level: 4, points: [] })).rejects.toMatchObject({
      code: 'FIELD_INVALID',
    });
    await expect(
      r.client.area.point({ level: 4, latitude: 49, longitude: 8, zoom: Number.NaN }),
    ).rejects.toMatchObject({ context: { field: 'zoom' } });
    await expect(
      r.client.area.rectangle({ level: 4, boundingBox: box(49), reduceGeometry: Number.NaN }),
    ).rejects.toMatchObject({ context: { field: 'reduceGeometry' } });
    await expect(
      r.client.routing.isochrone(A, { timeInMinutes: 10, isochroneGrid: Number.NaN }),
    ).rejects.toMatchObject({ context: { field: 'isochroneGrid' } });
    expect(seen.length).toBe(before);
    // A valid one still goes out.
    await r.client.routing.isochrone(A, { timeInMinutes: 10 });
    expect(seen.length).toBe(before + 1);
  });

  it('says when latitude and longitude look swapped', async () => {
    await expect(r.client.reverseGeocode([49.01, 120])).rejects.toThrow(
      'got [49.01, 120] (longitude and latitude swapped?)',
    );
  });
});

import { check } from '@placemarkio/check-geojson';
import type { Polygon, Position } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IsochroneOptions } from '../../src/client/index.js';
import { isGeobatchError } from '../../src/errors.js';
import { type Mapping, resolveMapping } from '../../src/jobs/_fields.js';
import type { IsochroneResult } from '../../src/jobs/_ports.js';
import { createIsochroneJob, isochroneKind } from '../../src/jobs/isochrone.js';
import type { LonLat } from '../../src/types.js';
import { type Rig, rig } from '../client/_emulator.js';
import { codes, recordOf, runRows } from './_run.js';

const mapping: Mapping = {
  minutes: { column: 'minutes' },
  metres: { column: 'metres' },
  grid: { column: 'grid' },
};
const site = (extra: Record<string, string> = {}) => ({
  lon: '8.4',
  lat: '49',
  minutes: '15',
  metres: '',
  grid: '',
  ...extra,
});

const ring = (clockwise: boolean): Position[] => {
  const r = [
    [8, 49],
    [8.1, 49],
    [8.1, 49.1],
    [8, 49.1],
    [8, 49],
  ];
  return clockwise ? r.reverse() : r;
};

/** A fake ISOCHRONE answering a clockwise square with a counter-clockwise hole (both wrong for RFC 7946). */
function fakeClient() {
  const calls: { origin: LonLat; options: IsochroneOptions }[] = [];
  return {
    calls,
    routing: {
      isochrone: async (origin: LonLat, options: IsochroneOptions): Promise<IsochroneResult> => {
        calls.push({ origin, options });
        const hole = [
          [8.02, 49.02],
          [8.04, 49.02],
          [8.04, 49.04],
          [8.02, 49.04],
          [8.02, 49.02],
        ];
        return { polygon: { type: 'Polygon', coordinates: [ring(true), hole] }, origin, properties: {} };
      },
    },
  };
}

/** Twice the planar signed area: > 0 counter-clockwise. */
function signed(r: readonly Position[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < r.length; i++)
    sum += (r[i]?.[0] ?? 0) * (r[i + 1]?.[1] ?? 0) - (r[i + 1]?.[0] ?? 0) * (r[i]?.[1] ?? 0);
  return sum;
}

describe('isochrone job', () => {
  it('checks the spec’s limits on every row before any request, naming the column', async () => {
    const client = fakeClient();
    const job = createIsochroneJob(client, { mapping });
    const rows = [
      site({ minutes: '61' }),
      site({ minutes: '0' }),
      site({ minutes: '' }),
      site({ minutes: '', metres: '-5' }),
      site({ minutes: '15', metres: '5000' }),
      site({ grid: '34' }),
      site({ grid: '151' }),
      site({ grid: '50.5' }),
      site({ minutes: 'soon' }),
      site({ minutes: '60', grid: '150' }),
      site({ minutes: '', metres: '2500,5', grid: '35' }),
    ];
    const outcomes = await runRows(job, rows);
    expect(codes(outcomes)).toEqual([
      'FIELD_INVALID',
      'FIELD_INVALID',
      'FIELD_MISSING',
      'FIELD_INVALID',
      'FIELD_INVALID',
      'FIELD_INVALID',
      'FIELD_INVALID',
      'FIELD_INVALID',
      'FIELD_INVALID',
      'ok',
      'ok',
    ]);
    const issue = (i: number) => (outcomes[i]?.status === 'failed' ? outcomes[i].issue : undefined);
    expect(issue(0)).toMatchObject({
      stage: 'input',
      field: 'minutes',
      message: "minutes: expected more than 0 and at most 60 minutes (the service's limit), got 61",
    });
    expect(issue(3)?.field).toBe('metres');
    expect(issue(6)).toMatchObject({
      field: 'grid',
      message: "grid: expected a whole number from 35 to 150 (the service's limit), got 151",
    });
    // Only the two good rows cost a request: 60 minutes, and 2500.5 m (decimal comma).
    expect(client.calls.map((c) => c.options)).toMatchObject([
      { timeInMinutes: 60, isochroneGrid: 150 },
      { distanceInMeters: 2500.5, isochroneGrid: 35 },
    ]);
  });

  it('refuses metres whose one mark may separate thousands (German 1.500) rather than guess; minutes cannot be a thousand', async () => {
    const client = fakeClient();
    const job = createIsochroneJob(client, { mapping });
    const outcomes = await runRows(job, [
      site({ minutes: '', metres: '1.500' }),
      site({ minutes: '', metres: '2,500' }),
      site({ minutes: '12,500' }),
    ]);
    expect(codes(outcomes)).toEqual(['FIELD_INVALID', 'FIELD_INVALID', 'ok']);
    expect(outcomes[0]?.status === 'failed' && outcomes[0].issue).toMatchObject({
      stage: 'input',
      field: 'metres',
      message:
        'metres: expected a distance in metres, got `1.500`: 1.5 with a decimal mark, 1500 with a thousands ' +
        'separator; write it without thousands separators (1500) or with other than three decimals, or declare ' +
        'the mark with input.decimal',
    });
    expect(client.calls.map((c) => c.options)).toMatchObject([{ timeInMinutes: 12.5 }]);
  });

  it('reads the numbers with the mark the input declares (input.decimal ","): 1.500 m is 1500, 1,500 m 1.5', async () => {
    const client = fakeClient();
    const job = createIsochroneJob(client, { mapping: resolveMapping(mapping, ',') });
    const german = (extra: Record<string, string>) => site({ lon: '8,4', ...extra });
    const outcomes = await runRows(job, [
      german({ minutes: '', metres: '1.500' }),
      german({ minutes: '', metres: '1,500' }),
      german({ minutes: '', metres: '1.500.000,25' }),
      german({ minutes: '12,5' }),
      german({ minutes: '', metres: '15.00' }),
      site({ minutes: '10' }),
      german({ minutes: '10', grid: '3,5e1' }),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok', 'ok', 'FIELD_INVALID', 'FIELD_INVALID', 'ok']);
    expect(outcomes[4]?.status === 'failed' && outcomes[4].issue).toMatchObject({
      stage: 'input',
      field: 'metres',
      message:
        'metres: expected a number written with input.decimal "," (`.` only between groups of three digits, ' +
        'as in 1.500.000,25), got `15.00`',
    });
    expect(outcomes[5]?.status === 'failed' && outcomes[5].issue).toMatchObject({
      field: 'lon',
      message: expect.stringContaining('written with input.decimal ","'),
    });
    expect(client.calls.map((c) => c.options)).toMatchObject([
      { distanceInMeters: 1500 },
      { distanceInMeters: 1.5 },
      { distanceInMeters: 1500000.25 },
      { timeInMinutes: 12.5 },
      { timeInMinutes: 10, isochroneGrid: 35 },
    ]);
  });

  it('sends each distinct point, reach and grid once', async () => {
    const client = fakeClient();
    const job = createIsochroneJob(client, { mapping, speedProfile: 'PEDESTRIAN' });
    await runRows(job, [site(), site(), site({ grid: '80' }), site({ minutes: '', metres: '15' }), site()]);
    expect(client.calls).toHaveLength(3);
    expect(client.calls[0]?.options).toMatchObject({ speedProfile: 'PEDESTRIAN', timeInMinutes: 15 });
  });

  it('turns the rings the RFC 7946 way (exterior counter-clockwise, holes clockwise) and gives the area', async () => {
    const job = createIsochroneJob(fakeClient(), { mapping, wkt: true });
    const record = recordOf((await runRows(job, [site()]))[0]);
    const [outer, hole] = (record.geometry as Polygon).coordinates as [Position[], Position[]];
    expect(signed(outer)).toBeGreaterThan(0);
    expect(signed(hole)).toBeLessThan(0);
    // 0.1° x 0.1° at 49°N is about 81.3 km², less the hole's 3.25 km².
    expect(record.columns.iso_area_km2).toBeGreaterThan(77.5);
    expect(record.columns.iso_area_km2).toBeLessThan(78.5);
    expect(String(record.columns.iso_wkt)).toMatch(
      /^POLYGON \(\(8 49, 8\.1 49, 8\.1 49\.1, 8 49\.1, 8 49\), \(/,
    );
  });

  it('refuses a mapping with neither minutes nor metres before any row is read', () => {
    let error: unknown;
    try {
      isochroneKind.create({ client: fakeClient() as never, mapping: {}, options: {} } as never);
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('CONFIG_INVALID');
    expect(isGeobatchError(error) && error.context.path).toBe('mapping.minutes');
  });
});

describe('isochrone job against the emulator', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(async () => {
    await r.stop();
  });

  it('writes a valid RFC 7946 polygon whose area is the circle the drive time reaches', async () => {
    const job = createIsochroneJob(r.client, { mapping });
    const outcomes = await runRows(job, [site({ grid: '150' }), site({ minutes: '', metres: '100001' })]);
    const record = recordOf(outcomes[0]);
    const polygon = record.geometry as Polygon;
    check(
      JSON.stringify({
        type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: polygon, properties: {} }],
      }),
    );
    expect(signed(polygon.coordinates[0] ?? [])).toBeGreaterThan(0);
    // FAST: 90 km/h for 15 minutes over a detour of 1.3 -> a circle of 17.3 km.
    const radiusKm = (90 * 0.25) / 1.3;
    expect(Number(record.columns.iso_area_km2) / (Math.PI * radiusKm ** 2)).toBeCloseTo(1, 2);
    // The emulator refuses more than 100 km: that row alone fails, with the service's report.
    expect(outcomes[1]).toMatchObject({
      status: 'failed',
      issue: { code: 'HTTP_STATUS', status: 400, stage: 'request' },
    });
  });
});

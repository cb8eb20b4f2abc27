import { describe, expect, it } from 'vitest';
import { CRS84, ROUTING_MAX_POINTS, routingResponseSchema } from '../../src/contract/index.js';
import type { Json } from './_helpers.js';
import { postJson, useEmulator } from './_helpers.js';

const emulator = useEmulator();
const KARLSRUHE = [8.4278, 49.01334];
const BERLIN = [13.4058, 52.5191];
const MUNICH = [11.5768, 48.1368];

const point = (coordinates: number[], properties: Record<string, unknown> = {}) => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates },
  properties,
});
const multi = (coordinates: number[][], properties: Record<string, unknown> = {}) => ({
  type: 'Feature',
  geometry: { type: 'MultiPoint', coordinates },
  properties,
});
const body = (routingparams: Record<string, unknown>, features: unknown[]) => ({
  type: 'FeatureCollection',
  routingparams,
  authentication: { channel: 'test' },
  crs: CRS84,
  features,
});

async function route(payload: unknown, query?: string) {
  const e = emulator();
  const res = await postJson(`${e.urls.geojson}/route?${query ?? `apiKey=${e.credentials.apiKey}`}`, payload);
  if (res.status === 200) expect(routingResponseSchema.safeParse(res.json).success).toBe(true);
  return { ...res, body: res.json as Json };
}

/** Independent great-circle distance (mean radius 6371008.8 m). */
function greatCircle(a: number[], b: number[]): number {
  const rad = Math.PI / 180;
  const [lon1 = 0, lat1 = 0] = a;
  const [lon2 = 0, lat2 = 0] = b;
  const h =
    Math.sin(((lat2 - lat1) * rad) / 2) ** 2 +
    Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(((lon2 - lon1) * rad) / 2) ** 2;
  return 2 * 6371008.8 * Math.asin(Math.sqrt(h));
}

const isochrone = (params: Record<string, unknown>) =>
  route(body({ type: 'ISOCHRONE', timeInMinutes: 15, ...params }, [point(KARLSRUHE)]));

describe('routing authentication and request checks', () => {
  it('answers 412 without apiKey, 401 with a wrong one, 400 for malformed JSON', async () => {
    const payload = body({ type: 'ROUTE' }, [point(KARLSRUHE), point(BERLIN)]);
    expect((await route(payload, '')).status).toBe(412);
    expect((await route(payload, 'apiKey=wrong')).status).toBe(401);
    expect((await route('{"type": "FeatureCollection",')).status).toBe(400);
  });

  it.each([
    ['an unknown type', body({ type: 'FLY' }, [point(KARLSRUHE), point(BERLIN)])],
    ['ROUTE with one point', body({ type: 'ROUTE' }, [point(KARLSRUHE)])],
    ['ROUTE with a MultiPoint', body({ type: 'ROUTE' }, [multi([KARLSRUHE, BERLIN]), point(BERLIN)])],
    ['MATRIX without StartPoint', body({ type: 'MATRIX' }, [point(KARLSRUHE), multi([BERLIN])])],
    [
      'MATRIX with Point ends',
      body({ type: 'MATRIX' }, [point(KARLSRUHE, { type: 'StartPoint' }), point(BERLIN)]),
    ],
    ['TRIP with one point', body({ type: 'TRIP' }, [multi([KARLSRUHE])])],
    ['TRIP with Points', body({ type: 'TRIP' }, [point(KARLSRUHE), point(BERLIN)])],
    [
      'ISOCHRONE with two points',
      body({ type: 'ISOCHRONE', timeInMinutes: 5 }, [point(KARLSRUHE), point(BERLIN)]),
    ],
    [
      'MATCH with a LineString',
      body({ type: 'MATCH' }, [
        {
          type: 'Feature',
          geometry: { type: 'LineString', coordinates: [KARLSRUHE, BERLIN] },
          properties: {},
        },
      ]),
    ],
    ['a latitude out of range', body({ type: 'ROUTE' }, [point([8, 91]), point(BERLIN)])],
    [
      'an unknown coordFormatOut',
      body({ type: 'ROUTE', coordFormatOut: 'UTM' }, [point(KARLSRUHE), point(BERLIN)]),
    ],
    [
      'an unknown speedProfile',
      body({ type: 'ROUTE', speedProfile: 'ROCKET' }, [point(KARLSRUHE), point(BERLIN)]),
    ],
    [
      'an isoLocale that is no locale',
      body({ type: 'ROUTE', isoLocale: 'english' }, [point(KARLSRUHE), point(BERLIN)]),
    ],
    [
      'an isoLocale that is no text',
      body({ type: 'ROUTE', isoLocale: 44 }, [point(KARLSRUHE), point(BERLIN)]),
    ],
  ])('answers 400 for %s', async (_, payload) => {
    const res = await route(payload);
    expect(res.status).toBe(400);
    expect(res.body.publicReport).toEqual(expect.any(String));
  });

  it('takes an isoLocale such as en-GB, the language of route instructions, on every type', async () => {
    const payloads = [
      body({ type: 'ROUTE', isoLocale: 'en-GB' }, [point(KARLSRUHE), point(BERLIN)]),
      body({ type: 'TRIP', isoLocale: 'fr-FR' }, [multi([KARLSRUHE, BERLIN, MUNICH])]),
      body({ type: 'MATCH', isoLocale: 'de-DE' }, [multi([KARLSRUHE, [8.43, 49.015]])]),
      body({ type: 'ISOCHRONE', timeInMinutes: 5, isoLocale: 'en-GB' }, [point(KARLSRUHE)]),
      body({ type: 'MATRIX', isoLocale: 'en-GB' }, [
        point(KARLSRUHE, { type: 'StartPoint' }),
        multi([BERLIN]),
      ]),
    ];
    for (const payload of payloads) expect((await route(payload)).status).toBe(200);
    const report = (
      await route(body({ type: 'ROUTE', isoLocale: 'english' }, [point(KARLSRUHE), point(BERLIN)]))
    ).body.publicReport;
    expect(report).toContain('isoLocale');
  });
});

describe('routing limits', () => {
  it('accepts 1000 matrix end points and rejects 1001', async () => {
    const ends = (n: number) => Array.from({ length: n }, (_, i) => [8 + i / 1000, 49]);
    const start = point(KARLSRUHE, { type: 'StartPoint' });
    const ok = await route(body({ type: 'MATRIX' }, [start, multi(ends(ROUTING_MAX_POINTS))]));
    expect(ok.body.features).toHaveLength(ROUTING_MAX_POINTS);
    expect((await route(body({ type: 'MATRIX' }, [start, multi(ends(ROUTING_MAX_POINTS + 1))]))).status).toBe(
      400,
    );
  });
});

describe('routing computations', () => {
  it('routes along the great circle times the detour factor, at the profile speed', async () => {
    const res = await route(body({ type: 'ROUTE', speedProfile: 'FAST' }, [point(KARLSRUHE), point(BERLIN)]));
    expect(res.status).toBe(200);
    const expected = greatCircle(KARLSRUHE, BERLIN) * 1.3;
    expect(res.body.properties.distance).toBe(Math.round(expected));
    expect(res.body.properties.duration).toBe(Math.round(expected / (90 / 3.6)));
    const line = res.body.features[0];
    expect(line.geometry.type).toBe('LineString');
    expect(line.geometry.coordinates).toEqual([KARLSRUHE, BERLIN]);
    expect(Number.isInteger(line.properties.distance)).toBe(true);
  });

  it('answers one feature per matrix end point, in request order', async () => {
    const res = await route(
      body({ type: 'MATRIX', speedProfile: 'PEDESTRIAN' }, [
        point(KARLSRUHE, { type: 'StartPoint' }),
        multi([BERLIN, MUNICH, KARLSRUHE]),
      ]),
    );
    expect(res.body.features.map((f: Json) => f.properties.index)).toEqual([0, 1, 2]);
    expect(res.body.features.map((f: Json) => f.geometry.coordinates)).toEqual([BERLIN, MUNICH, KARLSRUHE]);
    const [berlin, munich, self] = res.body.features.map((f: Json) => f.properties);
    expect(berlin.distance).toBe(Math.round(greatCircle(KARLSRUHE, BERLIN) * 1.15));
    expect(berlin.distance).toBeGreaterThan(munich.distance);
    expect(self).toMatchObject({ distance: 0, duration: 0 });
    expect(berlin.duration).toBe(Math.round((greatCircle(KARLSRUHE, BERLIN) * 1.15) / (4.8 / 3.6)));
  });

  it('visits trip points nearest first and returns to the start for a round trip', async () => {
    const points = [KARLSRUHE, BERLIN, MUNICH, [8.68, 50.11]];
    const open = await route(body({ type: 'TRIP' }, [multi(points)]));
    expect(open.body.features[0].properties.order).toEqual([0, 3, 2, 1]);
    const round = await route(body({ type: 'TRIP', routingRoundTrip: true }, [multi(points)]));
    expect(round.body.features[0].properties.order).toEqual([0, 3, 2, 1, 0]);
    expect(round.body.properties.distance).toBeGreaterThan(open.body.properties.distance);
  });

  it('finds no road to a point off the network: a swapped point is refused, not routed over the sea', async () => {
    const swapped = [BERLIN[1] as number, BERLIN[0] as number]; // 52.5°E 13.4°N, in Eritrea
    const cases: [string, unknown[]][] = [
      ['ROUTE', [point(KARLSRUHE), point(swapped)]],
      ['MATRIX', [point(KARLSRUHE, { type: 'StartPoint' }), multi([MUNICH, swapped])]],
      ['TRIP', [multi([KARLSRUHE, MUNICH, swapped])]],
      ['ISOCHRONE', [point(swapped)]],
    ];
    for (const [type, features] of cases) {
      const params = type === 'ISOCHRONE' ? { type, timeInMinutes: 10 } : { type };
      const res = await route(body(params, features));
      expect({ type, status: res.status }).toEqual({ type, status: 400 });
      expect(JSON.stringify(res.body)).toContain('(52.5191, 13.4058) liegt außerhalb des Straßennetzes');
    }
    // Europe beyond Germany is on the network: Paris to Vienna routes.
    expect((await route(body({ type: 'ROUTE' }, [point([2.35, 48.85]), point([16.37, 48.21])]))).status).toBe(
      200,
    );
  });

  it('writes output coordinates in the requested coordFormatOut', async () => {
    const coords = async (coordFormatOut: string) =>
      (await route(body({ type: 'ROUTE', coordFormatOut }, [point(KARLSRUHE), point(BERLIN)]))).body
        .features[0].geometry.coordinates;
    const [ska, sber] = await coords('SUPERKONFORM');
    expect(ska[0]).toBeCloseTo(5085871.0, -1);
    expect(ska[1]).toBeCloseTo(3348184.5, -1);
    expect(sber[0]).toBeCloseTo(5429479.1, -1);
    expect(sber[1]).toBeCloseTo(3740276.4, -1);
    expect((await coords('GEODECIMAL'))[0]).toEqual([842780, 4901334]);
    const [mka] = await coords('MERCATOR');
    expect(mka[0]).toBeCloseTo((6371000 * (KARLSRUHE[0] as number) * Math.PI) / 180, 1);
  });
});

describe('isochrones', () => {
  it.each([0, 61, -5])('rejects timeInMinutes %s', async (timeInMinutes) => {
    expect((await isochrone({ timeInMinutes })).status).toBe(400);
  });

  it('accepts timeInMinutes 60 and draws a polygon with the origin', async () => {
    const res = await isochrone({ timeInMinutes: 60, speedProfile: 'SLOW' });
    expect(res.status).toBe(200);
    const [polygon, origin] = res.body.features;
    expect(polygon.geometry.type).toBe('Polygon');
    expect(polygon.properties).toMatchObject({ type: 'isochrone', timeInMinutes: 60 });
    expect(origin).toMatchObject({
      geometry: { type: 'Point', coordinates: KARLSRUHE },
      properties: { type: 'origin' },
    });
    const radius = ((60 / 3.6) * 3600) / 1.3;
    const ring = polygon.geometry.coordinates[0];
    for (const p of ring) expect(greatCircle(KARLSRUHE, p)).toBeCloseTo(radius, -1);
  });

  it.each(['34', '151', 'fine', '50.5'])('rejects isochroneGrid %s', async (isochroneGrid) => {
    expect((await isochrone({ isochroneGrid })).status).toBe(400);
  });

  it.each(['35', '150'])('accepts isochroneGrid %s as the number of vertices', async (isochroneGrid) => {
    const res = await isochrone({ isochroneGrid });
    expect(res.status).toBe(200);
    expect(res.body.features[0].geometry.coordinates[0]).toHaveLength(Number(isochroneGrid) + 1);
  });

  it('needs exactly one of timeInMinutes and distanceInMeters', async () => {
    expect((await isochrone({ distanceInMeters: 5000 })).status).toBe(400);
    expect((await isochrone({ timeInMinutes: null })).status).toBe(400);
    const byDistance = await isochrone({ timeInMinutes: null, distanceInMeters: 13000 });
    expect(byDistance.status).toBe(200);
    expect(greatCircle(KARLSRUHE, byDistance.body.features[0].geometry.coordinates[0][0])).toBeCloseTo(
      10000,
      -1,
    );
  });
});

describe('map matching', () => {
  it('snaps points in Germany and leaves points abroad unmatched', async () => {
    const points = [
      [8.40371, 49.00687],
      [8.41012, 49.00921],
      [2.35, 48.85],
    ];
    const res = await route(body({ type: 'MATCH' }, [multi(points)]));
    expect(res.status).toBe(200);
    const [line] = res.body.features;
    const dest = line.properties.matchDestinations;
    expect(dest.map((d: Json) => d.isMatched)).toEqual([true, true, false]);
    expect(dest[0].inPoint).toEqual({ type: 'Point', coordinates: points[0] });
    expect(dest[0].matchedPoint.coordinates).toEqual([8.4035, 49.007]);
    expect(dest[0].distance).toBeGreaterThan(0);
    expect(dest[0].distance).toBeLessThan(50);
    expect(line.geometry.type).toBe('LineString');
    expect(line.geometry.coordinates).toHaveLength(2);
    expect(res.body.properties.distance).toBe(line.properties.distance);
    expect(res.body.properties.distance).toBeGreaterThan(400);
  });
});

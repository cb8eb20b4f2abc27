import { readFileSync } from 'node:fs';
import { getIssues } from '@placemarkio/check-geojson';
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import type { Feature, FeatureCollection, MultiPolygon, Polygon, Position } from 'geojson';
import { describe, expect, it } from 'vitest';
import { AREA_MAX_POINTS, areaResponseSchema } from '../../src/contract/index.js';
import { source } from '../../src/emulator/area/params.js';
import type { Json } from './_helpers.js';
import { getJson, postJson, useEmulator } from './_helpers.js';

const emulator = useEmulator();
const MUNICH = { latitude: 48.137, longitude: 11.575 };

async function area(method: 'GET' | 'POST', endpoint: string, query: string, body?: unknown) {
  const e = emulator();
  const url = `${e.urls.area}/api/v2/Boundaries/${endpoint}?apiKey=${e.credentials.apiKey}&${query}`;
  const res = method === 'GET' ? await getJson(url) : await postJson(url, body ?? {});
  if (res.status === 200) {
    expect(areaResponseSchema.safeParse(res.json).success).toBe(true);
    expect(getIssues(res.text)).toEqual([]);
  }
  return { ...res, body: res.json as Json };
}

const keys = (res: { body: Json }) => res.body.features.map((f: Json) => f.properties.key);

function vertexCount(geometry: Json): number {
  return JSON.stringify(geometry.coordinates).split('],[').length;
}

describe('area authentication and validation', () => {
  it('answers 401 without or with a wrong apiKey', async () => {
    const base = `${emulator().urls.area}/api/v2/Boundaries/point?level=4&latitude=48&longitude=11`;
    expect((await getJson(base)).status).toBe(401);
    expect((await getJson(`${base}&apiKey=wrong`)).status).toBe(401);
  });

  it.each([
    ['a missing level', 'latitude=48&longitude=11'],
    ['a level that is no integer', 'level=abc&latitude=48&longitude=11'],
    ['a missing latitude', 'level=4&longitude=11'],
    ['reduceGeometry above 1', 'level=4&latitude=48&longitude=11&reduceGeometry=1.5'],
    ['reduceGeometry below 0', 'level=4&latitude=48&longitude=11&reduceGeometry=-0.1'],
  ])('answers 400 for %s', async (_, query) => {
    const res = await area('GET', 'point', query);
    expect(res.status).toBe(400);
    expect(res.body.publicReport).toEqual(expect.any(String));
  });

  it('accepts 1000 points in one POST and rejects 1001', async () => {
    const points = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ latitude: 48 + i / 1000, longitude: 11 }));
    expect((await area('POST', 'point', '', { level: 4, points: points(AREA_MAX_POINTS) })).status).toBe(200);
    expect((await area('POST', 'point', '', { level: 4, points: points(AREA_MAX_POINTS + 1) })).status).toBe(
      400,
    );
  });

  it('answers 400 for malformed JSON and for a bad point, naming its index', async () => {
    expect((await area('POST', 'point', '', '{"level": 4,')).status).toBe(400);
    const res = await area('POST', 'point', '', {
      level: 4,
      points: [MUNICH, { latitude: 95, longitude: 1 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.publicReport).toContain('points[1]');
  });
});

describe('area by point', () => {
  it('finds the state covering Munich at level 4, with the documented properties', async () => {
    const res = await area(
      'GET',
      'point',
      `level=4&latitude=${MUNICH.latitude}&longitude=${MUNICH.longitude}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.features).toHaveLength(1);
    expect(res.body.features[0].properties).toEqual({
      osmid: 40009000,
      level: 4,
      name: 'Bayern',
      names: { de: 'Bayern' },
      isoCountry: 'DE',
      iso3166_2: 'DE-BY',
      key: '09',
      kind: 'Freistaat',
      postalCode: null,
    });
    const [west, south, east, north] = res.body.bbox;
    expect([west, south, east, north].every(Number.isFinite)).toBe(true);
    expect(west).toBeLessThan(MUNICH.longitude);
    expect(east).toBeGreaterThan(MUNICH.longitude);
    const first = res.body.features[0].geometry.coordinates.flat(3).slice(0, 2);
    expect(first[0]).toBeLessThan(first[1]);
  });

  it('finds the district at level 6 and the country at level 2', async () => {
    const q = `latitude=${MUNICH.latitude}&longitude=${MUNICH.longitude}`;
    expect(keys(await area('GET', 'point', `level=6&${q}`))).toEqual(['09162']);
    expect(keys(await area('GET', 'point', `level=2&${q}`))).toEqual(['0']);
  });

  it('answers an empty collection for other levels and for points outside Germany', async () => {
    expect((await area('GET', 'point', 'level=5&latitude=48.137&longitude=11.575')).body.features).toEqual(
      [],
    );
    expect((await area('GET', 'point', 'level=4&latitude=48.85&longitude=2.35')).body.features).toEqual([]);
  });

  it('returns each covering area once for many points, ignoring points outside', async () => {
    const points = [
      MUNICH,
      { latitude: 49.45, longitude: 11.08 },
      { latitude: 49.0, longitude: 8.4 },
      { latitude: 48.85, longitude: 2.35 },
    ];
    const res = await area('POST', 'point', '', { level: 4, points });
    expect(keys(res).sort()).toEqual(['08', '09']);
  });

  it('gives a point on a shared border to the area with the lowest key', async () => {
    const states = JSON.parse(
      readFileSync(new URL('../../src/emulator/data/de_states_vg5000_2021.geojson', import.meta.url), 'utf8'),
    ) as FeatureCollection<Polygon | MultiPolygon>;
    const byKey = (k: string) =>
      states.features.find((f) => f.properties?.ars === k) as Feature<Polygon | MultiPolygon>;
    const bw = byKey('08');
    const by = byKey('09');
    const inBw = new Set(JSON.stringify(bw.geometry.coordinates).match(/\[[-\d.]+,[-\d.]+\]/g));
    const shared = (JSON.stringify(by.geometry.coordinates).match(/\[[-\d.]+,[-\d.]+\]/g) ?? []).find((p) =>
      inBw.has(p),
    );
    expect(shared).toBeDefined();
    const [lon, lat] = JSON.parse(shared as string) as Position;
    expect(booleanPointInPolygon([lon as number, lat as number], bw)).toBe(true);
    expect(booleanPointInPolygon([lon as number, lat as number], by)).toBe(true);
    const res = await area('GET', 'point', `level=4&latitude=${lat}&longitude=${lon}`);
    expect(keys(res)).toEqual(['08']);
  });

  it('simplifies geometries with reduceGeometry and zoom', async () => {
    const q = `level=4&latitude=${MUNICH.latitude}&longitude=${MUNICH.longitude}`;
    const full = await area('GET', 'point', q);
    const reduced = await area('GET', 'point', `${q}&reduceGeometry=1`);
    const zoomed = await area('GET', 'point', `${q}&zoom=4`);
    const n = vertexCount(full.body.features[0].geometry);
    expect(vertexCount(reduced.body.features[0].geometry)).toBeLessThan(n / 2);
    expect(vertexCount(zoomed.body.features[0].geometry)).toBeLessThan(n / 2);
  });

  it('reads comma-joined language lists and free-text channels of the GET form as such', () => {
    const get = source(
      new URLSearchParams('isoLanguages=de,en&isoCountries=DE&channel=nightly&level=4'),
      undefined,
    );
    expect(get('isoLanguages')).toEqual(['de', 'en']);
    expect(get('isoCountries')).toEqual(['DE']);
    expect(get('channel')).toBe('nightly');
    expect(get('level')).toBe(4);
  });

  it('takes isoLanguages as ISO 639-1 codes, GET and POST, and answers 400 for anything else', async () => {
    const q = `level=4&latitude=${MUNICH.latitude}&longitude=${MUNICH.longitude}`;
    expect((await area('GET', 'point', `${q}&isoLanguages=de,en`)).status).toBe(200);
    const post = await area('POST', 'point', '', { level: 4, isoLanguages: ['en'], points: [MUNICH] });
    expect(post.status).toBe(200);
    for (const bad of ['english', 'de,e1']) {
      const res = await area('GET', 'point', `${q}&isoLanguages=${bad}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain('isoLanguages');
    }
    const notList = await area('POST', 'point', '', { level: 4, isoLanguages: 'en', points: [MUNICH] });
    expect(notList.status).toBe(400);
  });

  it('answers an empty collection when isoCountries names no country with data', async () => {
    const res = await area('GET', 'point', `level=4&latitude=48.137&longitude=11.575&isoCountries=AT,CH`);
    expect(res.body.features).toEqual([]);
  });
});

describe('area by rectangle and by id', () => {
  it('finds the areas meeting a rectangle, in GET and POST form alike', async () => {
    const get = await area(
      'GET',
      'rectangle',
      'level=6&northEastLatitude=49.05&northEastLongitude=8.45&southWestLatitude=48.98&southWestLongitude=8.35',
    );
    const post = await area('POST', 'rectangle', '', {
      level: 6,
      boundingBox: {
        northEast: { latitude: 49.05, longitude: 8.45 },
        southWest: { latitude: 48.98, longitude: 8.35 },
      },
    });
    expect(keys(get)).toContain('08212');
    expect(keys(post)).toEqual(keys(get));
  });

  it('tests the real outline, not just the bounding box', async () => {
    // (9.0, 50.5) lies inside Bavaria's bounding box but in Hesse.
    const res = await area('POST', 'rectangle', '', {
      level: 4,
      boundingBox: {
        northEast: { latitude: 50.51, longitude: 9.01 },
        southWest: { latitude: 50.5, longitude: 9.0 },
      },
    });
    expect(keys(res)).toEqual(['06']);
  });

  it('rejects a rectangle whose corners are swapped', async () => {
    const res = await area('POST', 'rectangle', '', {
      level: 4,
      boundingBox: { northEast: { latitude: 48, longitude: 9 }, southWest: { latitude: 49, longitude: 10 } },
    });
    expect(res.status).toBe(400);
  });

  it('returns areas by osmid from the query and the body together', async () => {
    const res = await area('POST', 'osmid', 'osmid=40009000', { osmids: [60008212, 99999999] });
    expect(keys(res)).toEqual(['09', '08212']);
    const none = await area('POST', 'osmid', '', {});
    expect(none.status).toBe(400);
    const bad = await area('POST', 'osmid', '', { osmids: ['x'] });
    expect(bad.status).toBe(400);
  });
});

import { describe, expect, it } from 'vitest';
import type { ElevationResponse } from '../../src/contract/index.js';
import { ELEVATION_MAX_POINTS } from '../../src/contract/index.js';
import type { Json } from './_helpers.js';
import { getJson, postJson, useEmulator } from './_helpers.js';

const emulator = useEmulator();
const url = (query = '') => {
  const e = emulator();
  return `${e.urls.elevation}/api/v2/Elevation/point?apiKey=${e.credentials.apiKey}${query}`;
};

async function post(points: unknown) {
  const res = await postJson(url(), { points });
  return { ...res, body: res.json as Json };
}

describe('elevation', () => {
  it('answers 401 without or with a wrong apiKey', async () => {
    const base = `${emulator().urls.elevation}/api/v2/Elevation/point?latitude=50&longitude=10`;
    expect((await getJson(base)).status).toBe(401);
    expect((await getJson(`${base}&apiKey=wrong`)).status).toBe(401);
  });

  it('reads the Grosser Beerberg from the SRTM tile: 983 m', async () => {
    const res = await getJson(url('&latitude=50.6583&longitude=10.7442'));
    expect(res.status).toBe(200);
    expect(res.json as ElevationResponse).toEqual({
      points: [{ latitude: 50.6583, longitude: 10.7442, elevation: 983 }],
    });
  });

  it('interpolates elsewhere in Germany from the places, in whole metres', async () => {
    const res = await getJson(url('&latitude=48.137&longitude=11.575'));
    const { elevation } = (res.json as ElevationResponse).points[0] ?? {};
    expect(Number.isInteger(elevation)).toBe(true);
    expect(elevation).toBeGreaterThan(480);
    expect(elevation).toBeLessThan(560);
  });

  it('answers null outside Germany', async () => {
    const res = await post([
      { latitude: 48.85, longitude: 2.35 },
      { latitude: 54.5, longitude: 6.0 },
    ]);
    expect(res.body.points.map((p: Json) => p.elevation)).toEqual([null, null]);
  });

  it('accepts exactly 500 points and answers them in request order', async () => {
    const points = Array.from({ length: ELEVATION_MAX_POINTS }, (_, i) => ({
      latitude: 50.1 + i / 1000,
      longitude: 10.5,
    }));
    const res = await post(points);
    expect(res.status).toBe(200);
    expect(res.body.points).toHaveLength(500);
    expect(res.body.points.map((p: Json) => p.latitude)).toEqual(points.map((p) => p.latitude));
    for (const p of res.body.points) expect(Number.isInteger(p.elevation)).toBe(true);
  });

  it('rejects 501 points, naming the limit', async () => {
    const points = Array.from({ length: ELEVATION_MAX_POINTS + 1 }, () => ({
      latitude: 50.5,
      longitude: 10.5,
    }));
    const res = await post(points);
    expect(res.status).toBe(400);
    expect(res.body.publicReport).toContain('500');
  });

  it.each([
    ['no points', []],
    [
      'a latitude out of range at index 2',
      [
        { latitude: 50, longitude: 10 },
        { latitude: 51, longitude: 10 },
        { latitude: 90.5, longitude: 10 },
      ],
    ],
    ['a longitude that is a string at index 0', [{ latitude: 50, longitude: '10' }]],
  ])('rejects the whole request for %s', async (name, points) => {
    const res = await post(points);
    expect(res.status).toBe(400);
    const index = /index (\d)/.exec(name)?.[1];
    if (index) expect(res.body.publicReport).toContain(`points[${index}]`);
  });

  it('rejects malformed JSON and a GET without coordinates', async () => {
    expect((await postJson(url(), '{"points": [')).status).toBe(400);
    expect((await getJson(url('&latitude=50'))).status).toBe(400);
  });
});

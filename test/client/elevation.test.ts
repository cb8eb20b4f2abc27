import { describe, expect, it } from 'vitest';
import { readElevations } from '../../src/client/elevation.js';
import type { LonLat } from '../../src/types.js';
import { fileRig } from './_emulator.js';

const r = fileRig();
const { seen } = r;

// The emulator's terrain tile covers N50..51, E10..11 (N50E010.hgt).
const inTile = (i: number): LonLat => [10.05 + (i % 25) * 0.035, 50.05 + Math.floor(i / 25) * 0.04];

describe('elevation against the emulator', () => {
  it('reads one point by GET, and null where there is no data', async () => {
    expect(await r.client.elevation.point([10.5, 50.5])).toEqual(expect.any(Number));
    expect(await r.client.elevation.point([2.35, 48.86])).toBeNull(); // Paris: outside the data
    expect(seen.at(-1)).toMatchObject({ method: 'GET', interface: 'elevation' });
  });

  it('answers a POST of many points in request order, matching the single-point answers', async () => {
    const points: LonLat[] = [
      [10.5, 50.5],
      [2.35, 48.86],
      [8.4, 49.0],
      [10.2, 50.9],
    ];
    const many = await r.client.elevation.points(points);
    const one = await Promise.all(points.map((p) => r.client.elevation.point(p)));
    expect(many).toEqual(one);
  });

  it('accepts a chunk of exactly 500 points', async () => {
    const points = Array.from({ length: 500 }, (_, i) => inTile(i));
    const values = await r.client.elevation.points(points);
    expect(values).toHaveLength(500);
    expect(values.every((v) => typeof v === 'number')).toBe(true);
  });

  it('refuses 501 points before sending anything', async () => {
    const before = r.emulator.stats().total;
    const points = Array.from({ length: 501 }, (_, i) => inTile(i));
    await expect(r.client.elevation.points(points)).rejects.toMatchObject({
      code: 'USAGE',
      context: { service: 'elevation', received: '501' },
    });
    expect(r.emulator.stats().total).toBe(before);
  });

  it('answers an empty list without a request', async () => {
    const before = r.emulator.stats().total;
    expect(await r.client.elevation.points([])).toEqual([]);
    expect(r.emulator.stats().total).toBe(before);
  });
});

describe('readElevations', () => {
  it.each([
    [
      'points with elevation (the emulator)',
      { points: [{ latitude: 1, longitude: 2, elevation: 115 }, { elevation: null }] },
    ],
    ['elevations as bare numbers', { elevations: [115, null] }],
    ['results with height', { results: [{ height: 115 }, { height: -32768 }] }],
    ['a top-level array with altitude', [{ altitude: '115' }, { altitude: -9999 }]],
    ['a top-level array of values', [{ value: 115 }, null]],
  ])('normalises %s', (_, json) => {
    expect(readElevations(json, 2)).toEqual([115, null]);
  });

  it('reads a single answer that is the value itself', () => {
    expect(readElevations({ latitude: 50, longitude: 10, elevation: 402 }, 1)).toEqual([402]);
    expect(readElevations(402, 1)).toEqual([402]);
  });

  it('names the list when it has the wrong length', () => {
    expect(() => readElevations({ points: [{ elevation: 1 }] }, 2)).toThrow(
      expect.objectContaining({
        code: 'RESPONSE_INVALID',
        context: expect.objectContaining({ path: 'points' }),
      }),
    );
  });

  it('names the entry that carries no readable value', () => {
    expect(() => readElevations({ points: [{ elevation: 1 }, { elevation: 'high' }] }, 2)).toThrow(
      expect.objectContaining({ context: expect.objectContaining({ path: 'points[1].elevation' }) }),
    );
    expect(() => readElevations({ points: [{ elevation: 1 }, { z: 3 }] }, 2)).toThrow(
      expect.objectContaining({ context: expect.objectContaining({ path: 'points[1]' }) }),
    );
  });

  it('refuses an answer with no list at all', () => {
    expect(() => readElevations({ status: 'ok' }, 2)).toThrow(
      expect.objectContaining({ code: 'RESPONSE_INVALID', context: expect.objectContaining({ path: '' }) }),
    );
  });
});

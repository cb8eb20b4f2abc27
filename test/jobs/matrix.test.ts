import { describe, expect, it } from 'vitest';
import type { ItemResult } from '../../src/engine/job.js';
import { ConfigError, ServiceError } from '../../src/errors.js';
import { pointKey } from '../../src/jobs/_fields.js';
import type { MatrixCell } from '../../src/jobs/_ports.js';
import { createMatrixJob, type PairItem } from '../../src/jobs/matrix.js';
import type { LonLat } from '../../src/types.js';
import { row, signal } from './_rows.js';

// Distance = 1000 x |dx| + |dy| (in degrees), so every cell is recognisable.
const client = {
  requests: [] as { origin: LonLat; count: number }[],
  routing: {
    matrix: async (origin: LonLat, destinations: readonly LonLat[]) => {
      client.requests.push({ origin, count: destinations.length });
      return destinations.map((d) => ({
        distance_m: Math.round(1000 * Math.abs(d[0] - origin[0]) + Math.abs(d[1] - origin[1])),
        duration_s: 1,
      }));
    },
  },
};

const destinations = Array.from({ length: 5 }, (_, i) => ({ id: `D${i}`, point: [9 + i, 50] as LonLat }));

describe('matrix job', () => {
  it('plans one item per destination in cross mode, grouped by origin and tiled', () => {
    const job = createMatrixJob(client, { mapping: {}, destinations, tileSize: 2 });
    const items = job.plan(row({ lon: '8', lat: '50' })) as PairItem[];
    expect(items).toHaveLength(5);
    expect(new Set(items.map((i) => job.batching?.group?.(i)))).toEqual(new Set(['8.000000,50.000000']));
    expect(job.batching?.maxItems).toBe(2);
  });

  it('stitches tiled answers back into one long-form record per destination, in order', async () => {
    const job = createMatrixJob(client, { mapping: {}, destinations, tileSize: 2 });
    const r = row({ lon: '8', lat: '50' });
    const items = job.plan(r) as PairItem[];
    const results = new Map<string, ItemResult<MatrixCell>>();
    for (let i = 0; i < items.length; i += 2) {
      for (const [k, v] of await job.execute(items.slice(i, i + 2), signal)) results.set(k, v);
    }
    const rendered = job.render(
      r,
      items.map((item) => results.get(job.key(item)) as ItemResult<MatrixCell>),
    );
    if (!rendered.ok) throw new Error('failed');
    expect(rendered.records.map((x) => [x.columns.destination_id, x.columns.distance_m])).toEqual([
      ['D0', 1000],
      ['D1', 2000],
      ['D2', 3000],
      ['D3', 4000],
      ['D4', 5000],
    ]);
    expect(rendered.records[0]?.geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [8, 50],
        [9, 50],
      ],
    });
  });

  it('reads origin and destination columns in pairs mode', () => {
    const mapping = {
      originLon: { column: 'from_lon' },
      originLat: { column: 'from_lat' },
      destinationLon: { column: 'to_lon' },
      destinationLat: { column: 'to_lat' },
    };
    const job = createMatrixJob(client, { mapping });
    expect(job.plan(row({ from_lon: '8', from_lat: '49', to_lon: '9', to_lat: '50' }))).toEqual([
      { origin: [8, 49], destination: [9, 50] },
    ]);
    expect(job.plan(row({ from_lon: '8', from_lat: '49', to_lon: '', to_lat: '50' }))).toMatchObject({
      code: 'FIELD_MISSING',
      field: 'to_lon',
    });
    expect(job.columns).toEqual(['distance_m', 'duration_s']);
  });

  it('names every empty point column of a pair in one message, the origin only when it alone is empty', () => {
    const mapping = {
      originLon: { column: 'from_lon' },
      originLat: { column: 'from_lat' },
      destinationLon: { column: 'to_lon' },
      destinationLat: { column: 'to_lat' },
    };
    const job = createMatrixJob(client, { mapping });
    expect(job.plan(row({ from_lon: '', from_lat: ' ', to_lon: '', to_lat: '' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'from_lon',
      message:
        "from_lon, from_lat, to_lon and to_lat: all empty; expected the origin's and the destination's longitude and latitude",
    });
    expect(job.plan(row({ from_lon: '', from_lat: '', to_lon: '9', to_lat: '50' }))).toEqual({
      code: 'FIELD_MISSING',
      field: 'from_lon',
      message: 'from_lon and from_lat: both empty; expected a longitude and a latitude',
    });
  });
});

/** A routing service that rejects (400) any tile holding a refused destination, as a router may. */
function refusingClient(refused: readonly LonLat[]) {
  const bad = new Set(refused.map(pointKey));
  const tiles: number[] = [];
  return {
    tiles,
    routing: {
      matrix: async (origin: LonLat, to: readonly LonLat[]) => {
        tiles.push(to.length);
        if (bad.has(pointKey(origin)) || to.some((d) => bad.has(pointKey(d))))
          throw new ServiceError('HTTP_STATUS', 'routing answered 400', { status: 400, attempts: 1 });
        return to.map((d) => ({ distance_m: Math.round(1000 * Math.abs(d[0] - origin[0])), duration_s: 1 }));
      },
    },
  };
}

describe('matrix job: a failing tile', () => {
  it('fails only the cells of a tile that failed, and writes every other pair of the origin', () => {
    const job = createMatrixJob(client, { mapping: {}, destinations, tileSize: 2 });
    const r = row({ lon: '8', lat: '50' });
    const failure = {
      code: 'RETRIES_EXHAUSTED',
      stage: 'request',
      status: 503,
      attempts: 6,
      message: 'gave up',
    } as const;
    const results: ItemResult<MatrixCell>[] = [0, 1, 2, 3, 4].map((i) =>
      i === 2 || i === 3 ? { ok: false, failure } : { ok: true, value: { distance_m: i, duration_s: i } },
    );
    const rendered = job.render(r, results);
    expect(rendered).toMatchObject({
      ok: false,
      failure: {
        code: 'RETRIES_EXHAUSTED',
        status: 503,
        message: '2 of 5 destinations failed (D2, D3): gave up',
      },
    });
    expect(
      rendered.records?.map((x) => [x.columns.destination_id, x.columns.distance_m, x.error ?? 'ok']),
    ).toEqual([
      ['D0', 0, 'ok'],
      ['D1', 1, 'ok'],
      ['D2', null, 'RETRIES_EXHAUSTED'],
      ['D3', null, 'RETRIES_EXHAUSTED'],
      ['D4', 4, 'ok'],
    ]);
  });

  it('splits a rejected tile until only the refused destination fails', async () => {
    const refused = destinations[3]?.point as LonLat;
    const service = refusingClient([refused]);
    const job = createMatrixJob(service, { mapping: {}, destinations, tileSize: 5 });
    const items = job.plan(row({ lon: '8', lat: '50' })) as PairItem[];
    const results = await job.execute(items, signal);
    expect(items.map((item) => results.get(job.key(item))?.ok)).toEqual([true, true, true, false, true]);
    expect(results.get(job.key(items[3] as PairItem))).toMatchObject({
      ok: false,
      failure: {
        code: 'ITEM_REJECTED',
        status: 400,
        message: 'the service rejected this destination: routing answered 400',
      },
    });
    expect(results.get(job.key(items[4] as PairItem))).toEqual({
      ok: true,
      value: { distance_m: 5000, duration_s: 1 },
    });
    expect(service.tiles[0]).toBe(5);
    expect(service.tiles.length).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(5)));
  });

  it('fails every pair of an origin the service refuses after one check of it, not each destination alone', async () => {
    const service = refusingClient([[-74, 40.7]]);
    const job = createMatrixJob(service, { mapping: {}, destinations, tileSize: 2 });
    const items = job.plan(row({ lon: '-74', lat: '40.7' })) as PairItem[];
    const results = new Map<string, ItemResult<MatrixCell>>();
    // Three tiles of one origin, at once as the engine sends them: one check between them.
    const tiles = [items.slice(0, 2), items.slice(2, 4), items.slice(4)];
    for (const part of await Promise.all(tiles.map((tile) => job.execute(tile, signal))))
      for (const [k, v] of part) results.set(k, v);
    expect(service.tiles).toEqual([2, 2, 1, 1]);
    const rendered = job.render(
      row({ lon: '-74', lat: '40.7' }),
      items.map((item) => results.get(job.key(item)) as ItemResult<MatrixCell>),
    );
    expect(!rendered.ok && rendered.failure.message).toBe(
      'the service rejected this origin: routing answered 400 (none of its 5 destinations could be asked)',
    );
    for (const item of items)
      expect(results.get(job.key(item))).toMatchObject({
        ok: false,
        failure: {
          code: 'ITEM_REJECTED',
          status: 400,
          message: 'the service rejected this origin: routing answered 400',
        },
      });
  });

  it('asks about the origin again after a check that failed otherwise (a passing 503), not keeping it', async () => {
    const refused = destinations[3]?.point as LonLat;
    const service = refusingClient([refused]);
    let checks = 0;
    const flaky = {
      routing: {
        matrix: async (origin: LonLat, to: readonly LonLat[]) => {
          // The origin to itself: the first check meets a 503 after its retries.
          if (to.length === 1 && pointKey(to[0] as LonLat) === pointKey(origin) && checks++ === 0) {
            service.tiles.push(1);
            throw new ServiceError('RETRIES_EXHAUSTED', 'routing still answered 503', {
              status: 503,
              attempts: 1,
            });
          }
          return service.routing.matrix(origin, to);
        },
      },
    };
    const job = createMatrixJob(flaky, { mapping: {}, destinations, tileSize: 5 });
    const items = job.plan(row({ lon: '8', lat: '50' })) as PairItem[];
    const first = await job.execute(items, signal).catch((e: unknown) => e);
    expect((first as ServiceError).code).toBe('RETRIES_EXHAUSTED');
    // The engine's second pass: the origin is asked about again, and only the refused destination fails.
    const again = await job.execute(items, signal);
    expect(items.map((item) => again.get(job.key(item))?.ok)).toEqual([true, true, true, false, true]);
    expect(checks).toBe(2);
  });

  it('lets a failure other than a rejection fail the tile as a whole', async () => {
    const failing = {
      routing: {
        matrix: async () => {
          throw new ServiceError('RETRIES_EXHAUSTED', 'gave up', { status: 503, attempts: 6 });
        },
      },
    };
    const job = createMatrixJob(failing, { mapping: {}, destinations, tileSize: 2 });
    const items = job.plan(row({ lon: '8', lat: '50' })) as PairItem[];
    await expect(job.execute(items.slice(0, 2), signal)).rejects.toMatchObject({ code: 'RETRIES_EXHAUSTED' });
  });
});

describe('matrix job: destinations', () => {
  it('refuses an empty destinations list, naming the file', () => {
    const build = () =>
      createMatrixJob(client, { mapping: {}, destinations: [], destinationsFile: 'stores.csv' });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow('stores.csv: holds no destination; a matrix needs at least one');
  });

  it('refuses pairs mode without destination columns instead of pairing each origin with itself', () => {
    let error: unknown;
    try {
      createMatrixJob(client, { mapping: {} });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', context: { path: 'options.destinations' } });
  });

  it('never reads a destination from the lon/lat columns that hold the origin', () => {
    const mapping = { destinationLon: { column: 'to_lon' }, destinationLat: { column: 'to_lat' } };
    const job = createMatrixJob(client, { mapping });
    expect(job.plan(row({ lon: '8', lat: '49', to_lon: '9', to_lat: '50' }))).toEqual([
      { origin: [8, 49], destination: [9, 50] },
    ]);
    expect(job.plan(row({ lon: '8', lat: '49' }))).toMatchObject({ code: 'FIELD_MISSING', field: 'to_lon' });
  });
});

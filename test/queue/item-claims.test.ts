/**
 * Items claimed among a run's workers, in a real PostgreSQL: one owner per item at a time, let go
 * by its owner or by time, and the chunks of two workers buying an item they both hold once.
 */
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CacheAnswers } from '../../src/cache/answers.js';
import type { AnswerLookup } from '../../src/engine/answers.js';
import { createCounters } from '../../src/engine/counters.js';
import type { ItemResult } from '../../src/engine/job.js';
import { CLAIM_MS, itemClaims } from '../../src/queue/_item-claims.js';
import { migrate, SCHEMA } from '../../src/queue/_schema.js';
import { SharedFlights } from '../../src/queue/_shared-flights.js';
import { deleteRun, endRun } from '../../src/queue/runs.js';
import { startPostgres, type TestPostgres } from '../cache/_postgres.js';

let server: TestPostgres;
let pool: pg.Pool;
let runs = 0;
let run = '';

beforeAll(async () => {
  server = await startPostgres();
  pool = new pg.Pool({ connectionString: await server.database(), max: 8 });
  pool.on('error', () => {});
  const client = await pool.connect();
  try {
    expect(await migrate(client)).toBe('ok');
  } finally {
    client.release();
  }
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

beforeEach(async () => {
  run = `run-${++runs}`;
  await pool.query(
    `INSERT INTO ${SCHEMA}.runs (id, job, kind, recipe, state, chunk_rows, coordinator)
     VALUES ($1, 'job.yaml', 'geocode', '{}', 'running', 100, 'test')`,
    [run],
  );
});

const KEYS = [
  'k',
  'k1',
  'k2',
  'k3',
  'k4',
  ...Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, '0')}`),
];

/** The claims of the run, by the keys they hash (the table keeps no item's key as it is). */
async function owners(): Promise<Record<string, string>> {
  const rows = await pool.query<{ key: string; owner: string }>(
    `SELECT key, owner FROM ${SCHEMA}.item_claims WHERE run = $1`,
    [run],
  );
  const byHash = new Map(KEYS.map((key) => [createHash('sha256').update(key).digest('base64url'), key]));
  const named = rows.rows.map((r) => [byHash.get(r.key) ?? `unknown ${r.key}`, r.owner] as const);
  return Object.fromEntries(named.sort(([a], [b]) => a.localeCompare(b)));
}

describe('itemClaims', () => {
  it('gives an item to one owner at a time, and takes it back when the owner lets go', async () => {
    const claims = itemClaims(pool, run);
    expect([...(await claims.claim('a', ['k1', 'k2']))]).toEqual([]);
    expect([...(await claims.claim('b', ['k3', 'k2']))]).toEqual(['k2']);
    // Claiming again what it holds is no conflict with itself.
    expect([...(await claims.claim('a', ['k1']))]).toEqual([]);
    expect(await owners()).toEqual({ k1: 'a', k2: 'a', k3: 'b' });
    expect([...(await claims.held(['k1', 'k2', 'k3', 'k4']))].sort()).toEqual(['k1', 'k2', 'k3']);
    await claims.release('a', ['k1']);
    // Another owner's claim is not let go by a.
    await claims.release('a', ['k3']);
    expect(await owners()).toEqual({ k2: 'a', k3: 'b' });
    await claims.release('a');
    expect(await owners()).toEqual({ k3: 'b' });
    expect([...(await claims.claim('c', ['k2', 'k3']))]).toEqual(['k3']);
  });

  it('hands over a claim whose time is up: its owner died or is held back', async () => {
    const claims = itemClaims(pool, run);
    await claims.claim('a', ['k']);
    await pool.query(`UPDATE ${SCHEMA}.item_claims SET until = clock_timestamp() - interval '1 second'`);
    expect([...(await claims.held(['k']))]).toEqual([]);
    expect([...(await claims.claim('b', ['k']))]).toEqual([]);
    expect(await owners()).toEqual({ k: 'b' });
  });

  it('renews the claims its owner still holds, and neither a lapsed one nor another owner’s', async () => {
    const claims = itemClaims(pool, run);
    await claims.claim('a', ['k1', 'k2']);
    await claims.claim('b', ['k3']);
    const hash = (key: string) => createHash('sha256').update(key).digest('base64url');
    const set = (key: string, interval: string) =>
      pool.query(
        `UPDATE ${SCHEMA}.item_claims SET until = clock_timestamp() + interval '${interval}' WHERE key = $1`,
        [hash(key)],
      );
    await set('k1', '1 second');
    await set('k2', '-1 second');
    await set('k3', '1 second');
    await claims.renew('a', ['k1', 'k2', 'k3']);
    const left = await pool.query<{ key: string; s: number }>(
      `SELECT key, extract(epoch FROM until - clock_timestamp())::float AS s FROM ${SCHEMA}.item_claims WHERE run = $1`,
      [run],
    );
    const seconds = Object.fromEntries(left.rows.map((r) => [r.key, r.s]));
    // k1 holds another CLAIM_MS; k2 stayed lapsed (another owner may have it); k3 is b's.
    expect(seconds[hash('k1')]).toBeGreaterThan(CLAIM_MS / 1000 - 2);
    expect(seconds[hash('k2')]).toBeLessThan(0);
    expect(seconds[hash('k3')]).toBeLessThan(1.01);
  });

  it('gives each item to exactly one of many owners claiming at once, without a deadlock', async () => {
    const claims = itemClaims(pool, run);
    const keys = Array.from({ length: 40 }, (_, i) => `k${String(i).padStart(2, '0')}`);
    // Overlapping sets in different orders: each owner wants every other key from its own start.
    const wants = Array.from({ length: 6 }, (_, o) =>
      keys.filter((_, i) => (i + o) % 2 === 0 || i % 7 === o).reverse(),
    );
    const others = await Promise.all(wants.map((want, o) => claims.claim(`o${o}`, want)));
    const table = await owners();
    wants.forEach((want, o) => {
      for (const key of want) {
        // What a claim says it got is what the table holds, and what it did not get is another's.
        if (others[o]?.has(key)) expect(table[key]).not.toBe(`o${o}`);
        else expect(table[key]).toBe(`o${o}`);
      }
    });
    expect(Object.keys(table).sort()).toEqual([...new Set(wants.flat())].sort());
  });

  it('claims an item whose key is longer than an index row holds', async () => {
    const claims = itemClaims(pool, run);
    // Incompressible: PostgreSQL would store a repetitive key compressed, small enough to index.
    const long = `Hauptstraße ${randomBytes(6000).toString('base64')}`;
    expect([...(await claims.claim('a', [long]))]).toEqual([]);
    expect([...(await claims.claim('b', [long]))]).toEqual([long]);
    expect([...(await claims.held([long]))]).toEqual([long]);
  });

  it('goes with its run, and when the run ends (an owner killed with -9 never lets go)', async () => {
    await itemClaims(pool, run).claim('a', ['k']);
    await endRun(pool, run, 'done');
    expect(await owners()).toEqual({});
    await itemClaims(pool, run).claim('a', ['k']);
    await deleteRun(pool, run);
    expect(await owners()).toEqual({});
  });
});

/** The request cache the workers share, in memory: what one writes, the other reads. */
function sharedCache() {
  const entries = new Map<string, ItemResult<unknown>>();
  const asked: string[][] = [];
  const rechecked: string[][] = [];
  const read = (items: readonly AnswerLookup[]) => {
    const found = new Map<string, ItemResult<unknown>>();
    for (const { key } of items) {
      const hit = entries.get(key);
      if (hit !== undefined) found.set(key, hit);
    }
    return found;
  };
  const cache: CacheAnswers = {
    async lookup(items) {
      asked.push(items.map((i) => i.key));
      return read(items);
    },
    async recheck(items) {
      rechecked.push(items.map((i) => i.key));
      return read(items);
    },
    remember(key, _item, result) {
      entries.set(key, result);
    },
  };
  return { cache, asked, rechecked };
}

const item = (key: string): AnswerLookup => ({ key, item: { key } });
const answer = (value: string): ItemResult<unknown> => ({ ok: true, value });
const failure: ItemResult<unknown> = {
  ok: false,
  failure: { stage: 'request', code: 'NETWORK', message: 'connection reset' },
};

describe('two workers sharing a cache', () => {
  it('buy an item both hold once: the second reads the first one’s answer once it is let go', async () => {
    const { cache, asked, rechecked } = sharedCache();
    const remote = itemClaims(pool, run);
    const a = new SharedFlights({ remote }).view(cache, createCounters());
    const b = new SharedFlights({ remote }).view(cache, createCounters());
    expect((await a.lookup([item('k1'), item('k2')])).size).toBe(0);
    const waiting = b.lookup([item('k1'), item('k3')]);
    // b claimed k3 and waits for k1, which a holds.
    while ((await owners()).k3 === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await owners()).toEqual({ k1: a.id, k2: a.id, k3: b.id });
    a.remember('k1', { key: 'k1' }, answer('A1'));
    expect(await waiting).toEqual(new Map([['k1', answer('A1')]]));
    expect(asked).toEqual([
      ['k1', 'k2'],
      ['k1', 'k3'],
    ]);
    // Each read again what it claimed, then b looked for k1 until a's answer was there.
    expect(rechecked.slice(0, 2)).toEqual([['k1', 'k2'], ['k3']]);
    expect(rechecked.slice(2).every((keys) => keys.length === 1 && keys[0] === 'k1')).toBe(true);
    // a holds its claims, answered or not, until its chunk ends; b's end lets go of k3.
    expect(await owners()).toEqual({ k1: a.id, k2: a.id, k3: b.id });
    await a.release();
    await b.release();
    expect(await owners()).toEqual({});
  });

  it('reads again what it claimed: the holder may have answered and let go between its read and its claim', async () => {
    const { cache } = sharedCache();
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    // b's read of the cache happens before a's answer, and comes back only after a let go.
    const late: CacheAnswers = {
      ...cache,
      async lookup(items) {
        const found = await cache.lookup(items);
        await gate;
        return found;
      },
    };
    const remote = itemClaims(pool, run);
    const a = new SharedFlights({ remote }).view(cache, createCounters());
    const b = new SharedFlights({ remote }).view(late, createCounters());
    await a.lookup([item('k')]);
    const behind = b.lookup([item('k')]);
    a.remember('k', { key: 'k' }, answer('A'));
    await a.release();
    open();
    expect(await behind).toEqual(new Map([['k', answer('A')]]));
  });

  it('keeps waiting while the holder’s request is held back longer than a claim lasts: bought once', async () => {
    const { cache, asked } = sharedCache();
    // Claims of 1 s, renewed every 250 ms by the holding chunk while its item is unanswered.
    const remote = itemClaims(pool, run, 1000);
    const a = new SharedFlights({ remote }).view(cache, createCounters());
    const b = new SharedFlights({ remote }).view(cache, createCounters());
    await a.lookup([item('k')]);
    let found: ReadonlyMap<string, ItemResult<unknown>> | undefined;
    const waiting = b.lookup([item('k')]).then((f) => {
      found = f;
    });
    // Three claims' time: without renewals b would have taken k over after the first.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(found).toBeUndefined();
    expect(await owners()).toEqual({ k: a.id });
    a.remember('k', { key: 'k' }, answer('A1'));
    await waiting;
    expect(found).toEqual(new Map([['k', answer('A1')]]));
    // b never claimed k for itself: only a read the cache for it before buying.
    expect(asked).toEqual([['k'], ['k']]);
    await a.release();
    await b.release();
  });

  it('takes over the item of a holder that died (no more renewals) once its claim lapses', async () => {
    const { cache } = sharedCache();
    const remote = itemClaims(pool, run, 300);
    // A worker killed with -9: its claim stays in the table, and nobody renews it.
    await remote.claim('dead', ['k']);
    const b = new SharedFlights({ remote }).view(cache, createCounters());
    const started = Date.now();
    expect((await b.lookup([item('k')])).size).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    // b asks the service itself (as after any lapse); the dead claim is swept when the run ends.
    expect([...(await remote.held(['k']))]).toEqual([]);
    await b.release();
  });

  it('sends the waiting worker to buy the item itself when the holder’s chunk ends unanswered', async () => {
    const { cache } = sharedCache();
    const remote = itemClaims(pool, run);
    const a = new SharedFlights({ remote }).view(cache, createCounters());
    const b = new SharedFlights({ remote }).view(cache, createCounters());
    await a.lookup([item('k')]);
    const waiting = b.lookup([item('k')]);
    await a.release();
    expect((await waiting).size).toBe(0);
  });

  it('stops waiting when its chunk stops', async () => {
    const { cache } = sharedCache();
    const remote = itemClaims(pool, run);
    const a = new SharedFlights({ remote }).view(cache, createCounters());
    const stop = new AbortController();
    const b = new SharedFlights({ remote }).view(cache, createCounters(), stop.signal);
    await a.lookup([item('k')]);
    const waiting = b.lookup([item('k')]);
    stop.abort();
    expect((await waiting).size).toBe(0);
    expect(await owners()).toEqual({ k: a.id });
  });

  it('lets go of a failed item soon, once the cache has written what it keeps of it', async () => {
    const { cache } = sharedCache();
    const remote = itemClaims(pool, run);
    let write: () => void = () => {};
    const written = () =>
      new Promise<void>((resolve) => {
        write = resolve;
      });
    const a = new SharedFlights({ remote, written }).view(cache, createCounters());
    await a.lookup([item('k')]);
    a.remember('k', { key: 'k' }, failure);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await owners()).toEqual({ k: a.id });
    write();
    while ((await owners()).k !== undefined) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await owners()).toEqual({});
  });
});

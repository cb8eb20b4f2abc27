import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { KindPolicy } from '../../src/cache/_kinds.js';
import type { Packing } from '../../src/cache/_packing.js';
import { createAnswerCache } from '../../src/cache/answers.js';
import { resolveLifetimes } from '../../src/cache/lifetimes.js';
import { openSqliteStore, type SqliteStore } from '../../src/cache/sqlite.js';
import { type CacheTally, createTally, RowCounts, subtractCacheCounts } from '../../src/cache/tally.js';
import { CacheWriter } from '../../src/cache/writer.js';
import type { CacheMode } from '../../src/config/cache.js';
import { createCounters } from '../../src/engine/counters.js';
import { processRows } from '../../src/engine/engine.js';
import type { Batching } from '../../src/engine/job.js';
import { isGeobatchError, ServiceError } from '../../src/errors.js';
import type { Outcome, Row } from '../../src/types.js';
import { type FakeItem, type FakeJobOptions, fakeInput, fakeJob, fakeRow } from '../engine/_fake.js';
import { memoryLogger } from '../fixtures/run-helpers.js';
import { entry, scope } from './_contract.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-answers-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 24 * 60 * 60 * 1000;
const POLICY: KindPolicy = {
  interface: 'geocoding',
  endpoint: 'geojson',
  operation: 'fake',
  presentation: [],
  notFound: (value) => value === 'v:nothing',
  format: 1,
};

interface Cache {
  store: SqliteStore;
  tally: CacheTally;
  logs: () => Record<string, unknown>[];
  /** Runs `rows` rows through the engine with the cache; every run gets a new fake job. */
  run(
    rows: number,
    job?: FakeJobOptions,
    options?: {
      mode?: CacheMode;
      now?: number;
      window?: number;
      runStartedAt?: number | (() => number);
      /** The run is expected to stop: its error is returned, not thrown. */
      stops?: boolean;
      /** The first row (a resumed session's): rows `from` to `rows - 1`. */
      from?: number;
    },
  ): Promise<{
    outcomes: Outcome[];
    calls: FakeItem[][];
    requestsSent: number;
    itemsSent: number;
    error?: unknown;
  }>;
}

function cache(path = join(dir, `c${++files}.sqlite`), maxBytes?: number, policy = POLICY): Cache {
  const store = openSqliteStore(path, { maxBytes }) as SqliteStore;
  const tally = createTally();
  const { logger, lines } = memoryLogger();
  return {
    store,
    tally,
    logs: lines,
    async run(rows, jobOptions = {}, options = {}) {
      const mode = options.mode ?? 'use';
      const job = fakeJob(jobOptions);
      const writer = mode === 'read-only' ? undefined : new CacheWriter(store, tally, logger);
      const answers = createAnswerCache({
        store,
        scope: scope(),
        policy,
        lifetimes: resolveLifetimes(),
        mode,
        writer,
        tally,
        logger,
        batching: job.batching,
        now: () => options.now ?? Date.now(),
        ...(options.runStartedAt === undefined ? {} : { runStartedAt: options.runStartedAt }),
      });
      const counters = createCounters();
      const outcomes: Outcome[] = [];
      const from = options.from ?? 0;
      const input =
        from === 0
          ? fakeInput(rows).items
          : (async function* () {
              for (let i = from; i < rows; i++) yield fakeRow(i);
            })();
      const engine = {
        concurrency: 4,
        window: options.window ?? 2048,
        answers,
        counters,
      };
      let error: unknown;
      try {
        for await (const outcome of processRows(input, job, engine)) outcomes.push(outcome);
      } catch (stopped) {
        if (options.stops !== true) throw stopped;
        error = stopped;
      }
      await writer?.flush();
      return {
        outcomes,
        calls: job.calls,
        requestsSent: counters.requestsSent,
        itemsSent: counters.itemsSent,
        ...(error === undefined ? {} : { error }),
      };
    },
  };
}

const keysOf = (calls: FakeItem[][]) => calls.flat().map((i) => i.key);

describe('answer cache in the engine', () => {
  it('answers a second run from the cache: no request, the same outcomes', async () => {
    const c = cache();
    const first = await c.run(300);
    expect(first.calls.flat()).toHaveLength(300);
    const second = await c.run(300);
    expect(second.calls).toEqual([]);
    expect(second.requestsSent).toBe(0);
    expect(second.outcomes).toEqual(first.outcomes);
    expect(c.tally).toMatchObject({ hits: 300, misses: 300, writes: 300, requestsSaved: 300 });
  });

  it('counts a miss when its request reaches the service, not when a row read ahead of a stop is looked up', async () => {
    const c = cache();
    const quota = (items: readonly FakeItem[]) =>
      items[0]?.key === 'k50' ? new ServiceError('QUOTA_EXCEEDED', 'HTTP 402', { status: 402 }) : undefined;
    // Every row is read and looked up at once; the 51st request is refused for good, and the run
    // stops with the requests after it in flight (never answered) and the rest never sent.
    const stopped = await c.run(300, { fail: quota, delay: () => 5 }, { stops: true });
    expect(isGeobatchError(stopped.error) && stopped.error.code).toBe('QUOTA_EXCEEDED');
    expect(stopped.itemsSent).toBeGreaterThanOrEqual(51);
    expect(stopped.itemsSent).toBeLessThan(60);
    expect(c.tally).toMatchObject({ hits: 0, misses: stopped.itemsSent });
    // The resume (here: the whole input again) finds the answers bought and asks for the rest:
    // over both sessions, every item is a hit or a miss once, but the one the quota refused
    // (sent by both).
    const resumed = await c.run(300);
    expect(resumed.requestsSent).toBe(300 - (stopped.itemsSent - 1));
    expect(c.tally.hits).toBe(stopped.itemsSent - 1);
    expect(c.tally.hits + c.tally.misses).toBe(300 + stopped.itemsSent);
    expect(c.tally.misses - stopped.itemsSent).toBe(resumed.itemsSent);
  });

  it('leaves the rows a stop caught in flight out of the counts a checkpoint carries', async () => {
    const c = cache();
    c.tally.rows = new RowCounts();
    const quota = (items: readonly FakeItem[]) =>
      items[0]?.key === 'k50' ? new ServiceError('QUOTA_EXCEEDED', 'HTTP 402', { status: 402 }) : undefined;
    // Rows past the refused one are answered before the stop (k50 answers last), but not written.
    const stopped = await c.run(
      300,
      { fail: quota, delay: (items) => (items[0]?.key === 'k50' ? 30 : 1) },
      { stops: true },
    );
    const committed = stopped.outcomes.length;
    expect(committed).toBe(50);
    expect(stopped.itemsSent).toBeGreaterThan(committed + 1);
    const carried = subtractCacheCounts(c.tally, c.tally.rows.from(committed));
    expect(carried).toMatchObject({ hits: 0, misses: committed });
    // The resume from row 50: answers bought past it are hits now, each row counted once.
    const resumed = cache(c.store.location);
    const rest = await resumed.run(300, {}, { from: committed });
    expect(rest.requestsSent).toBe(300 - (stopped.itemsSent - 1));
    expect(resumed.tally.hits + resumed.tally.misses).toBe(300 - committed);
    expect(carried.hits + carried.misses + resumed.tally.hits + resumed.tally.misses).toBe(300);
  });

  it('packs only the new items into requests: 1% changed rows cost 1 request of 100 items, not 100 small ones', async () => {
    const c = cache();
    const batching: Batching<FakeItem> = { maxItems: 100, lingerMs: 60_000 };
    // The window holds the whole input, so no batch leaves before it is full or the input ends.
    const first = await c.run(10_000, { batching }, { window: 20_000 });
    expect(first.calls).toHaveLength(100);
    const changed = (row: Row) => [row.ref.index % 100 === 0 ? `new${row.ref.index}` : `k${row.ref.index}`];
    const before = c.tally.requestsSaved;
    const second = await c.run(10_000, { batching, keys: changed }, { window: 20_000 });
    expect(second.calls).toHaveLength(1);
    expect(keysOf(second.calls)).toHaveLength(100);
    expect(keysOf(second.calls).every((k) => k.startsWith('new'))).toBe(true);
    // 9,900 hits packed 100 a request.
    expect(c.tally.requestsSaved - before).toBe(99);
  });

  it('counts a request saved once per key: a key hit again would have been answered by dedup, not bought', async () => {
    const c = cache();
    // 200 addresses, each on 10 rows spread over the file: the window (64 rows) never holds two
    // rows of one key, so each row is a lookup of its own and a hit.
    const repeated = (row: Row) => [`k${row.ref.index % 200}`];
    const first = await c.run(2000, { keys: repeated }, { window: 64 });
    expect(first.requestsSent).toBe(200);
    const hitsBefore = c.tally.hits;
    const second = await c.run(2000, { keys: repeated }, { window: 64 });
    expect(second.requestsSent).toBe(0);
    expect(c.tally.hits - hitsBefore).toBe(2000);
    // What the cache spared is what the first run bought, not one request a row.
    expect(c.tally.requestsSaved).toBe(200);
  });

  it('keeps a "nothing found" answer for a day only, and never a transport failure', async () => {
    const c = cache();
    const keys = (row: Row) => [row.ref.index === 0 ? 'nothing' : `k${row.ref.index}`];
    const fail = (items: readonly FakeItem[]) =>
      items.some((i) => i.key === 'k2')
        ? Object.assign(new Error('socket hang up'), { code: 'NETWORK' })
        : undefined;
    const now = Date.now();
    await c.run(4, { keys, fail, batching: undefined }, { now });
    expect((await c.store.getMany(scope(), ['nothing', 'k1', 'k2', 'k3'])).size).toBe(3);
    expect((await c.store.getMany(scope(), ['nothing'])).get('nothing')?.notFound).toBe(true);
    const later = await c.run(4, { keys }, { now: now + 2 * DAY });
    expect(keysOf(later.calls).sort()).toEqual(['k2', 'nothing']);
    expect(c.tally.expired).toBe(1);
  });

  it('refresh asks the service for everything and updates the entries; read-only never writes', async () => {
    const c = cache();
    await c.run(5, {}, { now: 1_000 });
    const refreshed = await c.run(5, {}, { mode: 'refresh' });
    expect(refreshed.calls.flat()).toHaveLength(5);
    expect((await c.store.getMany(scope(), ['k0'])).get('k0')?.createdAt).toBeGreaterThan(1_000);
    const readOnly = await c.run(8, {}, { mode: 'read-only' });
    expect(keysOf(readOnly.calls).sort()).toEqual(['k5', 'k6', 'k7']);
    expect((await c.store.getMany(scope(), ['k5'])).size).toBe(0);
  });

  it('refresh buys an item once per run: a later chunk of the run takes what the run wrote, never what was there before', async () => {
    const c = cache();
    await c.run(10, {}, { now: 1_000 });
    // Two chunks of one refresh run begun at 5,000 (a distributed run's workers make an answer
    // cache per chunk; a single run's far-apart repeats meet the same lookups once the dedup
    // window has let them go): the second holds the first's items and five more.
    const first = await c.run(10, {}, { mode: 'refresh', now: 6_000, runStartedAt: 5_000 });
    expect(keysOf(first.calls)).toHaveLength(10);
    const second = await c.run(15, {}, { mode: 'refresh', now: 7_000, runStartedAt: 5_000 });
    expect(keysOf(second.calls).sort()).toEqual(['k10', 'k11', 'k12', 'k13', 'k14']);
    expect(second.outcomes.every((o) => o.status === 'ok')).toBe(true);
    // Entries from before the run are replaced, not counted as expired.
    expect((await c.store.getMany(scope(), ['k0'])).get('k0')?.createdAt).toBe(6_000);
    expect(c.tally.expired).toBe(0);
  });

  it('refresh reads its start at each lookup: moved (a run started over), it takes nothing written before', async () => {
    const c = cache();
    await c.run(10, {}, { now: 1_000 });
    // A session of a refresh run begun at 5,000 bought k0..k9 at 6,000, then its checkpoint was set
    // aside (--restart-if-changed) and the run started over at 8,000.
    await c.run(10, {}, { mode: 'refresh', now: 6_000, runStartedAt: 5_000 });
    let started = 5_000;
    const restart = () => started;
    const again = c.run(10, {}, { mode: 'refresh', now: 9_000, runStartedAt: restart });
    started = 8_000;
    expect(keysOf((await again).calls)).toHaveLength(10);
    // What the run bought since it started over is taken, as any refresh takes its own answers.
    const later = await c.run(12, {}, { mode: 'refresh', now: 9_500, runStartedAt: restart });
    expect(keysOf(later.calls).sort()).toEqual(['k10', 'k11']);
  });

  it('an entry it cannot read is asked again, never rendered', async () => {
    const c = cache();
    await c.store.putMany([
      { ...entry(scope(), 'k0', null), value: '{"ok":true' },
      { ...entry(scope(), 'k1', null), value: '{"something":"else"}' },
    ]);
    const run = await c.run(2);
    expect(keysOf(run.calls).sort()).toEqual(['k0', 'k1']);
    expect(run.outcomes.every((o) => o.status === 'ok')).toBe(true);
  });

  it('with a packed form, keeps answers packed and reads packed and plain ones; another shape is asked again', async () => {
    const packing: Packing = {
      pack: (value) => (typeof value === 'string' ? [value] : undefined),
      unpack: ([value, ...more]) => (more.length === 0 && typeof value === 'string' ? value : undefined),
    };
    const c = cache(undefined, undefined, { ...POLICY, packing });
    const first = await c.run(4);
    const stored = await c.store.getMany(scope(), ['k0', 'k1', 'k2', 'k3']);
    expect([...stored.values()].map((e) => e.value)).toEqual([
      '["v:k0"]',
      '["v:k1"]',
      '["v:k2"]',
      '["v:k3"]',
    ]);
    await c.store.putMany([
      entry(scope(), 'k1', { ok: true, value: 'v:k1' }), // plain, as an older geobatch kept it
      { ...entry(scope(), 'k2', null), value: '["v:k2",1]' },
      { ...entry(scope(), 'k3', null), value: '{"0":"v:k3"}' },
    ]);
    const second = await c.run(4);
    expect(keysOf(second.calls).sort()).toEqual(['k2', 'k3']);
    expect(second.outcomes).toEqual(first.outcomes);
  });

  it('a full disk: the run finishes, every row ok, caching stops and says so once', async () => {
    const c = cache(join(dir, `full${++files}.sqlite`), 48 * 1024);
    const run = await c.run(3000, { keys: (row) => [`k${row.ref.index}-${'x'.repeat(100)}`] });
    expect(run.outcomes.filter((o) => o.status === 'ok')).toHaveLength(3000);
    expect(c.tally.writes).toBeLessThan(3000);
    expect(c.tally.problems).toHaveLength(1);
    expect(c.tally.problems[0]).toContain('the disk is full');
    expect(c.tally.problems[0]).toContain('the run goes on without caching');
    expect(c.logs().filter((l) => String(l.msg).includes('disk is full'))).toHaveLength(1);
  });

  it('a cache that cannot be read any more: the run goes on asking the service', async () => {
    const c = cache();
    await c.run(3);
    await c.store.close();
    const run = await c.run(3);
    expect(run.calls.flat()).toHaveLength(3);
    expect(run.outcomes.every((o) => o.status === 'ok')).toBe(true);
    expect(c.tally.problems[0]).toContain('reading failed');
  });

  it('reads again what another worker was buying: its answer counts as a hit; a miss is counted once sent', async () => {
    const c = cache();
    const { logger } = memoryLogger();
    const open = (mode: CacheMode, at: number) =>
      createAnswerCache({
        store: c.store,
        scope: scope(),
        policy: POLICY,
        lifetimes: resolveLifetimes(),
        mode,
        writer: new CacheWriter(c.store, c.tally, logger),
        tally: c.tally,
        logger,
        now: () => at,
      });
    const items = ['a', 'b'].map((key) => ({ key, item: { key } }));
    const answers = open('use', 1000);
    expect((await answers.lookup(items)).size).toBe(0);
    expect(c.tally).toMatchObject({ hits: 0, misses: 0 });
    // Another worker writes a's answer while this one waits.
    await c.store.putMany([entry(scope(), 'a', { ok: true, value: 'v:a' }, 1000)]);
    expect(await answers.recheck(items)).toEqual(new Map([['a', { ok: true, value: 'v:a' }]]));
    expect(c.tally).toMatchObject({ hits: 1, misses: 0, requestsSaved: 1 });
    // b is bought here: its request is its miss.
    answers.asked?.([items[1] as (typeof items)[number]]);
    expect(c.tally).toMatchObject({ hits: 1, misses: 1 });
    // A refresh run reads nothing from before it began, and takes what was written since.
    const refresh = open('refresh', 2000);
    expect((await refresh.lookup(items)).size).toBe(0);
    expect(c.tally.expired).toBe(0);
    expect((await refresh.recheck(items)).size).toBe(0);
    await c.store.putMany([entry(scope(), 'b', { ok: true, value: 'v:b' }, 2000)]);
    expect(await refresh.recheck(items)).toEqual(new Map([['b', { ok: true, value: 'v:b' }]]));
    refresh.asked?.([items[0] as (typeof items)[number]]);
    expect(c.tally).toMatchObject({ hits: 2, misses: 2 });
  });
});

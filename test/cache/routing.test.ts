/**
 * Trip and match are kept per request: the whole trip's or track's answer, keyed by every point
 * sent, in order, and the options that change it. A nightly file with one tour changed asks for
 * that tour alone, and writes what an uncached run writes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLifetimes } from '../../src/cache/lifetimes.js';
import { cachedRouting } from '../../src/cache/routing.js';
import { openSqliteStore } from '../../src/cache/sqlite.js';
import { createTally } from '../../src/cache/tally.js';
import { CacheWriter } from '../../src/cache/writer.js';
import type { MatchResult, TripOptions, TripResult } from '../../src/client/index.js';
import type { CacheMode } from '../../src/config/cache.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/index.js';
import type { RunSummary } from '../../src/output/summary.js';
import type { LonLat } from '../../src/types.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const logger = pino({ level: 'silent' });

let emulator: EmulatorHandle;
let dir: string;
let routingRequests = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-cache-routing-'));
  emulator = await startEmulator({
    preload: true,
    onRequest: (info) => {
      if (info.interface === 'routing') routingRequests++;
    },
  });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every item once: sent in a first pass, spared by batching, dedup, a local answer or the cache. */
function itemsOf(s: RunSummary): number {
  const q = s.requests;
  const hits = s.cache?.hits ?? 0;
  return q.sent - (q.resent ?? 0) + q.savedByBatching + q.savedByDedup + q.savedByLocalAnswers + hits;
}

describe('trip and match through the request cache', () => {
  it('asks a nightly run for the changed tour alone, and writes what an uncached run writes', async () => {
    const cache = { location: join(dir, 'trips.sqlite') };
    const job = join(ROOT, 'jobs', 'trip.yaml');
    const lines = readFileSync(join(ROOT, 'samples', 'trips.csv'), 'utf8').split('\n');
    const tours = new Set(
      lines
        .slice(1)
        .filter(Boolean)
        .map((line) => line.split(',')[0]),
    );
    // Tonight's file: one stop of T02 moved by about 100 m.
    const moved = lines.map((line) => {
      if (!line.startsWith('T02,2,')) return line;
      const cells = line.split(',');
      cells[4] = (Number(cells[4]) + 0.001).toFixed(5);
      return cells.join(',');
    });
    expect(moved).not.toEqual(lines);
    const tonight = join(dir, 'trips-tonight.csv');
    writeFileSync(tonight, moved.join('\n'));

    routingRequests = 0;
    const first = await runJobFile(job, { emulator, cache, output: join(dir, 'trips.1.csv') });
    // One request per tour; a tour the sample plants to fail asks none.
    const asked = routingRequests;
    expect(first.requests.http).toBe(asked);
    // A tour of one stop is answered without a request: not counted as one sent.
    expect(first.requests.sent).toBe(asked);
    expect(asked).toBeGreaterThan(tours.size - 3);

    routingRequests = 0;
    const second = await runJobFile(job, {
      emulator,
      cache,
      input: tonight,
      output: join(dir, 'trips.2.csv'),
    });
    expect(routingRequests).toBe(1);
    expect(second.cache?.requestsSaved).toBe(asked - 1);
    // The tours from the cache are neither sent nor items sent: each item is counted once.
    expect(second.requests.sent).toBe(1);
    expect(itemsOf(second)).toBe(itemsOf(first));
    expect(second.cache?.misses).toBe(second.requests.itemsSent);
    expect(second.requests.uniqueItems).toBe(second.requests.itemsSent);
    expect(second.cache?.uncached).toEqual([]);

    routingRequests = 0;
    await runJobFile(job, { emulator, input: tonight, output: join(dir, 'trips.fresh.csv') });
    expect(routingRequests).toBe(asked);
    expect(readFileSync(join(dir, 'trips.2.csv'), 'utf8')).toBe(
      readFileSync(join(dir, 'trips.fresh.csv'), 'utf8'),
    );
    expect(readFileSync(join(dir, 'trips.2.csv'), 'utf8')).not.toBe(
      readFileSync(join(dir, 'trips.1.csv'), 'utf8'),
    );
  });

  it('keeps a track whose windows overlap as the same requests, and asks none the second time', async () => {
    const cache = { location: join(dir, 'tracks.sqlite') };
    const job = join(ROOT, 'jobs', 'match.yaml');
    routingRequests = 0;
    const first = await runJobFile(job, { emulator, cache, output: join(dir, 'tracks.1.csv') });
    const asked = routingRequests;
    expect(asked).toBeGreaterThan(0);
    routingRequests = 0;
    const second = await runJobFile(job, { emulator, cache, output: join(dir, 'tracks.2.csv') });
    // Only failed rows may be asked again; the sample's failures fail before any request.
    expect(routingRequests).toBe(0);
    expect(second.cache?.hits).toBe(first.cache?.misses);
    expect(second.cache?.requestsSaved).toBe(asked);
    expect(first.requests.uniqueItems).toBe(first.requests.itemsSent);
    expect(second.requests.uniqueItems).toBe(0);
    // Counted as the engine counts items: the fixes, not the points sent with a window's overlap.
    expect(first.cache?.misses).toBe(first.requests.itemsSent);
    expect(second.requests).toMatchObject({ http: 0, sent: 0, itemsSent: 0, savedByBatching: 0 });
    expect(itemsOf(second)).toBe(itemsOf(first));
    expect(readFileSync(join(dir, 'tracks.2.csv'), 'utf8')).toBe(
      readFileSync(join(dir, 'tracks.1.csv'), 'utf8'),
    );
  });
});

describe('cachedRouting', () => {
  const A: LonLat[] = [
    [10.63333, 51.63333],
    [10.55546, 51.59499],
    [10.71716, 51.66823],
  ];
  const answer: TripResult = {
    distance_m: 1234,
    duration_s: 99,
    geometry: null,
    properties: {},
    legs: [
      { distance_m: 600, duration_s: 50 },
      { distance_m: 634, duration_s: 49 },
    ],
    order: [0, 2, 1],
  };

  function setUp(name: string, mode: CacheMode, at: { now: number }) {
    const store = openSqliteStore(join(dir, `${name}.sqlite`));
    if (store === undefined) throw new Error('no store');
    const tally = createTally();
    const writer = new CacheWriter(store, tally, logger);
    const calls: string[] = [];
    const routing = {
      trip: async (points: readonly LonLat[], opts?: TripOptions) => {
        calls.push(`trip ${points.length} ${opts?.roundTrip ?? false}`);
        return answer;
      },
      match: async (points: readonly LonLat[]): Promise<MatchResult> => {
        calls.push(`match ${points.length}`);
        return { ...answer, destinations: [] };
      },
    };
    const lifetimes = resolveLifetimes({ routing: 7 });
    const open = (m: CacheMode, runStartedAt?: number) =>
      cachedRouting(routing, {
        ...(runStartedAt === undefined ? {} : { runStartedAt }),
        store,
        service: 'test',
        lifetimes,
        mode: m,
        writer,
        tally,
        logger,
        now: () => at.now,
      });
    return { store, tally, writer, calls, cached: open(mode), open };
  }

  it('keys by every point in order and the options that change the answer, not the signal', async () => {
    const at = { now: Date.parse('2026-11-01') };
    const { calls, cached, tally, writer, store } = setUp('keys', 'use', at);
    expect(await cached.trip(A, { roundTrip: true })).toEqual(answer);
    await writer.flush();
    expect(await cached.trip(A, { roundTrip: true, signal: new AbortController().signal })).toEqual(answer);
    await cached.trip([...A].reverse(), { roundTrip: true });
    await cached.trip(A, { roundTrip: false });
    expect(calls).toEqual(['trip 3 true', 'trip 3 true', 'trip 3 false']);
    expect(tally.hits).toBe(3);
    expect(tally.requestsSaved).toBe(1);
    // A match answer that does not hold a destination per point is not taken for one.
    await writer.flush();
    await cached.match(A);
    await writer.flush();
    await cached.match(A);
    expect(calls.filter((call) => call.startsWith('match'))).toEqual(['match 3', 'match 3']);
    await store.close();
  });

  it('asks again past the routing lifetime, and in refresh mode; writes nothing read-only', async () => {
    const at = { now: Date.parse('2026-11-01') };
    const { calls, cached, tally, writer, open, store } = setUp('modes', 'use', at);
    await cached.trip(A);
    await writer.flush();
    at.now += 8 * 24 * 3600 * 1000;
    await cached.trip(A);
    expect(tally.expired).toBe(1);
    expect(calls).toHaveLength(2);
    await writer.flush();
    // A refresh run takes nothing written before it began...
    at.now += 1000;
    await open('refresh').trip(A);
    expect(calls).toHaveLength(3);
    await writer.flush();
    // ...but, resumed, what its interrupted session wrote since then.
    const began = at.now - 500;
    at.now += 1000;
    await open('refresh', began).trip(A);
    expect(calls).toHaveLength(3);
    await writer.flush();
    const writes = tally.writes;
    await open('read-only').trip(A.slice(0, 2));
    await writer.flush();
    expect(calls).toHaveLength(4);
    expect(tally.writes).toBe(writes);
    await cached.trip(A);
    expect(calls).toHaveLength(4);
    await store.close();
  });
});

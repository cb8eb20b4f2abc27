/** The items the chunks of one worker ask for at once: one asks, the others wait for its answer. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CacheAnswers } from '../../src/cache/answers.js';
import type { AnswerLookup } from '../../src/engine/answers.js';
import { createCounters } from '../../src/engine/counters.js';
import { processRows } from '../../src/engine/engine.js';
import type { ItemResult } from '../../src/engine/job.js';
import { MAX_WAIT_MS, SharedFlights } from '../../src/queue/_shared-flights.js';
import { fakeInput, fakeJob } from '../engine/_fake.js';

/** A request cache that knows nothing; it records what it was asked and what it was told. */
function store() {
  const asked: string[][] = [];
  const told: string[] = [];
  /** Keys the engine said it sent to the service: the cache's misses. */
  const sent: string[] = [];
  const cache: CacheAnswers = {
    asked(items) {
      sent.push(...items.map((i) => i.key));
    },
    async lookup(items: readonly AnswerLookup[]) {
      asked.push(items.map((i) => i.key));
      return new Map<string, ItemResult<unknown>>();
    },
    async recheck() {
      return new Map<string, ItemResult<unknown>>();
    },
    remember(key) {
      told.push(key);
    },
  };
  return { cache, asked, told, sent };
}

const item = (key: string): AnswerLookup => ({ key, item: { key } });
const answer = (value: string): ItemResult<unknown> => ({ ok: true, value });

afterEach(() => {
  vi.useRealTimers();
});

describe('SharedFlights', () => {
  it('lets a chunk wait for the answer another chunk is asking for, instead of asking again', async () => {
    const flights = new SharedFlights();
    const { cache, asked, told } = store();
    const a = flights.view(cache, createCounters());
    const bCounters = createCounters();
    const b = flights.view(cache, bCounters);
    expect((await a.lookup([item('k1'), item('k2')])).size).toBe(0);
    let settled = false;
    const waiting = b.lookup([item('k1'), item('k3')]).then((found) => {
      settled = true;
      return found;
    });
    await new Promise((resolve) => setImmediate(resolve));
    // k3 is b's own and was asked of the cache; k1 waits for a's request.
    expect(asked).toEqual([['k1', 'k2'], ['k3']]);
    expect(settled).toBe(false);
    a.remember('k1', { key: 'k1' }, answer('A1'));
    const found = await waiting;
    expect(found).toEqual(new Map([['k1', answer('A1')]]));
    expect(bCounters.dedupHits).toBe(1);
    // Written to the cache once, by the chunk that asked.
    expect(told).toEqual(['k1']);
  });

  it('counts as misses the items a chunk sent, once: not those another chunk bought for it', async () => {
    const flights = new SharedFlights();
    const { cache, sent } = store();
    // Two chunks of ten rows over the same ten keys, at once: each key is bought by one of them.
    const job = fakeJob({ keys: (row) => [`k${row.ref.index % 10}`], delay: () => 20 });
    const counters = [createCounters(), createCounters()];
    await Promise.all(
      counters.map(async (c) => {
        const answers = flights.view(cache, c);
        for await (const _ of processRows(fakeInput(10).items, job, {
          concurrency: 4,
          answers,
          counters: c,
        }));
        await answers.release();
      }),
    );
    const bought = job.calls.flat().map((i) => i.key);
    expect(bought.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
    expect([...sent].sort()).toEqual(bought);
    expect((counters[0]?.dedupHits ?? 0) + (counters[1]?.dedupHits ?? 0)).toBe(10);
  });

  it('hands a waiting chunk the cache hit of the chunk that looked first', async () => {
    const flights = new SharedFlights();
    let release: () => void = () => {};
    const slow: CacheAnswers = {
      lookup: (items) =>
        new Promise((resolve) => {
          release = () => resolve(new Map(items.map((i) => [i.key, answer(`cached ${i.key}`)])));
        }),
      recheck: async () => new Map(),
      remember() {},
    };
    const a = flights.view(slow, createCounters());
    const b = flights.view(store().cache, createCounters());
    const first = a.lookup([item('k')]);
    const second = b.lookup([item('k')]);
    release();
    expect(await first).toEqual(new Map([['k', answer('cached k')]]));
    expect(await second).toEqual(new Map([['k', answer('cached k')]]));
  });

  it('sends a waiting chunk to ask itself when the asking chunk ends unanswered', async () => {
    const flights = new SharedFlights();
    const { cache } = store();
    const a = flights.view(cache, createCounters());
    const b = flights.view(cache, createCounters());
    await a.lookup([item('k')]);
    const waiting = b.lookup([item('k')]);
    await a.release();
    expect((await waiting).size).toBe(0);
    // The item is free again: the next chunk to look claims it, and nobody waits on the old one.
    const c = flights.view(cache, createCounters());
    const d = flights.view(cache, createCounters());
    await c.lookup([item('k')]);
    const behind = d.lookup([item('k')]);
    c.remember('k', { key: 'k' }, answer('C'));
    expect(await behind).toEqual(new Map([['k', answer('C')]]));
  });

  it('never waits on its own chunk', async () => {
    const flights = new SharedFlights();
    const { cache, asked } = store();
    const a = flights.view(cache, createCounters());
    await a.lookup([item('k')]);
    expect((await a.lookup([item('k')])).size).toBe(0);
    expect(asked).toEqual([['k'], ['k']]);
  });

  it('waits for a request held back longer than a claim lasts (a Retry-After pause): bought once', async () => {
    vi.useFakeTimers();
    const flights = new SharedFlights();
    const { cache, asked } = store();
    const a = flights.view(cache, createCounters());
    await a.lookup([item('k')]);
    const b = flights.view(cache, createCounters());
    let found: ReadonlyMap<string, ItemResult<unknown>> | undefined;
    void b.lookup([item('k')]).then((f) => {
      found = f;
    });
    await vi.advanceTimersByTimeAsync(120_000);
    expect(found).toBeUndefined();
    a.remember('k', { key: 'k' }, answer('A'));
    await vi.advanceTimersByTimeAsync(0);
    expect(found).toEqual(new Map([['k', answer('A')]]));
    // Only the holder asked the cache, and only it will ask the service.
    expect(asked).toEqual([['k']]);
  });

  it('gives up waiting after MAX_WAIT_MS: a holder that neither answers nor lets go is a defect, not a hang', async () => {
    vi.useFakeTimers();
    const flights = new SharedFlights();
    const { cache } = store();
    const a = flights.view(cache, createCounters());
    await a.lookup([item('k')]);
    const b = flights.view(cache, createCounters());
    let found: ReadonlyMap<string, ItemResult<unknown>> | undefined;
    void b.lookup([item('k')]).then((f) => {
      found = f;
    });
    await vi.advanceTimersByTimeAsync(MAX_WAIT_MS - 1);
    expect(found).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(found?.size).toBe(0);
  });

  it('keeps an answer for a second, for chunks that look before the cache has written it', async () => {
    let now = 0;
    const flights = new SharedFlights({ now: () => now });
    const { cache, asked } = store();
    const a = flights.view(cache, createCounters());
    await a.lookup([item('k')]);
    a.remember('k', { key: 'k' }, answer('A'));
    await a.release();
    now = 999;
    const b = flights.view(cache, createCounters());
    expect(await b.lookup([item('k')])).toEqual(new Map([['k', answer('A')]]));
    now = 1000;
    const c = flights.view(cache, createCounters());
    expect((await c.lookup([item('k')])).size).toBe(0);
    expect(asked).toEqual([['k'], ['k']]);
  });
});

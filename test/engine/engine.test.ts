import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { batched } from '../../src/batches.js';
import { SECOND_PASS_DELAY_MS } from '../../src/engine/_requests.js';
import { createCounters } from '../../src/engine/counters.js';
import type { EngineItem, ProcessOptions } from '../../src/engine/engine.js';
import { processRows } from '../../src/engine/engine.js';
import {
  IoError,
  isGeobatchError,
  ResponseError,
  RunError,
  ServiceError,
  UsageError,
} from '../../src/errors.js';
import { RetrySleeps } from '../../src/retry-sleeps.js';
import type { Outcome, ReadItem } from '../../src/types.js';
import { type FakeItem, fakeBatchedInput, fakeInput, fakeJob, fakeRow, sleep } from './_fake.js';

async function run(
  items: AsyncIterable<ReadItem>,
  job: ReturnType<typeof fakeJob>,
  options: ProcessOptions = {},
) {
  const counters = options.counters ?? createCounters();
  const outcomes: Outcome[] = [];
  for await (const outcome of processRows(items, job, { ...options, counters })) outcomes.push(outcome);
  return { outcomes, counters };
}

const indexes = (outcomes: readonly Outcome[]) => outcomes.map((o) => o.ref.index);
const values = (outcomes: readonly Outcome[]) =>
  outcomes.map((o) => (o.status === 'ok' ? o.records[0]?.columns.value : o.issue.code));
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The most rows admitted (`counters.rowsRead`) and not yet answered while `job` ran: what `window` bounds. */
function trackUnanswered(job: ReturnType<typeof fakeJob>, counters: { readonly rowsRead: number }) {
  const execute = job.execute.bind(job);
  const seen = { answered: 0, max: 0 };
  job.execute = async (items, signal, keys) => {
    seen.max = Math.max(seen.max, counters.rowsRead - seen.answered);
    const answer = await execute(items, signal, keys);
    seen.answered += items.length;
    return answer;
  };
  return seen;
}

describe('engine', () => {
  it('keeps input order when requests finish in random order', async () => {
    const job = fakeJob({ delay: () => Math.floor(Math.random() * 6) });
    const { outcomes } = await run(fakeInput(400).items, job, { concurrency: 16, window: 64 });
    expect(indexes(outcomes)).toEqual(range(400));
    expect(values(outcomes)).toEqual(range(400).map((i) => `v:k${i}`));
  });

  it("gives execute each item's planned key, in the items' order, in batches and after dedup", async () => {
    // Rows 0-119 need k0..k39 three times over: dedup leaves 40 items, batches of 7 carry them.
    const job = fakeJob({
      keys: (row) => [`k${row.ref.index % 40}`],
      batching: { maxItems: 7, lingerMs: 1 },
    });
    const { outcomes } = await run(fakeInput(120).items, job, { concurrency: 3, window: 32 });
    expect(outcomes).toHaveLength(120);
    expect(job.calls.length).toBeGreaterThan(1);
    for (const [i, items] of job.calls.entries()) {
      expect(job.keysGiven[i]).toEqual(items.map((item) => job.key(item)));
    }
    expect(
      job.calls
        .flat()
        .map((item) => item.key)
        .sort(),
    ).toEqual(
      range(40)
        .map((i) => `k${i}`)
        .sort(),
    );
  });

  it('never holds more rows waiting for answers than the window, nor runs more requests than the concurrency', async () => {
    const input = fakeInput(300);
    const job = fakeJob({ delay: (items) => (items[0]?.row === 5 ? 150 : 1) });
    let sentWhileHeld = -1;
    const counters = createCounters();
    const unanswered = trackUnanswered(job, counters);
    const execute = job.execute.bind(job);
    job.execute = async (items, signal, keys) => {
      const answer = await execute(items, signal, keys);
      if (items[0]?.row === 5) sentWhileHeld = job.executedRows.size - 1;
      return answer;
    };
    const outcomes: Outcome[] = [];
    for await (const outcome of processRows(input.items, job, { window: 20, concurrency: 4, counters }))
      outcomes.push(outcome);
    expect(indexes(outcomes)).toEqual(range(300));
    expect(unanswered.max).toBeLessThanOrEqual(20);
    expect(job.concurrency.max).toBeLessThanOrEqual(4);
    expect(counters.maxRequestsInFlight).toBeLessThanOrEqual(4);
    // Finished rows waiting behind row 5 count against the byte budget only: the rows behind it
    // went on being sent while it was held, far past the 20 rows the window lets wait for answers.
    expect(sentWhileHeld).toBeGreaterThan(100);
    expect(counters.maxRowsInFlight).toBeGreaterThan(100);
  });

  it('bounds finished rows behind a slow one by windowBytes, passed rows of a pipeline too', async () => {
    // Row 0 is held; 400 rows behind it fail in an earlier step and pass through at once.
    async function* passedBehind(state: { pulled: number }): AsyncGenerator<EngineItem> {
      state.pulled++;
      yield fakeRow(0);
      for (let index = 1; index <= 400; index++) {
        state.pulled++;
        const ref = { index, line: index + 2 };
        const issue = {
          kind: 'issue',
          ref,
          stage: 'input',
          code: 'FIELD_MISSING',
          message: 'no city',
        } as const;
        yield { kind: 'passed', ref, outcome: { status: 'failed', ref, row: fakeRow(index), issue } };
      }
    }
    const state = { pulled: 0 };
    const job = fakeJob({ delay: () => 100 });
    let maxAhead = 0;
    let emitted = 0;
    const options = { window: 1000, windowBytes: 16 * 1024, concurrency: 4 };
    for await (const outcome of processRows(passedBehind(state), job, options)) {
      expect(outcome.ref.index).toBe(emitted);
      emitted++;
      maxAhead = Math.max(maxAhead, state.pulled - emitted);
    }
    expect(emitted).toBe(401);
    // About 600 estimated bytes a passed row: 16 KiB hold a few dozen, not the 400 of the input.
    expect(maxAhead).toBeGreaterThan(10);
    expect(maxAhead).toBeLessThan(40);
  });

  it('reads no further than the requests can use: at most `concurrency` of them wait for a slot', async () => {
    const input = fakeInput(100);
    const job = fakeJob({ delay: () => 5 });
    let maxAhead = 0;
    let emitted = 0;
    const counters = createCounters();
    for await (const outcome of processRows(input.items, job, { window: 1000, concurrency: 4, counters })) {
      expect(outcome.ref.index).toBe(emitted);
      emitted++;
      maxAhead = Math.max(maxAhead, input.state.pulled - emitted);
    }
    expect(emitted).toBe(100);
    // 4 requests running and 4 waiting, one row each: a window of 1,000 rows holds no more.
    expect(maxAhead).toBeLessThanOrEqual(8);
    expect(counters.maxRowsInFlight).toBe(8);
    expect(counters.maxRequestsInFlight).toBe(4);
  });

  it('sends other requests while one sleeps before its retry: a sleeper holds no slot', async () => {
    /** Row 0's request spends 200 ms asleep, as the client sleeps out a Retry-After. */
    const sleepy = (sleeps: RetrySleeps | undefined) => {
      const job = fakeJob({ delay: (items) => (items[0]?.row === 0 ? 200 : 1) });
      const execute = job.execute.bind(job);
      let whileAsleep = -1;
      job.execute = async (items, signal, keys) => {
        if (items[0]?.row !== 0) return execute(items, signal, keys);
        sleeps?.start();
        try {
          return await execute(items, signal, keys);
        } finally {
          sleeps?.end();
          whileAsleep = job.executedRows.size - 1;
        }
      };
      return { job, sent: () => whileAsleep };
    };
    const sleeps = new RetrySleeps();
    const asleep = sleepy(sleeps);
    const { outcomes, counters } = await run(fakeInput(40).items, asleep.job, {
      concurrency: 1,
      window: 64,
      retrySleeps: sleeps,
    });
    expect(indexes(outcomes)).toEqual(range(40));
    expect(values(outcomes)).toEqual(range(40).map((i) => `v:k${i}`));
    // The other 39 went one at a time (the concurrency) while row 0 slept.
    expect(asleep.sent()).toBe(39);
    expect(counters.maxRequestsInFlight).toBe(1);
    // Without the count, row 0's sleep held the only slot.
    const held = sleepy(undefined);
    await run(fakeInput(40).items, held.job, { concurrency: 1, window: 64 });
    expect(held.sent()).toBe(0);
  });

  it('holds no more rows than windowBytes allows when rows are large, and always lets one in', async () => {
    // Rows of ~10 KB each: a window of 1,000 rows by count, of 64 KB by bytes.
    const big = 'x'.repeat(10_000);
    async function* largeRows(state: { pulled: number }): AsyncGenerator<ReadItem> {
      for (let index = 0; index < 60; index++) {
        state.pulled++;
        yield fakeRow(index, { id: String(index), text: big });
      }
    }
    const state = { pulled: 0 };
    // Row 0 is slow: the finished rows behind it are bounded by the bytes too.
    const job = fakeJob({ delay: (items) => (items[0]?.row === 0 ? 50 : 2) });
    let maxAhead = 0;
    let emitted = 0;
    const counters = createCounters();
    const options = { window: 1000, windowBytes: 64 * 1024, concurrency: 4, counters };
    for await (const outcome of processRows(largeRows(state), job, options)) {
      expect(outcome.ref.index).toBe(emitted);
      emitted++;
      maxAhead = Math.max(maxAhead, state.pulled - emitted);
    }
    expect(emitted).toBe(60);
    expect(counters.maxRowsInFlight).toBeGreaterThan(1);
    expect(counters.maxRowsInFlight).toBeLessThanOrEqual(7);
    expect(maxAhead).toBeLessThanOrEqual(8);

    // A row larger than the whole budget still passes, one at a time.
    const single = createCounters();
    const { outcomes } = await run(largeRows({ pulled: 0 }), fakeJob(), {
      windowBytes: 1000,
      counters: single,
    });
    expect(outcomes).toHaveLength(60);
    expect(single.maxRowsInFlight).toBe(1);
  });

  it('refuses a windowBytes or dedupCacheBytes that is not an integer of the right range', () => {
    const attempt = (options: ProcessOptions) => () => processRows(fakeInput(1).items, fakeJob(), options);
    expect(attempt({ windowBytes: 0 })).toThrow(expect.objectContaining({ code: 'USAGE' }));
    expect(attempt({ dedupCacheBytes: -1 })).toThrow(/dedupCacheBytes/);
    expect(attempt({ dedupCacheBytes: 0 })).not.toThrow();
  });

  it('packs items into batches of maxItems and sends the rest when the input ends, without waiting for linger', async () => {
    const job = fakeJob({ batching: { maxItems: 10, lingerMs: 3_600_000 } });
    const { outcomes, counters } = await run(fakeInput(35).items, job);
    expect(job.calls.map((c) => c.length)).toEqual([10, 10, 10, 5]);
    expect(indexes(outcomes)).toEqual(range(35));
    expect(counters).toMatchObject({ requestsSent: 4, itemsSent: 35 });
  });

  it('sends a partial batch after lingerMs when the input stalls', async () => {
    let executed = 0;
    let release: () => void = () => {};
    const job = fakeJob({
      batching: { maxItems: 100, lingerMs: 5 },
      onExecute: () => {
        executed++;
        release();
      },
    });
    async function* stalling(): AsyncGenerator<ReadItem> {
      for (let i = 0; i < 4; i++) {
        yield fakeRow(i);
        // The next row comes only once the previous one was sent: only the linger timer can send it.
        if (executed <= i) await new Promise<void>((resolve) => (release = resolve));
      }
    }
    const { outcomes } = await run(stalling(), job);
    expect(job.calls.map((c) => c.length)).toEqual([1, 1, 1, 1]);
    expect(indexes(outcomes)).toEqual(range(4));
  });

  it('sends the head row at once when the window is full and it waits in a partial batch', async () => {
    // A linger of an hour: without the head-of-line flush this test would hang.
    const job = fakeJob({ batching: { maxItems: 100, lingerMs: 3_600_000 } });
    const { outcomes } = await run(fakeInput(10).items, job, { window: 4 });
    expect(job.calls.map((c) => c.length)).toEqual([4, 4, 2]);
    expect(indexes(outcomes)).toEqual(range(10));
  });

  it.each([
    ['without an answer cache', undefined],
    ['with an answer cache that knows nothing', { lookup: async () => new Map(), remember: () => {} }],
  ])(
    'sends only full batches while the window is full, however long the answers take (%s)',
    async (_, answers) => {
      // Rows 0-24 fill the window: two batches go, rows 20-24 wait in a partial one far longer than
      // its linger. The rows that would fill it are only waiting for room, so it must not leave part-full.
      const job = fakeJob({ batching: { maxItems: 10, lingerMs: 1 }, delay: () => 40 });
      const { outcomes, counters } = await run(fakeInput(40).items, job, {
        window: 25,
        concurrency: 4,
        answers,
      });
      expect(job.calls.map((c) => c.length)).toEqual([10, 10, 10, 10]);
      expect(indexes(outcomes)).toEqual(range(40));
      expect(counters).toMatchObject({ requestsSent: 4, itemsSent: 40 });
    },
  );

  it('keeps each group in its own batches', async () => {
    const job = fakeJob({
      keys: (row) => [`${row.ref.index % 3 === 0 ? 'a' : 'b'}${row.ref.index}`],
      batching: { maxItems: 4, lingerMs: 3_600_000, group: (item: FakeItem) => item.key[0] as string },
    });
    await run(fakeInput(20).items, job);
    for (const call of job.calls) expect(new Set(call.map((i) => i.key[0])).size).toBe(1);
    expect(job.calls.flat()).toHaveLength(20);
  });

  it('bounds a batch by the sum of weights, sending an overweight item alone', async () => {
    const weights = [3, 4, 2, 12, 5, 5, 1];
    const job = fakeJob({
      batching: {
        maxItems: 100,
        lingerMs: 3_600_000,
        weight: (item: FakeItem) => weights[item.row] ?? 0,
        maxWeight: 10,
      },
    });
    await run(fakeInput(weights.length).items, job);
    expect(job.calls.map((c) => c.map((i) => i.row))).toEqual([[0, 1, 2], [3], [4, 5], [6]]);
  });

  it('requests identical items once per run and shares the answer', async () => {
    const job = fakeJob({ keys: (row) => [`k${row.ref.index % 10}`], delay: () => 1 });
    const { outcomes, counters } = await run(fakeInput(100).items, job, { window: 16 });
    expect(job.calls.flat()).toHaveLength(10);
    expect(values(outcomes)).toEqual(range(100).map((i) => `v:k${i % 10}`));
    expect(counters).toMatchObject({ itemsPlanned: 100, uniqueItems: 10, dedupHits: 90 });
  });

  it('forgets the least recently used answers beyond dedupCacheSize', async () => {
    const keys = ['a', 'b', 'c', 'a', 'b', 'c'];
    const sequential = { window: 1, concurrency: 1 };
    const small = fakeJob({ keys: (row) => [keys[row.ref.index] as string] });
    await run(fakeInput(6).items, small, { ...sequential, dedupCacheSize: 2 });
    expect(small.calls.flat()).toHaveLength(6);
    const enough = fakeJob({ keys: (row) => [keys[row.ref.index] as string] });
    await run(fakeInput(6).items, enough, { ...sequential, dedupCacheSize: 6 });
    expect(enough.calls.flat()).toHaveLength(3);
  });

  it('forgets answers beyond dedupCacheBytes, whatever dedupCacheSize allows', async () => {
    const keys = ['a', 'b', 'c', 'a', 'b', 'c'];
    const sequential = { window: 1, concurrency: 1, dedupCacheSize: 1000 };
    const none = fakeJob({ keys: (row) => [keys[row.ref.index] as string] });
    await run(fakeInput(6).items, none, { ...sequential, dedupCacheBytes: 0 });
    expect(none.calls.flat()).toHaveLength(6);
    // Each remembered answer counts ~100 bytes (key, answer, entry): 150 bytes hold one at most.
    const tiny = fakeJob({ keys: (row) => [keys[row.ref.index] as string] });
    await run(fakeInput(6).items, tiny, { ...sequential, dedupCacheBytes: 150 });
    expect(tiny.calls.flat()).toHaveLength(6);
    const enough = fakeJob({ keys: (row) => [keys[row.ref.index] as string] });
    await run(fakeInput(6).items, enough, { ...sequential, dedupCacheBytes: 100_000 });
    expect(enough.calls.flat()).toHaveLength(3);
  });

  it('keys items by their text alone, even keys an ordinary object would inherit', async () => {
    const keys = ['constructor', '__proto__', 'toString', '0', 'constructor', '__proto__', 'toString', '0'];
    const job = fakeJob({ keys: (row) => [keys[row.ref.index] as string], delay: () => 2 });
    const { outcomes, counters } = await run(fakeInput(keys.length).items, job, { dedupCacheSize: 0 });
    expect(job.calls.flat().map((i) => i.key)).toEqual(keys.slice(0, 4));
    expect(values(outcomes)).toEqual(keys.map((k) => `v:${k}`));
    expect(counters.dedupHits).toBe(4);
  });

  it('shares a request in flight even with no dedup cache', async () => {
    const job = fakeJob({ keys: () => ['same'], delay: () => 5 });
    const { counters } = await run(fakeInput(8).items, job, { dedupCacheSize: 0 });
    expect(job.calls).toHaveLength(1);
    expect(counters.dedupHits).toBe(7);
  });

  it('does not request items the job answers locally, at plan time or just before sending', async () => {
    const known = new Set(['k1']);
    const job = fakeJob({
      local: (item) => (known.has(item.key) ? 'local' : undefined),
      delay: (items) => (items[0]?.key === 'k0' ? 10 : 0),
      // Once k0 is answered the job also knows k2 (e.g. a boundary that covers it).
      onExecute: (items) => {
        if (items[0]?.key === 'k0') setTimeout(() => known.add('k2'), 1);
      },
    });
    const { outcomes, counters } = await run(fakeInput(3).items, job, { concurrency: 1 });
    expect(job.calls.flat().map((i) => i.key)).toEqual(['k0']);
    expect(values(outcomes)).toEqual(['v:k0', 'local', 'local']);
    expect(counters.localHits).toBe(2);
  });

  it('sends one request per group at a time for serial jobs, repacking what the answer did not teach', async () => {
    // Keys k0..k59 in two groups (even, odd). An answer teaches every key of its group and decade,
    // as one boundary answer covers many later points of its level.
    const group = (item: FakeItem) => String(Number(item.key.slice(1)) % 2);
    const cell = (item: FakeItem) => `${Math.floor(Number(item.key.slice(1)) / 10)}:${group(item)}`;
    const taught = new Set<string>();
    const inFlight = new Map<string, number>();
    let maxPerGroup = 0;
    const job = fakeJob({
      batching: { maxItems: 2, lingerMs: 3_600_000, group, serial: true },
      local: (item) => (taught.has(cell(item)) ? 'local' : undefined),
      delay: () => 2,
    });
    const execute = job.execute.bind(job);
    job.execute = async (items, signal) => {
      const g = group(items[0] as FakeItem);
      inFlight.set(g, (inFlight.get(g) ?? 0) + 1);
      maxPerGroup = Math.max(maxPerGroup, inFlight.get(g) ?? 0);
      try {
        return await execute(items, signal);
      } finally {
        inFlight.set(g, (inFlight.get(g) ?? 1) - 1);
        for (const item of items) taught.add(cell(item));
      }
    };
    const { outcomes, counters } = await run(fakeInput(60).items, job, { concurrency: 8 });
    expect(indexes(outcomes)).toEqual(range(60));
    expect(maxPerGroup).toBe(1);
    // Both groups still run side by side.
    expect(job.concurrency.max).toBe(2);
    // 30 batches would go out without serial; with it, about one per group and decade (12).
    const sent = job.calls.flat().length;
    expect(job.calls.length).toBeLessThanOrEqual(14);
    expect(counters.localHits).toBe(60 - sent);
    expect(counters.localHits).toBeGreaterThanOrEqual(30);
  });

  it('fails exactly the rows of a request that throws, with its code, status, attempts and stage', async () => {
    const job = fakeJob({
      batching: { maxItems: 3, lingerMs: 3_600_000 },
      fail: (items) =>
        items.some((i) => i.key === 'k4')
          ? new ServiceError('RETRIES_EXHAUSTED', 'HTTP 503 after 4 attempts', { status: 503, attempts: 4 })
          : items.some((i) => i.key === 'k7')
            ? new ResponseError('features[0].geometry missing', { path: 'features[0]' })
            : undefined,
    });
    // RETRIES_EXHAUSTED gets a second pass after a delay (see requests.test.ts); fake time passes it.
    vi.useFakeTimers();
    let result: Awaited<ReturnType<typeof run>>;
    try {
      const running = run(fakeInput(9).items, job);
      await vi.advanceTimersByTimeAsync(SECOND_PASS_DELAY_MS);
      result = await running;
    } finally {
      vi.useRealTimers();
    }
    const { outcomes, counters } = result;
    expect(job.calls.filter((c) => c[0]?.key === 'k3')).toHaveLength(2);
    expect(job.calls.filter((c) => c[0]?.key === 'k6')).toHaveLength(1);
    expect(values(outcomes)).toEqual([
      'v:k0',
      'v:k1',
      'v:k2',
      'RETRIES_EXHAUSTED',
      'RETRIES_EXHAUSTED',
      'RETRIES_EXHAUSTED',
      'RESPONSE_INVALID',
      'RESPONSE_INVALID',
      'RESPONSE_INVALID',
    ]);
    const failed = outcomes[4];
    expect(failed?.status === 'failed' && failed.issue).toMatchObject({
      ref: { index: 4, line: 6 },
      stage: 'request',
      status: 503,
      // Both passes' attempts (a second pass after the first's 4).
      attempts: 8,
      message: 'HTTP 503 after 8 attempts (two passes)',
    });
    expect(outcomes[7]?.status === 'failed' && outcomes[7].issue.stage).toBe('response');
    expect(counters.requestsFailed).toBe(2);
    expect(counters.failuresByCode).toEqual({ RETRIES_EXHAUSTED: 3, RESPONSE_INVALID: 3 });
  });

  it('takes a batched input a batch at a time, admitting only what the window holds', async () => {
    const input = fakeBatchedInput(1000, 64);
    const job = fakeJob({ delay: (items) => (items[0]?.row === 5 ? 30 : 1) });
    const counters = createCounters();
    const unanswered = trackUnanswered(job, counters);
    const { outcomes } = await run(input.items, job, { window: 20, concurrency: 4, counters });
    expect(indexes(outcomes)).toEqual(range(1000));
    expect(values(outcomes)).toEqual(range(1000).map((i) => `v:k${i}`));
    expect(input.state.batches).toBe(16);
    // Batches of 64 rows are admitted in parts: 20 rows waiting for answers at most.
    expect(unanswered.max).toBeLessThanOrEqual(20);
    expect(counters).toMatchObject({ rowsRead: 1000, rowsEmitted: 1000, rowsOk: 1000 });
  });

  it('stops admitting the rows of a batch at a fatal error', async () => {
    const input = fakeBatchedInput(10_000, 64);
    const job = fakeJob({
      fail: (items) =>
        items[0]?.key === 'k3' ? new ServiceError('QUOTA_EXCEEDED', 'HTTP 402', { status: 402 }) : undefined,
    });
    const counters = createCounters();
    const seen: number[] = [];
    const error = await (async () => {
      for await (const outcome of processRows(input.items, job, { window: 50, concurrency: 1, counters }))
        seen.push(outcome.ref.index);
    })().catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('QUOTA_EXCEEDED');
    expect(seen).toEqual([0, 1, 2]);
    expect(input.state.batches).toBeLessThanOrEqual(2);
    expect(counters.rowsRead).toBeLessThanOrEqual(50);
  });

  it('stops pulling at a fatal error, lets the finished head rows out, then throws it', async () => {
    const input = fakeInput(100_000);
    const job = fakeJob({
      fail: (items) =>
        items[0]?.key === 'k3' ? new ServiceError('QUOTA_EXCEEDED', 'HTTP 402', { status: 402 }) : undefined,
    });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const outcome of processRows(input.items, job, { window: 50, concurrency: 1 }))
        seen.push(outcome.ref.index);
    })().catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('QUOTA_EXCEEDED');
    expect(seen).toEqual([0, 1, 2]);
    expect(input.state.pulled).toBeLessThanOrEqual(51);
  });

  it('counts as sent only the requests that came back, not those a fatal error abandoned', async () => {
    // Eight requests go to the job at once; the first is refused for good, the others are still
    // waiting (as for a rate slot) when the run stops: they never reached the service.
    const job = fakeJob({
      delay: (items) => (items[0]?.key === 'k0' ? 20 : 10_000),
      fail: (items) =>
        items[0]?.key === 'k0' ? new ServiceError('QUOTA_EXCEEDED', 'HTTP 402', { status: 402 }) : undefined,
    });
    const counters = createCounters();
    const error = await run(fakeInput(100).items, job, { concurrency: 8, counters }).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('QUOTA_EXCEEDED');
    expect(job.calls).toHaveLength(8);
    expect(counters).toMatchObject({ requestsSent: 1, itemsSent: 1, maxRequestsInFlight: 8 });
  });

  it('stops with ABORTED when the signal fires, having let out an in-order prefix', async () => {
    const input = fakeInput(10_000);
    const controller = new AbortController();
    const job = fakeJob({ delay: () => 1 });
    const seen: number[] = [];
    const error = await (async () => {
      for await (const outcome of processRows(input.items, job, { signal: controller.signal, window: 32 })) {
        seen.push(outcome.ref.index);
        if (seen.length === 100) controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(seen).toEqual(range(seen.length));
    expect(input.state.pulled).toBeLessThan(100 + 32 + 2);
  });

  it('stops with the fatal error the signal was aborted for (a failed log file), not ABORTED', async () => {
    const controller = new AbortController();
    const logFailed = new IoError('IO_ERROR', 'writing the log failed', {
      field: 'log-file',
      file: '/x.log',
    });
    // The client's requests listen to the run's signal too and fail as ABORTED; which the engine
    // hears of first is not fixed, so here the requests in flight fail before the signal fires.
    const inFlight: (() => void)[] = [];
    const job = fakeJob();
    const execute = job.execute.bind(job);
    job.execute = (items, signal, keys) =>
      (items[0]?.row ?? 0) < 100
        ? execute(items, signal, keys)
        : new Promise((_, reject) =>
            inFlight.push(() => reject(new RunError('ABORTED', 'the request was aborted'))),
          );
    let seen = 0;
    const error = await (async () => {
      for await (const _ of processRows(fakeInput(1000).items, job, {
        signal: controller.signal,
        window: 32,
      }))
        if (++seen === 100)
          setTimeout(() => {
            for (const cut of inFlight) cut();
            controller.abort(logFailed);
          }, 20);
    })().catch((e: unknown) => e);
    expect(inFlight.length).toBeGreaterThan(0);
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
    expect(isGeobatchError(error) && error.context).toEqual({ field: 'log-file', file: '/x.log' });
  });

  it('stops with ABORTED when the signal is aborted for a reason that is not fatal (Ctrl-C)', async () => {
    const controller = new AbortController();
    const job = fakeJob({ delay: () => 1 });
    let seen = 0;
    const error = await (async () => {
      for await (const _ of processRows(fakeInput(1000).items, job, {
        signal: controller.signal,
        window: 32,
      }))
        if (++seen === 10) controller.abort(new UsageError('stopped by SIGINT'));
    })().catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(isGeobatchError(error) && error.context.hint).toContain('--resume');
  });

  it('turns every row problem into a failed outcome in order, and balances its counts', async () => {
    const job = fakeJob({
      keys: (row) =>
        row.ref.index === 1
          ? { code: 'FIELD_MISSING', message: 'street is empty', field: 'street' }
          : row.ref.index === 2
            ? []
            : [`k${row.ref.index}`],
      omit: (key) => key === 'k3',
    });
    const { outcomes, counters } = await run(fakeInput(5, new Set([4])).items, job);
    expect(values(outcomes)).toEqual(['v:k0', 'FIELD_MISSING', '', 'INTERNAL', 'INPUT_MALFORMED']);
    expect(outcomes[1]?.status === 'failed' && outcomes[1].issue).toMatchObject({
      stage: 'input',
      field: 'street',
    });
    expect(outcomes[3]?.status === 'failed' && outcomes[3].issue.stage).toBe('response');
    expect(counters).toMatchObject({ rowsRead: 5, rowsEmitted: 5, rowsOk: 2, rowsFailed: 3 });
  });

  it('fails a row whose rendering throws or gives no record, as INTERNAL', async () => {
    const job = fakeJob();
    const render = job.render;
    job.render = (row, results) => {
      if (row.ref.index === 0) throw new Error('boom');
      if (row.ref.index === 1) return { ok: true, records: [] };
      return render(row, results);
    };
    const { outcomes } = await run(fakeInput(3).items, job);
    expect(values(outcomes)).toEqual(['INTERNAL', 'INTERNAL', 'v:k2']);
    expect(outcomes[0]?.status === 'failed' && outcomes[0].issue.message).toBe(
      'Rendering the row failed: boom',
    );
  });

  it('rejects bad options with the expected message', () => {
    expect(() => processRows(fakeInput(1).items, fakeJob(), { concurrency: 0 })).toThrow(
      'Expected `concurrency` to be a positive integer, got `0`',
    );
  });

  it('lets finished rows out while a slow input stalls', async () => {
    const job = fakeJob();
    let release: () => void = () => {};
    async function* slow(): AsyncGenerator<ReadItem> {
      yield fakeRow(0);
      await new Promise<void>((resolve) => (release = resolve));
      yield fakeRow(1);
    }
    const seen: number[] = [];
    for await (const outcome of processRows(slow(), job)) {
      seen.push(outcome.ref.index);
      if (seen.length === 1) release();
      await sleep(0);
    }
    expect(seen).toEqual([0, 1]);
  });
});

describe('the engine over rows that fail before any request', () => {
  it('keeps none of them once they are emitted: no answer comes to let them go', async () => {
    // The collector on demand, so that what is still reachable is known, not guessed from RSS.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    let first: WeakRef<object> | undefined;
    const input = batched(async function* () {
      for (let from = 0; from < 40_000; from += 64) {
        const batch = Array.from({ length: 64 }, (_, i) => fakeRow(from + i));
        first ??= new WeakRef((batch[0] as { fields: object }).fields);
        yield batch;
      }
    });
    const job = fakeJob({ keys: () => ({ code: 'FIELD_INVALID', field: 'id', message: 'id: bad' }) });
    let emitted = 0;
    let kept: object | undefined = {};
    for await (const outcome of processRows(input, job, { window: 256, concurrency: 4 })) {
      expect(outcome.status).toBe('failed');
      if (++emitted === 20_000) {
        // A WeakRef keeps its target to the end of the task that made it: let that task end.
        await new Promise((resolve) => setImmediate(resolve));
        gc();
        kept = first?.deref();
      }
    }
    expect(emitted).toBe(40_000);
    // Before, each read the input won left a reaction on a wake-up no answer would ever resolve,
    // holding the batch it carried: the first row was still there 20,000 rows on.
    expect(kept).toBeUndefined();
    expect(job.calls).toHaveLength(0);
  });
});

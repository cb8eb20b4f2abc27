/**
 * The second pass: a request whose attempts ran out on transient faults goes back in the queue
 * once, after a delay, before its rows fail. Fake timers stand in for the delay.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SECOND_PASS_DELAY_MS } from '../../src/engine/_requests.js';
import { createCounters, type EngineCounters } from '../../src/engine/counters.js';
import { processRows } from '../../src/engine/engine.js';
import { ResponseError, ServiceError } from '../../src/errors.js';
import type { Outcome } from '../../src/types.js';
import { type FakeItem, fakeInput, fakeJob } from './_fake.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const exhausted = () =>
  new ServiceError('RETRIES_EXHAUSTED', 'elevation still answered 503 after 6 attempts', {
    status: 503,
    attempts: 6,
  });

/** A job that throws `error()` for the first `times` requests holding key `key`. */
function failing(key: string, times: number, error: () => unknown, batch = 5) {
  let failures = 0;
  return fakeJob({
    batching: { maxItems: batch, lingerMs: 3_600_000 },
    fail: (items: readonly FakeItem[]) => {
      if (!items.some((i) => i.key === key) || failures >= times) return undefined;
      failures++;
      return error();
    },
  });
}

/** Runs the engine to the end, letting fake time pass in steps while it waits. */
async function drain(job: ReturnType<typeof fakeJob>, rows: number, window = 20, windowBytes?: number) {
  const input = fakeInput(rows);
  const counters: EngineCounters = createCounters();
  const outcomes: Outcome[] = [];
  let maxAhead = 0;
  const done = (async () => {
    const options = {
      window,
      concurrency: 2,
      counters,
      ...(windowBytes === undefined ? {} : { windowBytes }),
    };
    for await (const outcome of processRows(input.items, job, options)) {
      outcomes.push(outcome);
      maxAhead = Math.max(maxAhead, input.state.pulled - outcomes.length);
    }
  })();
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  // How many rows were out each time the run had done all it could without time passing.
  const stops: number[] = [];
  await vi.advanceTimersByTimeAsync(1);
  for (let step = 0; step < 10 && !finished; step++) {
    stops.push(outcomes.length);
    await vi.advanceTimersByTimeAsync(SECOND_PASS_DELAY_MS);
  }
  await done;
  return { outcomes, counters, maxAhead, stops, pulled: input.state.pulled };
}

const codes = (outcomes: readonly Outcome[]) =>
  outcomes.map((o) => (o.status === 'ok' ? 'ok' : o.issue.code));

describe('the second pass', () => {
  it('sends a request that ran out of attempts once more, later, and its rows come out ok, in order', async () => {
    const job = failing('k7', 1, exhausted);
    const { outcomes, counters, stops } = await drain(job, 40);
    expect(outcomes.map((o) => o.ref.index)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(codes(outcomes).every((c) => c === 'ok')).toBe(true);
    // The batch of rows 5-9 went twice; the first time it failed, nothing after row 4 came out
    // until the delay had passed, but the rows behind it went on being sent meanwhile.
    expect(job.calls.map((c) => c[0]?.row)).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 5]);
    expect(stops[0]).toBe(5);
    expect(counters).toMatchObject({ requestsSent: 9, requestsFailed: 0, rowsOk: 40 });
    // The second pass is counted as sent again, and apart, so that batching is not credited twice.
    expect(counters).toMatchObject({ itemsSent: 45, requestsResent: 1, itemsResent: 5 });
  });

  it('fails the rows when the second pass fails too, with the second error', async () => {
    const job = failing('k2', 2, exhausted);
    const { outcomes, counters } = await drain(job, 10);
    expect(codes(outcomes)).toEqual([...Array(5).fill('RETRIES_EXHAUSTED'), ...Array(5).fill('ok')]);
    expect(job.calls.filter((c) => c[0]?.row === 0)).toHaveLength(2);
    expect(counters).toMatchObject({ requestsFailed: 1, failuresByCode: { RETRIES_EXHAUSTED: 5 } });
    expect(counters).toMatchObject({ requestsSent: 3, itemsSent: 15, requestsResent: 1, itemsResent: 5 });
  });

  it("counts both passes' attempts in the failed rows, and says so", async () => {
    const job = failing('k2', 2, exhausted);
    const { outcomes } = await drain(job, 10);
    const issue = outcomes[0]?.status === 'ok' ? undefined : outcomes[0]?.issue;
    expect(issue).toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      attempts: 12,
      message: 'elevation still answered 503 after 12 attempts (two passes)',
    });
  });

  it.each([
    ['TIMEOUT', () => new ServiceError('TIMEOUT', 'no answer within 30000 ms', { attempts: 6 })],
    ['NETWORK', () => new ServiceError('NETWORK', 'the connection failed (ECONNRESET)', { attempts: 6 })],
  ])('is given for %s as well', async (_, error) => {
    const job = failing('k0', 1, error);
    const { outcomes } = await drain(job, 5);
    expect(codes(outcomes)).toEqual(Array(5).fill('ok'));
    expect(job.calls).toHaveLength(2);
  });

  it.each([
    ['HTTP_STATUS', () => new ServiceError('HTTP_STATUS', 'geocoding answered 400', { status: 400 })],
    ['RESPONSE_INVALID', () => new ResponseError('features[0] missing')],
    ['a plain error', () => new Error('job bug')],
  ])('is not given when the request itself was at fault (%s)', async (_, error) => {
    const job = failing('k0', 1, error);
    const { outcomes } = await drain(job, 5);
    expect(outcomes.every((o) => o.status === 'failed')).toBe(true);
    expect(job.calls).toHaveLength(1);
  });

  it('lets the rows behind it go on while it waits, within the byte budget, and the run end after it', async () => {
    const job = failing('k0', 1, exhausted, 1);
    const { outcomes, pulled, stops } = await drain(job, 100, 16);
    expect(outcomes).toHaveLength(100);
    expect(pulled).toBe(100);
    // Row 0 waited: nothing came out before the delay; the 99 rows behind were answered meanwhile,
    // though only 16 may wait for answers at once.
    expect(stops[0]).toBe(0);
    expect(job.calls.map((c) => c[0]?.row)).toEqual([0, ...Array.from({ length: 99 }, (_, i) => i + 1), 0]);

    // Finished rows waiting behind it are bounded by windowBytes (about 600 estimated bytes a row).
    const bounded = await drain(failing('k0', 1, exhausted, 1), 100, 16, 6_000);
    expect(bounded.outcomes).toHaveLength(100);
    expect(bounded.maxAhead).toBeGreaterThanOrEqual(5);
    expect(bounded.maxAhead).toBeLessThanOrEqual(12);
    expect(bounded.stops[0]).toBe(0);
  });
});

/**
 * A stop that lets the requests in flight come back (ProcessOptions.drain): each was paid for, and
 * aborting it had the resumed run pay for it again.
 */
import { describe, expect, it } from 'vitest';
import type { AnswerCache } from '../../src/engine/answers.js';
import { type ProcessOptions, processRows } from '../../src/engine/engine.js';
import type { ItemResult } from '../../src/engine/job.js';
import { processSteps, type Step } from '../../src/engine/pipeline.js';
import { IoError, isGeobatchError, UsageError } from '../../src/errors.js';
import type { Outcome } from '../../src/types.js';
import { type FakeJob, type FakeJobOptions, fakeInput, fakeJob } from './_fake.js';

/** A fake job that also counts the requests a stop aborted and those sent after the stop. */
function counted(options: FakeJobOptions) {
  const job = fakeJob(options);
  const tally = { aborted: 0, answered: 0 };
  const execute = job.execute.bind(job);
  job.execute = async (items, signal, keys) => {
    try {
      const answer = await execute(items, signal, keys);
      tally.answered++;
      return answer;
    } catch (error) {
      if (signal.aborted) tally.aborted++;
      throw error;
    }
  };
  return { job, tally };
}

/** Pulls outcomes, aborting `controller` once `after` have come out; resolves to the rows seen and the error. */
async function pullUntilStopped(
  outcomes: AsyncIterable<Outcome>,
  controller: AbortController,
  after: number,
  reason: unknown = new UsageError('stopped by SIGINT'),
  onStop?: () => void,
) {
  const seen: number[] = [];
  const error = await (async () => {
    for await (const outcome of outcomes) {
      seen.push(outcome.ref.index);
      if (seen.length === after) {
        controller.abort(reason);
        onStop?.();
      }
    }
  })().catch((e: unknown) => e);
  return { seen, error };
}

function options(controller: AbortController, more: Partial<ProcessOptions> = {}): ProcessOptions {
  return { signal: controller.signal, window: 32, concurrency: 8, ...more };
}

describe('a stop with a drain', () => {
  it('lets the requests in flight answer, writes their rows, and sends nothing more', async () => {
    const controller = new AbortController();
    const { job, tally } = counted({ delay: () => 30 });
    let sentAtStop = 0;
    const { seen, error } = await pullUntilStopped(
      processRows(fakeInput(1000).items, job, options(controller, { drain: { ms: 5000 } })),
      controller,
      20,
      undefined,
      () => {
        sentAtStop = job.calls.length;
      },
    );
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(sentAtStop).toBeGreaterThan(20);
    expect(job.calls).toHaveLength(sentAtStop);
    expect(tally).toEqual({ aborted: 0, answered: sentAtStop });
    // Every row a request was sent for came out, in order: none paid for and dropped.
    expect(seen).toEqual(Array.from({ length: sentAtStop }, (_, i) => i));
  });

  it('ends whole, not stopped, when the last rows are answered while it waits', async () => {
    const controller = new AbortController();
    // 30 rows, all sent at once; the signal comes once every row is read and before any answer.
    const { job, tally } = counted({ delay: () => 50 });
    const seen: number[] = [];
    const outcomes = processRows(
      fakeInput(30).items,
      job,
      options(controller, { concurrency: 64, window: 64, drain: { ms: 5000 } }),
    );
    setTimeout(() => controller.abort(new UsageError('stopped by SIGINT')), 20);
    for await (const outcome of outcomes) seen.push(outcome.ref.index);
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(tally).toEqual({ aborted: 0, answered: 30 });
    expect(controller.signal.aborted).toBe(true);
  });

  it('aborts them as before without one', async () => {
    const controller = new AbortController();
    const { job, tally } = counted({ delay: () => 30 });
    const { seen, error } = await pullUntilStopped(
      processRows(fakeInput(1000).items, job, options(controller)),
      controller,
      20,
    );
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(tally.aborted).toBeGreaterThan(0);
    expect(seen.length).toBeLessThan(job.calls.length);
  });

  it('waits no longer than its time, then aborts what is still in flight', async () => {
    const controller = new AbortController();
    // Rows from 24 on take 10 s: the stop must not wait for them.
    const { job, tally } = counted({ delay: (items) => ((items[0]?.row ?? 0) >= 24 ? 10_000 : 5) });
    const started = Date.now();
    const { seen, error } = await pullUntilStopped(
      processRows(fakeInput(1000).items, job, options(controller, { drain: { ms: 150 } })),
      controller,
      20,
    );
    const took = Date.now() - started;
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(took).toBeLessThan(5000);
    // The fast rows in flight at the stop came back; the slow ones were aborted, and nothing was sent after.
    expect(seen).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(tally.aborted).toBeGreaterThan(0);
    expect(tally).toEqual({ aborted: job.calls.length - 24, answered: 24 });
  });

  it('ends the wait at once when it is cut (a second Ctrl-C)', async () => {
    const controller = new AbortController();
    const cut = new AbortController();
    const { job, tally } = counted({ delay: (items) => ((items[0]?.row ?? 0) >= 24 ? 10_000 : 5) });
    const started = Date.now();
    const { error } = await pullUntilStopped(
      processRows(
        fakeInput(1000).items,
        job,
        options(controller, { drain: { ms: 60_000, cut: cut.signal } }),
      ),
      controller,
      20,
      undefined,
      () => setTimeout(() => cut.abort(), 50),
    );
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(tally.aborted).toBeGreaterThan(0);
    expect(tally).toEqual({ aborted: job.calls.length - 24, answered: 24 });
  });

  it('does not wait when the stop is fatal (the log file failed)', async () => {
    const controller = new AbortController();
    const { job, tally } = counted({ delay: (items) => ((items[0]?.row ?? 0) >= 20 ? 10_000 : 5) });
    const logFailed = new IoError('IO_ERROR', 'writing the log failed', {
      field: 'log-file',
      file: '/x.log',
    });
    const started = Date.now();
    const { error } = await pullUntilStopped(
      processRows(fakeInput(1000).items, job, options(controller, { drain: { ms: 60_000 } })),
      controller,
      20,
      logFailed,
    );
    expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
    expect(isGeobatchError(error) && error.context).toEqual({ field: 'log-file', file: '/x.log' });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(tally).toEqual({ aborted: job.calls.length - 20, answered: 20 });
  });

  it('lets every step of a pipeline bring its requests home, their answers kept in the cache', async () => {
    const controller = new AbortController();
    // The first step answers fast, the second slowly: when the second step is done with its own
    // requests, the first still has some in flight, for rows the second will never take.
    const first = counted({ delay: () => 40 });
    const second = counted({ delay: () => 5 });
    const remembered = new Set<string>();
    const answers: AnswerCache = {
      lookup: async () => new Map<string, ItemResult<unknown>>(),
      remember: (key) => remembered.add(key),
    };
    const steps: Step[] = [
      { name: 'first', job: first.job, answers },
      { name: 'second', job: second.job as FakeJob },
    ];
    const { error } = await pullUntilStopped(
      processSteps(fakeInput(1000).items, steps, options(controller, { drain: { ms: 5000 } })),
      controller,
      20,
    );
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(first.tally.aborted).toBe(0);
    expect(second.tally.aborted).toBe(0);
    // Every request the first step sent came back and its answers reached the cache.
    expect(first.tally.answered).toBe(first.job.calls.length);
    expect(remembered.size).toBe(first.job.calls.flat().length);
  });
});

describe('a stop with a drain, in a pipeline whose later step batches', () => {
  it('carries the rows the first step paid for through the later step, its part batch sent', async () => {
    const controller = new AbortController();
    const first = counted({ delay: () => 20 });
    // Batches of 50 that wait for the first step's rows to fill them: at the stop, the rows the
    // first step answered wait in a part-full batch.
    const second = counted({ delay: () => 5, batching: { maxItems: 50, lingerMs: 1000 } });
    const steps: Step[] = [
      { name: 'first', job: first.job },
      { name: 'second', job: second.job as FakeJob },
    ];
    const { seen, error } = await pullUntilStopped(
      processSteps(fakeInput(1000).items, steps, options(controller, { drain: { ms: 5000 } })),
      controller,
      10,
    );
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    // Every row the first step answered is written: none of its requests was paid for nothing.
    expect(first.tally.aborted).toBe(0);
    expect(seen).toEqual([...first.job.executedRows].sort((a, b) => a - b));
    expect(seen.length).toBeGreaterThan(10);
    expect(second.tally.aborted).toBe(0);
  });

  it('still stops the later step at once when the drain is cut (a second Ctrl-C)', async () => {
    const controller = new AbortController();
    const cut = new AbortController();
    const first = counted({ delay: () => 20 });
    // The later step's requests take long: the cut aborts them rather than wait.
    const second = counted({ delay: () => 10_000, batching: { maxItems: 50, lingerMs: 1000 } });
    const steps: Step[] = [
      { name: 'first', job: first.job },
      { name: 'second', job: second.job as FakeJob },
    ];
    const outcomes = processSteps(
      fakeInput(200).items,
      steps,
      options(controller, { drain: { ms: 5000, cut: cut.signal } }),
    );
    setTimeout(() => controller.abort(new UsageError('stopped by SIGINT')), 200);
    setTimeout(() => cut.abort(), 400);
    const started = Date.now();
    const error = await (async () => {
      for await (const _ of outcomes);
    })().catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(second.tally.aborted).toBeGreaterThan(0);
  });
});

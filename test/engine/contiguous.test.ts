/** Contiguous groups: a group's batch leaves when the next group begins or the input ends. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processRows } from '../../src/engine/engine.js';
import type { Outcome, ReadItem } from '../../src/types.js';
import { type FakeItem, fakeJob, fakeRow } from './_fake.js';

/** Rows whose group is the letter of `groups[i]`; the item key carries it: `A0`, `A1`, `B2`... */
const grouped = (groups: string) =>
  fakeJob({
    keys: (row) => [`${groups[row.ref.index]}${row.ref.index}`],
    batching: {
      maxItems: 100,
      lingerMs: 1,
      group: (item: FakeItem) => item.key[0] as string,
      contiguous: true,
    },
  });

async function collect(items: AsyncIterable<ReadItem>, job: ReturnType<typeof fakeJob>, window = 64) {
  const outcomes: Outcome[] = [];
  for await (const outcome of processRows(items, job, { window })) outcomes.push(outcome);
  return outcomes;
}

async function* rows(count: number): AsyncGenerator<ReadItem> {
  for (let i = 0; i < count; i++) yield fakeRow(i);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('engine: contiguous groups', () => {
  it('sends each group whole as soon as the next one begins, and the last when the input ends', async () => {
    let pulled = 0;
    async function* counted(): AsyncGenerator<ReadItem> {
      for (let i = 0; i < 9; i++) {
        pulled++;
        yield fakeRow(i);
      }
    }
    const sentAfter: number[] = [];
    const job = grouped('AAABBCCCC');
    const outcomes = await collect(counted(), {
      ...job,
      execute: (items, signal) => {
        sentAfter.push(pulled);
        return job.execute(items, signal);
      },
    });
    expect(job.calls.map((call) => call.map((item) => item.key))).toEqual([
      ['A0', 'A1', 'A2'],
      ['B3', 'B4'],
      ['C5', 'C6', 'C7', 'C8'],
    ]);
    // A leaves with the first B row, B with the first C row: not at a timer, not at the end.
    expect(sentAfter).toEqual([4, 6, 9]);
    expect(outcomes.map((o) => o.ref.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('waits for the end of a group however long the input stalls, never sending on a timer', async () => {
    vi.useFakeTimers();
    const job = grouped('AAB');
    let resume: () => void = () => {};
    const stalled = new Promise<void>((resolve) => (resume = resolve));
    async function* slow(): AsyncGenerator<ReadItem> {
      yield fakeRow(0);
      yield fakeRow(1);
      await stalled;
      yield fakeRow(2);
    }
    const done = collect(slow(), job);
    // An hour of stalled input, far beyond lingerMs (1 ms): group A may still grow.
    await vi.advanceTimersByTimeAsync(3_600_000);
    expect(job.calls).toHaveLength(0);
    resume();
    await vi.advanceTimersByTimeAsync(0);
    await done;
    expect(job.calls.map((call) => call.map((item) => item.key))).toEqual([['A0', 'A1'], ['B2']]);
  });

  it('tells the job the input ended before the last group is sent', async () => {
    const job = grouped('AAB');
    const seen: number[] = [];
    await collect(rows(3), { ...job, inputEnded: () => seen.push(job.calls.length) });
    expect(seen).toEqual([1]);
    expect(job.calls).toHaveLength(2);
  });

  it('sends a full batch when the next item comes, so the job knows whether its group ended', async () => {
    const job = fakeJob({
      keys: (row) => [`${'AAAA'[row.ref.index]}${row.ref.index}`],
      batching: {
        maxItems: 2,
        lingerMs: 1,
        group: (item: FakeItem) => item.key[0] as string,
        contiguous: true,
      },
    });
    const sentAt: string[] = [];
    let ended = false;
    const watched = {
      ...job,
      inputEnded: () => {
        ended = true;
      },
      execute: (items: readonly FakeItem[], signal: AbortSignal) => {
        sentAt.push(`${items.map((i) => i.key).join(' ')}${ended ? ' (after the end)' : ''}`);
        return job.execute(items, signal);
      },
    };
    await collect(rows(4), watched);
    // A0 A1 is full: it leaves when A2 comes; A2 A3 is full too, but leaves only at the end of the
    // input: until then the job could not know that A ended with it.
    expect(sentAt).toEqual(['A0 A1', 'A2 A3 (after the end)']);
  });

  it('stops the run as INTERNAL when the job fails at the end of the input', async () => {
    const job = grouped('AB');
    const failing = {
      ...job,
      inputEnded: () => {
        throw new Error('boom');
      },
    };
    await expect(collect(rows(2), failing)).rejects.toMatchObject({
      code: 'INTERNAL',
      message: 'The fake job failed at the end of the input: boom',
    });
  });
});

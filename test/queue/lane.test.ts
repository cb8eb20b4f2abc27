import { describe, expect, it } from 'vitest';
import { FLUSH_MS, Lane, type LaneParts } from '../../src/queue/_rate-lane.js';

/** A lane over a clock the test moves and statements it answers by hand. */
function lane() {
  let now = 10_000;
  const statements: { slots: number; count: number; answer: (rate: number | null) => void }[] = [];
  const parts: LaneParts = {
    now: () => now,
    reserve: (slots, count) =>
      new Promise((resolve) => {
        statements.push({
          slots,
          count,
          answer: (rate) => resolve({ dues: Array.from({ length: slots }, (_, i) => now + i * 1000), rate }),
        });
      }),
    rtt: () => 1,
    failure: () => undefined,
  };
  return { lane: new Lane(parts), statements, advance: (ms: number) => (now += ms) };
}

const settled = async (promise: Promise<void> | undefined) => {
  let done = false;
  promise?.then(
    () => {
      done = true;
    },
    () => {},
  );
  await new Promise((r) => setTimeout(r, 0));
  return promise === undefined || done;
};

describe('rate lane', () => {
  it('lets takes of an unlimited scope pass at once while it learns every FLUSH_MS', async () => {
    const { lane: l, statements, advance } = lane();
    const first = l.take(undefined);
    expect(statements).toHaveLength(1); // a lane that never asked asks first
    statements[0]?.answer(null);
    expect(await settled(first)).toBe(true);
    advance(FLUSH_MS / 2);
    expect(l.take(undefined)).toBeUndefined();
    expect(l.take(undefined)).toBeUndefined();
    expect(statements).toHaveLength(1);
  });

  it('after a quiet spell, holds takes until the statement says whether another worker cut the scope', async () => {
    const { lane: l, statements, advance } = lane();
    const warmUp = l.take(undefined);
    statements[0]?.answer(null);
    await warmUp;
    // The warm-up take is counted into the row by the flush that follows it.
    await new Promise((r) => setTimeout(r, FLUSH_MS + 50));
    expect(statements[1]).toMatchObject({ slots: 0, count: 1 });
    statements[1]?.answer(null);
    advance(FLUSH_MS * 2);
    // Meanwhile another worker met a 429: the row now holds a rate of 1/s.
    const takes = Array.from({ length: 16 }, () => l.take(undefined));
    expect(takes.every((t) => t !== undefined)).toBe(true);
    expect(statements).toHaveLength(3);
    expect(await settled(takes[0])).toBe(false);
    statements[2]?.answer(1);
    await new Promise((r) => setTimeout(r, 0));
    // Now every take waits for a reserved slot: a statement for one slot (a tenth of a second of 1/s).
    expect(statements[3]?.slots).toBe(1);
    expect((await Promise.all(takes.map(settled))).filter(Boolean)).toHaveLength(0);
    l.close(new Error('closed'));
    await Promise.allSettled(takes);
  });
});

import { describe, expect, it } from 'vitest';
import { AdaptiveBucket } from '../../src/client/_bucket.js';

// Tolerance 0: every 429 is taken as a limit; the sporadic ones have their own tests below.
const aimd = { decrease: 0.5, increasePerSecond: 1, minRate: 0.5, tolerance: 0 };
const T0 = 1_000_000;

describe('AdaptiveBucket rate', () => {
  it('lets a burst start at once, then asks to wait 1/rate per request', () => {
    const b = new AdaptiveBucket(2, 2, undefined, T0);
    expect(b.waitMs(T0)).toBe(0);
    b.take(T0);
    b.take(T0);
    expect(b.waitMs(T0)).toBe(500);
    expect(b.waitMs(T0 + 500)).toBe(0);
  });

  it('starts one request at once, then the rate: no first second above the rate', () => {
    const b = new AdaptiveBucket(200, null, undefined, T0);
    expect(b.waitMs(T0)).toBe(0);
    b.take(T0);
    expect(b.waitMs(T0)).toBe(5);
    // Taken as soon as allowed, the first second holds the rate, the first request included (220 before).
    let sent = 1;
    for (let t = T0; t < T0 + 1000; t++)
      while (b.waitMs(t) === 0) {
        b.take(t);
        sent++;
      }
    expect(sent).toBe(200);
  });

  it('starts at the first request, not when it was made: nothing saved up while the run set itself up', () => {
    const b = new AdaptiveBucket(40, null, undefined, T0);
    // The run reads its input and builds its job for a second before its first request.
    const first = T0 + 1000;
    expect(b.waitMs(first)).toBe(0);
    b.take(first);
    expect(b.waitMs(first)).toBe(25);
  });

  it('lets a tenth of a second of requests start at once after a pause in sending, when no burst is given', () => {
    const b = new AdaptiveBucket(200, null, undefined, T0);
    b.take(T0);
    const later = T0 + 1000;
    for (let i = 0; i < 20; i++) {
      expect(b.waitMs(later)).toBe(0);
      b.take(later);
    }
    expect(b.waitMs(later)).toBe(5);
  });

  it('starts with the whole burst a job file sets', () => {
    const b = new AdaptiveBucket(10, 4, undefined, T0);
    for (let i = 0; i < 4; i++) {
      expect(b.waitMs(T0)).toBe(0);
      b.take(T0);
    }
    expect(b.waitMs(T0)).toBe(100);
  });

  it('asks to wait out a pause, and accrues nothing during it', () => {
    const b = new AdaptiveBucket(10, null, aimd, T0);
    b.pause(T0, 1000);
    expect(b.waitMs(T0 + 999)).toBe(1);
    expect(b.waitMs(T0 + 1000)).toBe(0);
    expect(b.rateAt(T0 + 1000)).toBe(10);
  });
});

describe('AdaptiveBucket AIMD', () => {
  it('halves the rate on a 429 and adds increasePerSecond back per second, up to the configured rate', () => {
    const b = new AdaptiveBucket(10, null, aimd, T0);
    expect(b.onThrottled(T0, T0, null)).toBe(true);
    expect(b.rateAt(T0)).toBe(5);
    expect(b.rateAt(T0 + 2000)).toBe(7);
    expect(b.rateAt(T0 + 62_000)).toBe(10);
  });

  it('heals a cut at 5% of the pre-cut rate per second when no increase is configured', () => {
    const b = new AdaptiveBucket(100, null, { ...aimd, increasePerSecond: null }, T0);
    b.onThrottled(T0, T0, null);
    expect(b.rateAt(T0)).toBe(50);
    expect(b.rateAt(T0 + 4000)).toBe(70);
    expect(b.rateAt(T0 + 10_000)).toBe(100);
  });

  it('cuts once per round: a 429 for a request sent before the last cut changes nothing', () => {
    const b = new AdaptiveBucket(8, null, { ...aimd, increasePerSecond: 0 }, T0);
    expect(b.onThrottled(T0 + 10, T0, null)).toBe(true);
    expect(b.onThrottled(T0 + 11, T0, null)).toBe(false);
    expect(b.rateAt(T0 + 11)).toBe(4);
    expect(b.onThrottled(T0 + 20, T0 + 15, null)).toBe(true);
    expect(b.rateAt(T0 + 20)).toBe(2);
  });

  it('does not cut again for a request sent in the millisecond of the last cut', () => {
    const b = new AdaptiveBucket(400, null, { ...aimd, increasePerSecond: 0 }, T0);
    expect(b.onThrottled(T0, T0, null)).toBe(true);
    for (let i = 0; i < 8; i++) expect(b.onThrottled(T0, T0, null)).toBe(false);
    expect(b.rateAt(T0)).toBe(200);
  });

  it('never goes below minRate', () => {
    const b = new AdaptiveBucket(1, null, { ...aimd, increasePerSecond: 0 }, T0);
    for (let i = 1; i <= 10; i++) b.onThrottled(T0 + i, T0 + i, null);
    expect(b.rateAt(T0 + 10)).toBe(aimd.minRate);
  });

  it('starts an unlimited interface at its observed send rate times the decrease', () => {
    const b = new AdaptiveBucket(null, null, { ...aimd, increasePerSecond: 0 }, T0);
    for (let i = 0; i < 40; i++) b.take(T0 + i * 25);
    b.onThrottled(T0 + 1000, T0 + 1000, null);
    expect(b.rateAt(T0 + 1000)).toBe(20);
  });

  it('reads a first burst over at least 100 ms, not as an absurd instantaneous rate', () => {
    const b = new AdaptiveBucket(null, null, { ...aimd, increasePerSecond: 0 }, T0);
    for (let i = 0; i < 32; i++) b.take(T0);
    b.onThrottled(T0 + 5, T0 + 5, null);
    expect(b.rateAt(T0 + 5)).toBe(160);
  });

  it('restarts from an empty bucket that fills only after the Retry-After pause', () => {
    const b = new AdaptiveBucket(10, 10, { ...aimd, increasePerSecond: 0 }, T0);
    b.onThrottled(T0, T0, 1000);
    expect(b.waitMs(T0 + 1000)).toBe(200);
    expect(b.waitMs(T0 + 1200)).toBe(0);
  });

  it('never cuts, and leaves an unlimited rate unlimited, with a decrease of 1', () => {
    const b = new AdaptiveBucket(null, null, { ...aimd, decrease: 1 }, T0);
    expect(b.onThrottled(T0, T0, null)).toBe(false);
    expect(b.rateAt(T0)).toBeNull();
  });

  it('keeps a fixed rate without aimd options (the global limit)', () => {
    const b = new AdaptiveBucket(10, null, undefined, T0);
    b.onThrottled(T0, T0, null);
    expect(b.rateAt(T0)).toBe(10);
  });
});

/** A fixed pseudo-random sequence (xorshift), so that a test reads the same every time. */
function xorshift(seed = 2463534242): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('AdaptiveBucket: sporadic 429s against a sustained limit', () => {
  const tolerant = { ...aimd, increasePerSecond: 0, tolerance: 0.05 };

  it('neither cuts nor pauses for 1 in 100 answers being a 429', () => {
    const b = new AdaptiveBucket(null, null, tolerant, T0);
    for (let i = 1; i <= 2000; i++) {
      const now = T0 + i;
      b.take(now);
      const throttled = i % 100 === 0;
      b.answered(now, !throttled, throttled);
      if (throttled) expect(b.onThrottled(now, now, 1000)).toBe(false);
    }
    expect(b.rateAt(T0 + 2000)).toBeNull();
    expect(b.pausedMs(T0 + 2000)).toBe(0);
  });

  it('cuts and pauses once 429s are more than the tolerated share of recent answers', () => {
    const b = new AdaptiveBucket(100, null, tolerant, T0);
    for (let i = 0; i < 100; i++) b.answered(T0 + i * 10, true, false);
    const t = T0 + 1000;
    const verdicts: boolean[] = [];
    for (let i = 1; i <= 13; i++) {
      b.answered(t + i, false, true);
      verdicts.push(b.onThrottled(t + i, t + i, 1000));
    }
    // 13 of 113 answers is the first share over 5% by more than chance: 5.65 expected, sd 2.32.
    expect(verdicts.indexOf(true)).toBe(12);
    expect(b.rateAt(t + 13)).toBe(50);
    expect(b.pausedMs(t + 13)).toBe(1000);
  });

  it('neither cuts nor pauses for random 429s just under the tolerance (4 in 100)', () => {
    const b = new AdaptiveBucket(null, null, tolerant, T0);
    const random = xorshift();
    let refused = 0;
    for (let i = 1; i <= 20_000; i++) {
      const now = T0 + i;
      b.take(now);
      const throttled = random() < 0.04;
      b.answered(now, !throttled, throttled);
      if (throttled) {
        refused++;
        expect(b.onThrottled(now, now, 1000)).toBe(false);
      }
    }
    expect(refused).toBeGreaterThan(700);
    expect(b.rateAt(T0 + 20_000)).toBeNull();
  });

  it('learns random 429s above the tolerance that a cut did not lower, and still catches a limit', () => {
    const b = new AdaptiveBucket(null, null, { ...tolerant, increasePerSecond: 1 }, T0);
    const random = xorshift();
    let now = T0;
    let cuts = 0;
    // 8% of answers refused whatever the rate: a cut or two, then none, where every crossing cut.
    for (let i = 0; i < 20_000; i++) {
      now++;
      b.take(now);
      const throttled = random() < 0.08;
      b.answered(now, !throttled, throttled);
      if (throttled && b.onThrottled(now, now, null)) cuts++;
    }
    expect(cuts).toBeGreaterThan(0);
    expect(cuts).toBeLessThanOrEqual(2);
    // Then a limit: half the answers refused. It is caught within a few dozen answers.
    let caughtAfter = -1;
    for (let i = 1; i <= 100 && caughtAfter < 0; i++) {
      now++;
      b.take(now);
      const throttled = i % 2 === 0;
      b.answered(now, !throttled, throttled);
      if (throttled && b.onThrottled(now, now, null)) caughtAfter = i;
    }
    expect(caughtAfter).toBeGreaterThan(0);
    expect(caughtAfter).toBeLessThanOrEqual(60);
  });

  it('ignores a Retry-After on a sporadic 503 but pauses for a sustained run of them', () => {
    const b = new AdaptiveBucket(10, null, tolerant, T0);
    for (let i = 0; i < 99; i++) b.answered(T0, true, false);
    b.answered(T0, false, true);
    b.pause(T0, 5000);
    expect(b.pausedMs(T0)).toBe(0);
    for (let i = 0; i < 20; i++) b.answered(T0, false, true);
    b.pause(T0, 5000);
    expect(b.pausedMs(T0)).toBe(5000);
  });
});

describe('AdaptiveBucket: the way back after a cut', () => {
  it('climbs back to the rate of the first cut of a series by doubling every second', () => {
    const b = new AdaptiveBucket(400, null, { ...aimd, increasePerSecond: null }, T0);
    // Four rounds in a row, each answered with a 429 before the rate could grow back.
    for (let i = 1; i <= 4; i++) b.onThrottled(T0 + i, T0 + i, null);
    // (The rounds are a millisecond apart, in which the rate grows a little.)
    expect(b.rateAt(T0 + 4)).toBeCloseTo(25, 0);
    expect(b.rateAt(T0 + 4 + 1000)).toBeCloseTo(50, 0);
    expect(b.rateAt(T0 + 4 + 3000)).toBe(200);
    // Past the first cut's rate, the gentle probe: 5% of 400 a second.
    expect(b.rateAt(T0 + 4 + 4000)).toBeCloseTo(220, 5);
  });

  it('probes gently from a cut that came after the rate had grown back: the limit is there', () => {
    const b = new AdaptiveBucket(400, null, { ...aimd, increasePerSecond: null }, T0);
    b.onThrottled(T0, T0, null);
    expect(b.rateAt(T0 + 3000)).toBeCloseTo(260, 5);
    b.onThrottled(T0 + 3000, T0 + 3000, null);
    expect(b.rateAt(T0 + 3000)).toBeCloseTo(130, 5);
    expect(b.rateAt(T0 + 4000)).toBeCloseTo(143, 5);
  });

  it('never cuts below half the rate of successful answers over the last second', () => {
    const b = new AdaptiveBucket(1000, null, { ...aimd, increasePerSecond: 0 }, T0);
    for (let i = 0; i < 400; i++) b.answered(T0 + i * 2, true, false);
    const now = T0 + 1000;
    for (let i = 0; i < 5; i++) b.onThrottled(now + i, now + i, null);
    // 400 answers a second, a little less as the window slides on.
    expect(b.rateAt(now + 5)).toBeCloseTo(200, -1);
    expect(b.rateAt(now + 5)).toBeLessThanOrEqual(200);
  });
});

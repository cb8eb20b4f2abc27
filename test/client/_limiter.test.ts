import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Limiter } from '../../src/client/_limiter.js';

const aimd = { decrease: 0.5, increasePerSecond: 1, minRate: 0.5 };

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('Limiter concurrency', () => {
  it('grants up to the concurrency at once and serves waiters first come, first served', async () => {
    const limiter = new Limiter({ concurrency: 2, rate: null, burst: null });
    expect(limiter.acquire()).toBeUndefined();
    expect(limiter.acquire()).toBeUndefined();
    const order: string[] = [];
    const a = limiter.acquire()?.then(() => order.push('a'));
    const b = limiter.acquire()?.then(() => order.push('b'));
    expect(limiter.waiting).toBe(2);
    limiter.release();
    limiter.release();
    await Promise.all([a, b]);
    expect(order).toEqual(['a', 'b']);
    expect(limiter.active).toBe(2);
  });

  it('rejects an aborted waiter with ABORTED and does not consume its slot', async () => {
    const limiter = new Limiter({ concurrency: 1, rate: null, burst: null });
    limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    limiter.release();
    expect(limiter.acquire()).toBeUndefined();
  });

  it('rejects every waiter on close', async () => {
    const limiter = new Limiter({ concurrency: 1, rate: null, burst: null });
    limiter.acquire();
    const waiting = limiter.acquire();
    limiter.close(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
  });
});

describe('Limiter rate', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('lets a burst through, then spaces requests at the rate', async () => {
    const limiter = new Limiter({ concurrency: 100, rate: 2, burst: 2 });
    expect(limiter.acquire()).toBeUndefined();
    expect(limiter.acquire()).toBeUndefined();
    let granted = false;
    limiter.acquire()?.then(() => {
      granted = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(granted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toBe(true);
  });

  it('holds every request while a Retry-After pause runs, even with slots and tokens free', async () => {
    const limiter = new Limiter({ concurrency: 10, rate: null, burst: null });
    limiter.onThrottled(Date.now(), 1000);
    let granted = false;
    limiter.acquire()?.then(() => {
      granted = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(granted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toBe(true);
  });
});

describe('Limiter pause', () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('holds requests for a Retry-After without a 429 but keeps the rate', async () => {
    const limiter = new Limiter({ concurrency: 10, rate: 10, burst: null, aimd });
    limiter.pause(500);
    let granted = false;
    limiter.acquire()?.then(() => {
      granted = true;
    });
    await vi.advanceTimersByTimeAsync(499);
    expect(granted).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(granted).toBe(true);
    expect(limiter.rate).toBe(10);
  });
});

describe('Limiter AIMD', () => {
  it('halves the rate on a 429 and adds increasePerSecond back per second, up to the configured rate', () => {
    const c = clock();
    const limiter = new Limiter({ concurrency: 10, rate: 10, burst: null, aimd, now: c.now });
    limiter.onThrottled(c.now(), null);
    expect(limiter.rate).toBe(5);
    c.advance(2000);
    expect(limiter.rate).toBe(7);
    c.advance(60_000);
    expect(limiter.rate).toBe(10);
  });

  it('cuts once per round: a 429 for a request sent before the last cut changes nothing', () => {
    const c = clock();
    const limiter = new Limiter({
      concurrency: 10,
      rate: 8,
      burst: null,
      aimd: { ...aimd, increasePerSecond: 0 },
      now: c.now,
    });
    const sentEarly = c.now();
    c.advance(10);
    limiter.onThrottled(sentEarly, null);
    expect(limiter.rate).toBe(4);
    limiter.onThrottled(sentEarly, null);
    expect(limiter.rate).toBe(4);
    c.advance(10);
    limiter.onThrottled(c.now(), null);
    expect(limiter.rate).toBe(2);
  });

  it('heals a cut at 5% of the pre-cut rate per second when no increase is configured', () => {
    const c = clock();
    const limiter = new Limiter({
      concurrency: 10,
      rate: 100,
      burst: null,
      aimd: { ...aimd, increasePerSecond: null },
      now: c.now,
    });
    limiter.onThrottled(c.now(), null);
    expect(limiter.rate).toBe(50);
    c.advance(4000);
    expect(limiter.rate).toBe(70);
    c.advance(6000);
    expect(limiter.rate).toBe(100);
  });

  it('reads a first burst over at least 100 ms, not as an absurd instantaneous rate', () => {
    const c = clock();
    const limiter = new Limiter({
      concurrency: 1000,
      rate: null,
      burst: null,
      aimd: { ...aimd, increasePerSecond: 0 },
      now: c.now,
    });
    for (let i = 0; i < 32; i++) limiter.acquire();
    c.advance(5);
    limiter.onThrottled(c.now(), null);
    expect(limiter.rate).toBe(160);
  });

  it('never cuts, and leaves an unlimited rate unlimited, with a decrease of 1', () => {
    const c = clock();
    const limiter = new Limiter({
      concurrency: 10,
      rate: null,
      burst: null,
      aimd: { ...aimd, decrease: 1 },
      now: c.now,
    });
    limiter.onThrottled(c.now(), null);
    expect(limiter.rate).toBeNull();
  });

  it('never goes below minRate', () => {
    const c = clock();
    const limiter = new Limiter({
      concurrency: 10,
      rate: 1,
      burst: null,
      aimd: { ...aimd, increasePerSecond: 0 },
      now: c.now,
    });
    for (let i = 0; i < 10; i++) {
      c.advance(1);
      limiter.onThrottled(c.now(), null);
    }
    expect(limiter.rate).toBe(aimd.minRate);
  });

  it('starts an unlimited interface at its observed send rate times the decrease', () => {
    const c = clock();
    const limiter = new Limiter({
      concurrency: 1000,
      rate: null,
      burst: null,
      aimd: { ...aimd, increasePerSecond: 0 },
      now: c.now,
    });
    expect(limiter.rate).toBeNull();
    for (let i = 0; i < 40; i++) {
      limiter.acquire();
      c.advance(25);
    }
    // 40 grants within the last second
    limiter.onThrottled(c.now(), null);
    expect(limiter.rate).toBe(20);
  });

  it('keeps the global limit fixed: without aimd options a 429 changes no rate', () => {
    const c = clock();
    const limiter = new Limiter({ concurrency: 10, rate: 10, burst: null, now: c.now });
    limiter.onThrottled(c.now(), null);
    expect(limiter.rate).toBe(10);
  });
});

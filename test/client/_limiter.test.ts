import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Limiter } from '../../src/client/_limiter.js';

// Tolerance 0: every 429 is taken as a limit, the mechanics under test here.
const aimd = { decrease: 0.5, increasePerSecond: 1, minRate: 0.5, tolerance: 0 };

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

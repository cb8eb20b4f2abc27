import { describe, expect, it, vi } from 'vitest';
import { resolveOptions } from '../../src/client/options.js';
import { Throttle } from '../../src/client/throttle.js';

function throttle(global: number, perInterface: Record<string, number> = {}) {
  const interfaces = Object.fromEntries(
    Object.entries(perInterface).map(([k, v]) => [k, { concurrency: v }]),
  );
  // Tolerance 0: every 429 is taken as a limit, so one 429 pauses and cuts.
  const aimd = { tolerance: 0 };
  return new Throttle(resolveOptions({ throttle: { global: { concurrency: global }, interfaces, aimd } }));
}

describe('Throttle', () => {
  it('makes a request take a slot in its interface and in the global limit', async () => {
    const t = throttle(1);
    expect(t.acquire('geocoding')).toBeUndefined();
    const other = t.acquire('elevation');
    expect(other).toBeInstanceOf(Promise);
    t.release('geocoding');
    await other;
  });

  it('lets a request to another interface pass while one interface waits for its own slot', () => {
    const t = throttle(4, { geocoding: 1 });
    expect(t.acquire('geocoding')).toBeUndefined();
    const queued = t.acquire('geocoding');
    expect(queued).toBeInstanceOf(Promise);
    expect(t.acquire('elevation')).toBeUndefined();
    void queued;
  });

  it('gives the interface slot back when the wait for a global slot is aborted', async () => {
    const t = throttle(1, { geocoding: 1 });
    expect(t.acquire('elevation')).toBeUndefined();
    const controller = new AbortController();
    const waiting = t.acquire('geocoding', controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    t.release('elevation');
    expect(t.acquire('geocoding')).toBeUndefined();
  });

  it('holds a request that waited for a global slot while a 429 paused its interface', async () => {
    vi.useFakeTimers();
    try {
      const t = throttle(1);
      expect(t.acquire('geocoding')).toBeUndefined();
      let started = false;
      const queued = t.acquire('geocoding')?.then(() => {
        started = true;
      });
      t.onThrottled('geocoding', Date.now(), 1000);
      t.release('geocoding');
      await vi.advanceTimersByTimeAsync(999);
      expect(started).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(started).toBe(true);
      await queued;
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives both slots back when a request waiting out its paused interface is aborted', async () => {
    const t = throttle(1, { geocoding: 1 });
    expect(t.acquire('geocoding')).toBeUndefined();
    const controller = new AbortController();
    const other = t.acquire('elevation', controller.signal);
    t.onThrottled('elevation', Date.now(), 60_000);
    t.release('geocoding');
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await expect(other).rejects.toMatchObject({ code: 'ABORTED' });
    expect(t.acquire('geocoding')).toBeUndefined();
  });

  it("cuts only the throttled interface's rate on a 429", () => {
    const t = new Throttle(
      resolveOptions({
        throttle: {
          interfaces: { geocoding: { rate: 10 }, elevation: { rate: 10 } },
          aimd: { tolerance: 0 },
        },
      }),
    );
    t.onThrottled('geocoding', Date.now(), null);
    expect(t.rate('geocoding')).toBeLessThan(10);
    expect(t.rate('elevation')).toBe(10);
  });

  it('does not pause an interface for Retry-After when pauseOnRetryAfter is off', () => {
    const t = new Throttle(resolveOptions({ throttle: { pauseOnRetryAfter: false, aimd: { decrease: 1 } } }));
    t.onThrottled('geocoding', Date.now(), 60_000);
    expect(t.acquire('geocoding')).toBeUndefined();
  });

  it('lets a sporadic 429 change nothing for the other requests of its interface', () => {
    const t = new Throttle(resolveOptions({ throttle: { interfaces: { geocoding: { rate: 100 } } } }));
    for (let i = 0; i < 99; i++) t.answered('geocoding', 200, false);
    t.answered('geocoding', 429, true);
    expect(t.onThrottled('geocoding', Date.now(), 1000)).toBeUndefined();
    expect(t.rate('geocoding')).toBe(100);
    expect(t.acquire('geocoding')).toBeUndefined();
  });
});

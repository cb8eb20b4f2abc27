import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReportTimeline } from '../../src/report/timeline.js';

afterEach(() => vi.useRealTimers());

const at = (n: number) => ({ rows: n * 10, failed: n, requests: n * 2, throttled: 0 });

describe('createReportTimeline', () => {
  it('records cumulative counts against the time since the first sample', () => {
    let now = 5000;
    const timeline = createReportTimeline({ now: () => now });
    timeline.record(at(0));
    now = 6000;
    timeline.record({ rows: 12, failed: 1, requests: 3, throttled: 2 });
    expect(timeline.points()).toEqual([
      { t: 0, rows: 0, failed: 0, requests: 0, throttled: 0 },
      { t: 1000, rows: 12, failed: 1, requests: 3, throttled: 2 },
    ]);
  });

  it('stays within maxPoints over a long run, keeping the first and the newest sample', () => {
    let now = 0;
    const timeline = createReportTimeline({ maxPoints: 100, now: () => now });
    for (let s = 0; s <= 86_400; s++) {
      now = s * 1000;
      timeline.record(at(s));
    }
    const points = timeline.points();
    expect(points.length).toBeLessThanOrEqual(100);
    expect(points.length).toBeGreaterThan(50);
    expect(points[0]).toEqual({ t: 0, ...at(0) });
    expect(points.at(-1)).toEqual({ t: 86_400_000, ...at(86_400) });
    // Cumulative counts survive thinning: every sample still matches its own time.
    for (const p of points) expect(p.rows).toBe((p.t / 1000) * 10);
  });

  it('tracks counters every interval and takes a last sample when stopped', () => {
    vi.useFakeTimers({ now: 0 });
    let n = 0;
    const timeline = createReportTimeline();
    const stop = timeline.track(() => at(n), 1000);
    n = 3;
    vi.advanceTimersByTime(1000);
    n = 7;
    vi.advanceTimersByTime(1000);
    n = 8;
    vi.advanceTimersByTime(400);
    stop();
    n = 9;
    vi.advanceTimersByTime(5000);
    expect(timeline.points().map((p) => [p.t, p.rows])).toEqual([
      [0, 0],
      [1000, 30],
      [2000, 70],
      [2400, 80],
    ]);
  });

  it('refuses fewer than two points', () => {
    expect(() => createReportTimeline({ maxPoints: 1 })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: 'Expected `maxPoints` to be an integer of at least 2, got `1`',
      }),
    );
  });
});

import { describe, expect, it } from 'vitest';
import { Metrics } from '../../src/client/metrics.js';

describe('Metrics', () => {
  it('counts attempts by interface and outcome, 429s, retries by cause and fatal errors', () => {
    const m = new Metrics();
    m.request('geocoding', 200, 5);
    m.request('geocoding', 429, 5);
    m.request('geocoding', 'network', 5);
    m.request('elevation', 200, 5);
    m.retry('429');
    m.retry('network');
    m.retry('429');
    m.fatal();
    m.throttleWait(12.4);
    m.tokenFetched();
    const s = m.snapshot();
    expect(s.requests).toEqual({
      total: 4,
      byInterface: { geocoding: { '200': 1, '429': 1, network: 1 }, elevation: { '200': 1 } },
    });
    expect(s.retries).toEqual({ total: 3, byCause: { '429': 2, network: 1 } });
    expect(s.throttled429).toBe(1);
    expect(s.fatal).toBe(1);
    expect(s.throttleWaits).toEqual({ count: 1, totalMs: 12 });
    expect(s.tokensFetched).toBe(1);
  });

  it('reports percentiles from log-spaced buckets within one bucket (~19%) of the truth', () => {
    const m = new Metrics();
    for (let i = 1; i <= 1000; i++) m.request('routing', 200, i);
    const { latencyMs } = m.snapshot();
    expect(latencyMs.count).toBe(1000);
    expect(latencyMs.max).toBe(1000);
    expect(latencyMs.mean).toBe(500.5);
    for (const [value, truth] of [
      [latencyMs.p50, 500],
      [latencyMs.p90, 900],
      [latencyMs.p99, 990],
    ] as const) {
      expect(value).toBeGreaterThanOrEqual(truth);
      expect(value).toBeLessThanOrEqual(truth * 1.19);
    }
    expect(latencyMs.buckets.reduce((n, b) => n + b.count, 0)).toBe(1000);
  });

  it('reports zeros before any request, and snapshots that later requests do not change', () => {
    const m = new Metrics();
    const before = m.snapshot();
    expect(before.latencyMs).toMatchObject({ count: 0, p50: 0, p99: 0, max: 0, buckets: [] });
    m.request('area', 200, 3);
    expect(before.requests.total).toBe(0);
  });
});

/** Client metrics as chunks carry them: what was spent since the last chunk ended, added up again. */
import { describe, expect, it } from 'vitest';
import { Metrics as ClientMetrics } from '../../src/client/metrics.js';
import { addMetrics, type Metrics, Spending, subtractMetrics } from '../../src/queue/_metrics.js';

const snapshot = (m: ClientMetrics) => m.snapshot() as unknown as Metrics;

describe('Spending', () => {
  it('hands each request to exactly one take, and a take given back to the next', () => {
    const client = new ClientMetrics();
    const spending = new Spending(() => snapshot(client));
    for (let i = 0; i < 3; i++) client.request('geocoding', 200, 10);
    const first = spending.take();
    client.request('geocoding', 500, 10);
    client.retry('500');
    const second = spending.take();
    // The chunk that was to carry `second` was done by another worker: the next take carries it.
    spending.giveBack(second);
    client.request('geocoding', 200, 10);
    const third = spending.take();
    expect(first).toMatchObject({ requests: { total: 3, byInterface: { geocoding: { 200: 3 } } } });
    expect(third).toMatchObject({
      requests: { total: 2, byInterface: { geocoding: { 200: 1, 500: 1 } } },
      retries: { total: 1, byCause: { 500: 1 } },
    });
    // Added up, the takes are the client's own count.
    expect(addMetrics(first, third)).toMatchObject({
      requests: snapshot(client).requests,
      retries: snapshot(client).retries,
    });
  });
});

describe('addMetrics and subtractMetrics', () => {
  it('read latency percentiles again from the histograms, not add them', () => {
    const slow = new ClientMetrics();
    const fast = new ClientMetrics();
    for (let i = 0; i < 10; i++) slow.request('geocoding', 200, 1000);
    for (let i = 0; i < 90; i++) fast.request('geocoding', 200, 10);
    const both = new ClientMetrics();
    for (let i = 0; i < 10; i++) both.request('geocoding', 200, 1000);
    for (let i = 0; i < 90; i++) both.request('geocoding', 200, 10);
    const sum = addMetrics(snapshot(slow), snapshot(fast));
    expect(sum.latencyMs).toEqual(snapshot(both).latencyMs);
    // And taken apart again: the fast half's histogram, count and mean (its largest value cannot be
    // taken apart, so the percentiles are the buckets' bounds, not clamped to it).
    const back = subtractMetrics(sum, snapshot(slow)).latencyMs as Record<string, unknown>;
    const fastLatency = snapshot(fast).latencyMs as Record<string, unknown>;
    expect(back).toMatchObject({ count: 90, mean: 10, buckets: fastLatency.buckets });
  });

  it('keep the newest text of a leaf that is not a number', () => {
    const before = { cache: { location: 'postgres://q', hits: 2, problem: null } };
    const now = { cache: { location: 'postgres://q', hits: 5, problem: 'full' } };
    expect(subtractMetrics(now, before)).toEqual({
      cache: { location: 'postgres://q', hits: 3, problem: 'full' },
    });
  });
});

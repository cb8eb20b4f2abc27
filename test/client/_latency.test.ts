import { describe, expect, it } from 'vitest';
import { COLD_HEDGE_MS, HEDGE_MIN_MS, Latencies, OperationLatency } from '../../src/client/_latency.js';

const options = { timeoutMs: 30_000, adaptive: true, minMs: 5000, hedge: true };

function warmed(ms: readonly number[]): OperationLatency {
  const op = new OperationLatency();
  for (const m of ms) op.record(m);
  return op;
}

describe('the adaptive deadline', () => {
  it('is the configured timeout until the operation has 20 answers to go by', () => {
    const latencies = new Latencies(options);
    expect(latencies.deadlineMs(warmed(Array(19).fill(10)), false)).toBe(30_000);
    expect(latencies.deadlineMs(warmed(Array(20).fill(10)), false)).toBe(5000);
  });

  it("is 4 x the operation's slowest recent answer, between the floor and the timeout", () => {
    const latencies = new Latencies(options);
    expect(latencies.deadlineMs(warmed([...Array(30).fill(100), 2000]), false)).toBe(8000);
    expect(latencies.deadlineMs(warmed([...Array(30).fill(100), 9000]), false)).toBe(30_000);
  });

  it('forgets a slow answer once 128 newer ones came', () => {
    const latencies = new Latencies(options);
    const op = warmed([2000, ...Array(127).fill(100)]);
    expect(latencies.deadlineMs(op, false)).toBe(8000);
    for (let i = 0; i < 16; i++) op.record(100);
    expect(latencies.deadlineMs(op, false)).toBe(5000);
  });

  it('gives every attempt after a timeout the configured timeout, so a slow answer is cut once at most', () => {
    const latencies = new Latencies(options);
    expect(latencies.deadlineMs(warmed(Array(40).fill(10)), true)).toBe(30_000);
  });

  it('is the configured timeout, always, when adaptation is off', () => {
    const latencies = new Latencies({ ...options, adaptive: false });
    expect(latencies.deadlineMs(warmed(Array(40).fill(10)), false)).toBe(30_000);
  });

  it('keeps operations apart: a slow one does not lend its latency to a fast one', () => {
    const latencies = new Latencies(options);
    const route = latencies.of('routing', 'POST', '/route');
    const geocode = latencies.of('geocoding', 'POST', '/geocode');
    for (let i = 0; i < 40; i++) {
      route.record(3000);
      geocode.record(5);
    }
    expect(latencies.of('routing', 'POST', '/route')).toBe(route);
    expect(latencies.deadlineMs(route, false)).toBe(12_000);
    expect(latencies.deadlineMs(geocode, false)).toBe(5000);
  });
});

describe('the summary of recent answers', () => {
  it('gives the p95 and the maximum of the last 128 answers, as a sort of them would', () => {
    let seed = 11;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const op = new OperationLatency();
    const seen: number[] = [];
    for (let i = 1; i <= 600; i++) {
      // Mostly fast, some slow, some equal: ties and a changing window.
      const ms = next() < 0.1 ? 200 + Math.floor(next() * 800) : Math.floor(next() * 30);
      op.record(ms);
      seen.push(ms);
      // Summarised at the 20th answer, then every 16th.
      if (i >= 20 && (i - 20) % 16 === 0) {
        const kept = seen.slice(-128).sort((a, b) => a - b);
        expect(op.p95, `after ${i}`).toBe(kept[Math.ceil(0.95 * kept.length) - 1]);
        expect(op.max, `after ${i}`).toBe(kept[kept.length - 1]);
      }
    }
  });

  it('finds an operation by service, method and path without mixing them', () => {
    const latencies = new Latencies(options);
    const a = latencies.of('geocoding', 'POST', '/geocode');
    expect(latencies.of('geocodingP', 'OST', '/geocode')).not.toBe(a);
    expect(latencies.of('geocoding', 'POST', '/geocode')).toBe(a);
  });
});

describe('the hedge', () => {
  it('comes after a second, or 4 x the slowest answer so far, while the operation is cold', () => {
    const latencies = new Latencies(options);
    expect(latencies.hedgeAfterMs(new OperationLatency(), 30_000)).toBe(COLD_HEDGE_MS);
    expect(latencies.hedgeAfterMs(warmed(Array(19).fill(100)), 30_000)).toBe(COLD_HEDGE_MS);
    expect(latencies.hedgeAfterMs(warmed([100, 2000]), 30_000)).toBe(8000);
    expect(latencies.hedgeAfterMs(warmed([100, 5000]), 30_000)).toBeUndefined();
  });

  it('goes, for a cold operation, only once it has 8 answers, each 4 x faster than this wait', () => {
    const latencies = new Latencies(options);
    expect(latencies.stillSlow(new OperationLatency(), COLD_HEDGE_MS)).toBe(false);
    expect(latencies.stillSlow(warmed(Array(7).fill(5)), COLD_HEDGE_MS)).toBe(false);
    expect(latencies.stillSlow(warmed(Array(8).fill(5)), COLD_HEDGE_MS)).toBe(true);
    expect(latencies.stillSlow(warmed([...Array(7).fill(5), 800]), COLD_HEDGE_MS)).toBe(false);
    expect(latencies.stillSlow(warmed(Array(20).fill(800)), 100)).toBe(true);
  });

  it("comes after 2 x the operation's p95, never before 50 ms, once warm", () => {
    const latencies = new Latencies(options);
    expect(latencies.hedgeAfterMs(warmed(Array(100).fill(100)), 5000)).toBe(200);
    expect(latencies.hedgeAfterMs(warmed(Array(100).fill(2)), 5000)).toBe(HEDGE_MIN_MS);
    // p95 of 1..100 is 95.
    const spread = warmed(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(latencies.hedgeAfterMs(spread, 5000)).toBe(190);
  });

  it('is not sent when it would come after half the deadline, nor when hedging is off', () => {
    expect(new Latencies(options).hedgeAfterMs(warmed(Array(40).fill(3000)), 10_000)).toBeUndefined();
    expect(new Latencies({ ...options, hedge: false }).hedgeAfterMs(warmed(Array(40).fill(10)), 5000)).toBe(
      undefined,
    );
  });

  it('is budgeted: 1 to start with, 1 per 20 requests, and 1 per second when requests stop', () => {
    let now = 0;
    const latencies = new Latencies({ ...options, now: () => now });
    const op = warmed(Array(40).fill(10));
    expect(latencies.takeHedge()).toBe(true);
    expect(latencies.takeHedge()).toBe(false);
    for (let i = 0; i < 20; i++) latencies.hedgeAfterMs(op, 5000);
    expect(latencies.takeHedge()).toBe(true);
    expect(latencies.takeHedge()).toBe(false);
    now += 1000;
    expect(latencies.takeHedge()).toBe(true);
    expect(latencies.takeHedge()).toBe(false);
  });
});

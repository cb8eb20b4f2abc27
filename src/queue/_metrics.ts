/**
 * Client and cache metrics as a distributed run moves them: a worker's client counts from its
 * start, and each chunk that ends takes what was spent since the last one ended (a difference);
 * the coordinator adds up the differences of the chunks it takes. Every count a worker made is
 * then in exactly one chunk, so a run's total does not depend on how many sessions it took.
 *
 * Numbers are added and subtracted leaf by leaf; other leaves (the cache's location, its mode) are
 * the newest. A latency summary (client metrics' `latencyMs`) is not additive by leaf: its
 * histogram is, and its percentiles are read again from the histogram.
 */
import { percentile } from '../client/metrics.js';

export type Metrics = Record<string, unknown>;

interface Bucket {
  readonly le: number;
  readonly count: number;
}

interface Latency {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
  readonly buckets: readonly Bucket[];
}

function isRecord(value: unknown): value is Metrics {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isLatency(value: unknown): value is Latency {
  return isRecord(value) && typeof value.count === 'number' && Array.isArray(value.buckets);
}

/** `a + b`, leaf by leaf. */
export function addMetrics(a: Metrics, b: Metrics): Metrics {
  return combine(a, b, 1);
}

/** `now - before`, leaf by leaf: what was spent between two readings of the same counters. */
export function subtractMetrics(now: Metrics, before: Metrics): Metrics {
  return combine(now, before, -1);
}

function combine(a: Metrics, b: Metrics, sign: 1 | -1): Metrics {
  const out: Metrics = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const mine = a[key];
    if (typeof value === 'number') out[key] = (typeof mine === 'number' ? mine : 0) + sign * value;
    else if (isLatency(value) || isLatency(mine))
      out[key] = latency(isLatency(mine) ? mine : undefined, isLatency(value) ? value : undefined, sign);
    else if (isRecord(value)) out[key] = combine(isRecord(mine) ? mine : {}, value, sign);
    else if (!(key in out)) out[key] = value;
  }
  return out;
}

/** Histograms added (or subtracted) bucket by bucket, the summary read again from the result. */
function latency(a: Latency | undefined, b: Latency | undefined, sign: 1 | -1): Latency {
  const counts = new Map<number, number>();
  for (const bucket of a?.buckets ?? []) counts.set(bucket.le, bucket.count);
  for (const bucket of b?.buckets ?? [])
    counts.set(bucket.le, (counts.get(bucket.le) ?? 0) + sign * bucket.count);
  const buckets = [...counts]
    .filter(([, count]) => count > 0)
    .sort(([x], [y]) => x - y)
    .map(([le, count]) => ({ le, count }));
  const count = Math.max(0, (a?.count ?? 0) + sign * (b?.count ?? 0));
  const sum = (a === undefined ? 0 : a.mean * a.count) + sign * (b === undefined ? 0 : b.mean * b.count);
  // The largest value seen cannot be taken apart: a difference keeps the larger reading's.
  const max = Math.max(a?.max ?? 0, b?.max ?? 0);
  const at = (q: number) => Math.min(percentile(buckets, count, q), max);
  return {
    count,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max,
    mean: count === 0 ? 0 : Math.round((sum / count) * 100) / 100,
    buckets,
  };
}

/**
 * What this process's client and cache spent for one run, handed to chunks as they end: `take`
 * gives what was spent since the last take; `giveBack` returns a take that no chunk kept (it was
 * done by another worker already, or the database failed), so that the next take carries it.
 */
export class Spending {
  #taken: Metrics = {};

  /** @param read the counts now, since the client and cache began */
  constructor(readonly read: () => Metrics) {}

  take(): Metrics {
    const now = this.read();
    const spent = subtractMetrics(now, this.#taken);
    this.#taken = now;
    return spent;
  }

  giveBack(spent: Metrics): void {
    this.#taken = subtractMetrics(this.#taken, spent);
  }
}

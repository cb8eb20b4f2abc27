/**
 * Counters and a latency histogram for the run summary. Plain numbers in plain objects: updating
 * them is on the path of every request, so there is nothing here but increments.
 */
import { countHttpAttempt } from '../http-attempts.js';
import type { InterfaceName } from './options.js';
import { INTERFACE_NAMES } from './options.js';
import type { RetryCause } from './retry.js';

/** Log-spaced buckets: 4 per doubling from 0.25 ms, so any percentile is within ~19% of the truth. */
const BUCKETS_PER_DOUBLING = 4;
const FIRST_BOUND_MS = 0.25;
const BUCKET_COUNT = 4 * 20; // up to 0.25 ms * 2^20, about 4.4 minutes
const BOUNDS: readonly number[] = Array.from(
  { length: BUCKET_COUNT },
  (_, i) => FIRST_BOUND_MS * 2 ** ((i + 1) / BUCKETS_PER_DOUBLING),
);

export interface LatencySnapshot {
  count: number;
  /** Upper bounds of the buckets holding the percentiles, ms; 0 when nothing was measured. */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
  /** Non-empty buckets: `le` is the bucket's upper bound in ms. */
  buckets: { le: number; count: number }[];
}

export interface ClientMetricsSnapshot {
  /**
   * Attempts sent (every retry and hedge counts), each once, by interface and outcome: HTTP
   * status, `network`, `timeout`, `abandoned` (written to its connection, then given up because
   * another attempt of the same request answered first), or `aborted` (written, then cut off
   * unanswered by a stop of the caller; the service may have read it). An attempt abandoned or
   * aborted while it still waited for a connection, or whose connection failed (refused, a
   * connect timeout), never left, and is not counted.
   */
  requests: { total: number; byInterface: Partial<Record<InterfaceName, Record<string, number>>> };
  /** Attempts that were retried, by cause. */
  retries: { total: number; byCause: Partial<Record<RetryCause, number>> };
  /** 429 answers received. */
  throttled429: number;
  /** Errors that stop the run (401/402/403/412, rejected credentials). */
  fatal: number;
  /** Acquisitions that had to wait for a throttle slot, and how long they waited in total. */
  throttleWaits: { count: number; totalMs: number };
  /** Autocomplete tokens fetched. */
  tokensFetched: number;
  /** Second attempts written while a slow first one was still out, and how many answered first. */
  hedges: { sent: number; won: number };
  /** Time from sending an attempt to having its whole body, ms. */
  latencyMs: LatencySnapshot;
}

export class Metrics {
  #requests = 0;
  readonly #byInterface: Partial<Record<InterfaceName, Record<string, number>>> = {};
  #retries = 0;
  readonly #byCause: Partial<Record<RetryCause, number>> = {};
  #throttled = 0;
  #fatal = 0;
  #waits = 0;
  #waitMs = 0;
  #tokens = 0;
  #hedges = 0;
  #hedgesWon = 0;
  readonly #histogram = new Uint32Array(BUCKET_COUNT + 1);
  #latencyCount = 0;
  #latencySum = 0;
  #latencyMax = 0;

  /** One attempt ended with `outcome` (a status, `network` or `timeout`) after `latencyMs`. */
  request(name: InterfaceName, outcome: number | 'network' | 'timeout', latencyMs: number): void {
    this.#count(name, outcome);
    if (outcome === 429) this.#throttled++;
    this.#latencyCount++;
    this.#latencySum += latencyMs;
    if (latencyMs > this.#latencyMax) this.#latencyMax = latencyMs;
    const bucket = bucketOf(latencyMs);
    this.#histogram[bucket] = (this.#histogram[bucket] ?? 0) + 1;
  }

  /** An attempt cut off unanswered because the caller stopped; no latency. */
  aborted(name: InterfaceName): void {
    this.#count(name, 'aborted');
  }

  /** An attempt given up because the other attempt of its hedged pair answered; no latency. */
  abandoned(name: InterfaceName): void {
    this.#count(name, 'abandoned');
  }

  hedge(): void {
    this.#hedges++;
  }

  hedgeWon(): void {
    this.#hedgesWon++;
  }

  retry(cause: RetryCause): void {
    this.#retries++;
    this.#byCause[cause] = (this.#byCause[cause] ?? 0) + 1;
  }

  fatal(): void {
    this.#fatal++;
  }

  throttleWait(ms: number): void {
    this.#waits++;
    this.#waitMs += ms;
  }

  tokenFetched(): void {
    this.#tokens++;
  }

  /** A copy; later requests do not change it. */
  snapshot(): ClientMetricsSnapshot {
    const byInterface: ClientMetricsSnapshot['requests']['byInterface'] = {};
    for (const name of INTERFACE_NAMES) {
      const counts = this.#byInterface[name];
      if (counts !== undefined) byInterface[name] = { ...counts };
    }
    return {
      requests: { total: this.#requests, byInterface },
      retries: { total: this.#retries, byCause: { ...this.#byCause } },
      throttled429: this.#throttled,
      fatal: this.#fatal,
      throttleWaits: { count: this.#waits, totalMs: Math.round(this.#waitMs) },
      tokensFetched: this.#tokens,
      hedges: { sent: this.#hedges, won: this.#hedgesWon },
      latencyMs: this.#latency(),
    };
  }

  #count(name: InterfaceName, outcome: number | string): void {
    this.#requests++;
    // The step whose request made it counts it too: the steps' counts add up to this one.
    countHttpAttempt();
    let counts = this.#byInterface[name];
    if (counts === undefined) {
      counts = {};
      this.#byInterface[name] = counts;
    }
    counts[outcome] = (counts[outcome] ?? 0) + 1;
  }

  #latency(): LatencySnapshot {
    const count = this.#latencyCount;
    const buckets: { le: number; count: number }[] = [];
    this.#histogram.forEach((n, i) => {
      if (n > 0) buckets.push({ le: boundOf(i, this.#latencyMax), count: n });
    });
    return {
      count,
      // A bucket's bound can exceed every value in it; the largest value seen is a tighter bound.
      p50: Math.min(percentile(buckets, count, 0.5), round(this.#latencyMax)),
      p90: Math.min(percentile(buckets, count, 0.9), round(this.#latencyMax)),
      p99: Math.min(percentile(buckets, count, 0.99), round(this.#latencyMax)),
      max: round(this.#latencyMax),
      mean: count === 0 ? 0 : round(this.#latencySum / count),
      buckets,
    };
  }
}

function bucketOf(ms: number): number {
  if (!(ms > FIRST_BOUND_MS)) return 0;
  const i = Math.ceil(Math.log2(ms / FIRST_BOUND_MS) * BUCKETS_PER_DOUBLING) - 1;
  return Math.min(i, BUCKET_COUNT);
}

/** The last bucket is open-ended; its bound is the largest value seen. */
function boundOf(index: number, max: number): number {
  return round(BOUNDS[index] ?? max);
}

/** The upper bound of the bucket holding the q-th of `count` values (also how workers' histograms merge). */
export function percentile(
  buckets: readonly { le: number; count: number }[],
  count: number,
  q: number,
): number {
  if (count === 0) return 0;
  const rank = Math.ceil(q * count);
  let seen = 0;
  for (const bucket of buckets) {
    seen += bucket.count;
    if (seen >= rank) return bucket.le;
  }
  return buckets[buckets.length - 1]?.le ?? 0;
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

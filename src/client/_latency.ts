/**
 * What each operation's answers have taken lately, and what follows from it for one attempt: its
 * deadline, and when a second (hedged) attempt should join it.
 *
 * A fixed 30 s timeout let one hung request hold the ordered run for 30 s (1% hangs: 97 s instead
 * of 1.7). A deadline that follows the observed latency is the safety net; the hedge is what
 * makes a hang cheap: a deadline cannot be shorter than a legitimately slow answer (a big batch,
 * a long route), so it stays in seconds, while a hedge abandons nothing and may come early.
 *
 * Per operation (interface, method and path), so that a slow routing call does not lend its
 * latency to geocoding, nor geocoding's to routing: the last SAMPLES answers (any status that is
 * an answer, not 429 and not 5xx), summarised every few answers into a p95 and a maximum.
 *
 * - Deadline: 4 x the slowest of those answers, at least `minMs`, at most the configured timeout;
 *   the configured timeout itself until MIN_SAMPLES answers were seen, and for every attempt of a
 *   request after one of its attempts timed out (so a legitimately slow answer is cut once at most).
 * - Hedge: after 2 x p95, at least HEDGE_MIN_MS (COLD_HEDGE_MS until MIN_SAMPLES answers), and
 *   at most half the deadline; only while the budget allows (see HEDGE_SHARE: the quota spent on
 *   hedges is bounded).
 */

const SAMPLES = 128;
const MIN_SAMPLES = 20;
const SUMMARY_EVERY = 16;
const DEADLINE_FACTOR = 4;
const HEDGE_FACTOR = 2;
/** Below this a hedge would chase event-loop stalls and GC pauses rather than lost requests. */
export const HEDGE_MIN_MS = 50;
/**
 * The hedge of an operation that has not answered 20 times yet: after a second, or 4 x its slowest
 * answer so far, and only once it has answered COLD_MIN_ANSWERS times by then. Without it a run's
 * first requests (16 go out before any answer) had no hedge, and one of them hanging held the run
 * for the whole timeout (32 s instead of 3, three runs of three in the faults benchmark). With
 * fewer answers to go by, a slow request is more likely the operation's latency than a hang: a
 * few 500-point elevation batches queued behind each other in the emulator were hedged after one
 * of them had answered fast.
 */
export const COLD_HEDGE_MS = 1000;
const COLD_MIN_ANSWERS = 8;
/**
 * The hedge budget: a token per hedge, earned at HEDGE_SHARE per request and HEDGE_PER_SECOND,
 * saved up to HEDGE_BURST. The time-based share matters when requests stop: a hung request at the
 * head of an ordered run stops new ones, and a budget earned only by requests stays empty until
 * the deadline (seen after a burst of slow answers on a busy machine had spent it).
 */
const HEDGE_SHARE = 0.05;
const HEDGE_PER_SECOND = 1;
const HEDGE_BURST = 50;

export interface LatencyOptions {
  /** The configured timeout: the ceiling of every deadline. */
  readonly timeoutMs: number;
  /** Deadlines follow the observed latency; false: every attempt gets `timeoutMs`. */
  readonly adaptive: boolean;
  /** The lowest adaptive deadline. */
  readonly minMs: number;
  /** Hedge slow attempts with a second one. */
  readonly hedge: boolean;
  readonly now?: () => number;
}

/** One operation's recent answers. */
export class OperationLatency {
  readonly #samples = new Float64Array(SAMPLES);
  /** The largest samples, for the summary. */
  readonly #top = new Float64Array(SAMPLES - Math.ceil(0.95 * SAMPLES) + 1);
  #count = 0;
  #sinceSummary = 0;
  #p95 = 0;
  #max = 0;

  record(ms: number): void {
    this.#samples[this.#count % SAMPLES] = ms;
    this.#count++;
    // A new slowest answer lengthens the deadline at once; the summary may wait a few answers.
    if (ms > this.#max) this.#max = ms;
    if (++this.#sinceSummary >= SUMMARY_EVERY || this.#count === MIN_SAMPLES) this.#summarise();
  }

  /** Enough answers seen to adapt to. */
  get warm(): boolean {
    return this.#count >= MIN_SAMPLES;
  }

  get answers(): number {
    return this.#count;
  }

  get p95(): number {
    return this.#p95;
  }

  get max(): number {
    return this.#max;
  }

  /**
   * p95 and maximum of the samples kept. The p95 of n samples is the k-th largest, k = n -
   * ceil(0.95 n) + 1 (7 of 128): kept in a small sorted array in one pass, not a sort of all 128
   * (which ran after every 16th answer, about 5 µs each time).
   */
  #summarise(): void {
    this.#sinceSummary = 0;
    const n = Math.min(this.#count, SAMPLES);
    const k = n - Math.ceil(0.95 * n) + 1;
    const top = this.#top;
    let size = 0;
    for (let i = 0; i < n; i++) {
      const ms = this.#samples[i] as number;
      if (size === k && ms <= (top[k - 1] as number)) continue;
      // Insert in descending order, dropping the smallest when full.
      let at = size < k ? size++ : k - 1;
      while (at > 0 && (top[at - 1] as number) < ms) {
        top[at] = top[at - 1] as number;
        at--;
      }
      top[at] = ms;
    }
    this.#p95 = n === 0 ? 0 : (top[k - 1] as number);
    this.#max = n === 0 ? 0 : (top[0] as number);
  }
}

export class Latencies {
  readonly #options: LatencyOptions;
  /** By service, method and path: nested maps, so that finding one builds no key string. */
  readonly #byOperation = new Map<string, Map<string, Map<string, OperationLatency>>>();
  readonly #now: () => number;
  // One to start with: the first requests of a run earn too little to hedge a hang among them.
  #hedgeTokens = 1;
  #earnedAt: number;

  constructor(options: LatencyOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#earnedAt = this.#now();
  }

  of(service: string, method: string, path: string): OperationLatency {
    let methods = this.#byOperation.get(service);
    if (methods === undefined) {
      methods = new Map();
      this.#byOperation.set(service, methods);
    }
    let paths = methods.get(method);
    if (paths === undefined) {
      paths = new Map();
      methods.set(method, paths);
    }
    let op = paths.get(path);
    if (op === undefined) {
      op = new OperationLatency();
      paths.set(path, op);
    }
    return op;
  }

  /** The deadline of an attempt of `op`; `afterTimeout` when an earlier attempt timed out. */
  deadlineMs(op: OperationLatency, afterTimeout: boolean): number {
    const { timeoutMs, adaptive, minMs } = this.#options;
    if (!adaptive || afterTimeout || !op.warm) return timeoutMs;
    return Math.min(timeoutMs, Math.max(minMs, DEADLINE_FACTOR * op.max));
  }

  /**
   * When an attempt of `op` with deadline `deadlineMs` should be hedged, or undefined. Every call
   * is one request's attempt, and earns the budget its share of a hedge.
   */
  hedgeAfterMs(op: OperationLatency, deadlineMs: number): number | undefined {
    if (!this.#options.hedge) return undefined;
    this.#hedgeTokens = Math.min(HEDGE_BURST, this.#hedgeTokens + HEDGE_SHARE);
    const after = op.warm
      ? Math.max(HEDGE_MIN_MS, HEDGE_FACTOR * op.p95)
      : Math.max(COLD_HEDGE_MS, DEADLINE_FACTOR * op.max);
    return after <= deadlineMs / 2 ? after : undefined;
  }

  /**
   * Asked when an attempt of `op` has run `afterMs` without an answer: is it still worth a hedge?
   * A cold operation may have learnt meanwhile that its answers are slow.
   */
  stillSlow(op: OperationLatency, afterMs: number): boolean {
    return op.warm || (op.answers >= COLD_MIN_ANSWERS && afterMs >= DEADLINE_FACTOR * op.max);
  }

  /** Spends a hedge from the budget; false when there is none left. */
  takeHedge(): boolean {
    const now = this.#now();
    const earned = ((now - this.#earnedAt) / 1000) * HEDGE_PER_SECOND;
    this.#earnedAt = now;
    this.#hedgeTokens = Math.min(HEDGE_BURST, this.#hedgeTokens + earned);
    if (this.#hedgeTokens < 1) return false;
    this.#hedgeTokens -= 1;
    return true;
  }
}

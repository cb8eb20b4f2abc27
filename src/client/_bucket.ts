/**
 * The rate half of a limit: a token bucket whose rate adapts to 429s (AIMD) and which a
 * Retry-After can pause. Pure arithmetic on an injected clock; the Limiter does the waiting.
 */

export interface AimdOptions {
  readonly decrease: number;
  /** `null`: a twentieth of the rate before the last cut, so a cut heals in ~10 s at any scale. */
  readonly increasePerSecond: number | null;
  readonly minRate: number;
}

/** Share of the pre-cut rate added back per second when `increasePerSecond` is null. */
const RELATIVE_INCREASE = 0.05;
/**
 * Default burst, in seconds of the rate. Well under the service's own burst (often a whole
 * second): a client that may burst as much as the limit does drains the service's bucket in step
 * with its own, and from then on every millisecond of jitter is a 429 and a Retry-After pause
 * (a benchmark at 200/s against a 200/s limit reached 145-195/s; with a tenth, 200/s and no 429).
 * A tenth of a second still absorbs timer lateness and event-loop stalls.
 */
const DEFAULT_BURST_SECONDS = 0.1;
/** Shortest span a send rate is measured over, so one burst does not read as an absurd rate. */
const MIN_SPAN_MS = 100;

export class AdaptiveBucket {
  readonly #ceiling: number | null;
  readonly #burst: number | null;
  readonly #aimd: AimdOptions | undefined;
  #rate: number | null;
  #tokens: number;
  #refilledAt: number;
  #pausedUntil = 0;
  #lastCutAt = Number.NEGATIVE_INFINITY;
  #increase = 0;
  // Takes in the current and the previous one-second window: the send rate an unlimited
  // interface had when its first 429 arrived, which is where its adaptive rate starts.
  #firstTakeAt: number | undefined;
  #windowStart: number;
  #windowCount = 0;
  #previousCount = 0;

  constructor(rate: number | null, burst: number | null, aimd: AimdOptions | undefined, now: number) {
    this.#ceiling = rate;
    this.#rate = rate;
    this.#burst = burst;
    this.#aimd = aimd;
    this.#refilledAt = now;
    this.#windowStart = now;
    this.#tokens = this.#capacity();
  }

  /** The current rate in requests/s at `now`; `null` while unlimited. */
  rateAt(now: number): number | null {
    this.#refill(now);
    return this.#rate;
  }

  /** 0 when a request may start at `now`, else the ms until one may. */
  waitMs(now: number): number {
    if (now < this.#pausedUntil) return this.#pausedUntil - now;
    if (this.#rate === null) return 0;
    this.#refill(now);
    return this.#tokens >= 1 ? 0 : ((1 - this.#tokens) / this.#rate) * 1000;
  }

  /** What is left at `now` of a Retry-After pause; 0 when none runs. */
  pausedMs(now: number): number {
    return Math.max(0, this.#pausedUntil - now);
  }

  /** A request starts now (after `waitMs` said 0). */
  take(now: number): void {
    if (this.#rate !== null) this.#tokens -= 1;
    if (this.#aimd === undefined) return;
    this.#firstTakeAt ??= now;
    this.#rollWindow(now);
    this.#windowCount++;
  }

  /**
   * A 429 for a request sent at `sentAt`: cut the rate once per round of requests (answers to
   * requests sent before the last cut say nothing about the new rate), and pause for Retry-After.
   * True when the rate was cut.
   *
   * Strictly after: clocks tick in whole milliseconds, and at low latency a whole burst is sent
   * and refused within the millisecond of the first cut; counting those as new rounds halved the
   * rate once per 429 (400/s fell to ~1.5/s after eight of them, and healed at 5% of that).
   */
  onThrottled(now: number, sentAt: number, pauseMs: number | null): boolean {
    const aimd = this.#aimd;
    const cut = aimd !== undefined && aimd.decrease < 1 && sentAt > this.#lastCutAt;
    if (cut) {
      this.#refill(now);
      const from = this.#rate ?? Math.max(aimd.minRate, this.#observedRate(now));
      this.#rate = Math.max(aimd.minRate, from * aimd.decrease);
      this.#increase = aimd.increasePerSecond ?? from * RELATIVE_INCREASE;
      this.#lastCutAt = now;
    }
    if (pauseMs !== null && pauseMs > 0) this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
    if (this.#rate !== null) {
      // Start from an empty bucket that fills only once the pause is over: a full bucket released
      // at the end of a pause is a burst into a limit that has just refilled its own, smaller one.
      this.#tokens = 0;
      this.#refilledAt = Math.max(now, this.#pausedUntil);
    }
    return cut;
  }

  /** Holds every request for `ms` (a Retry-After that came without a 429); the rate stays. */
  pause(now: number, ms: number): void {
    if (ms <= 0) return;
    this.#pausedUntil = Math.max(this.#pausedUntil, now + ms);
    if (this.#rate !== null) {
      this.#tokens = Math.min(this.#tokens, 1);
      this.#refilledAt = Math.max(this.#refilledAt, this.#pausedUntil);
    }
  }

  #capacity(): number {
    return this.#burst ?? Math.max(1, (this.#rate ?? 1) * DEFAULT_BURST_SECONDS);
  }

  #refill(now: number): void {
    const rate = this.#rate;
    if (rate === null) return;
    // Negative while a pause runs: nothing accrues until it ends.
    const seconds = (now - this.#refilledAt) / 1000;
    if (seconds <= 0) return;
    this.#refilledAt = now;
    this.#tokens = Math.min(this.#capacity(), this.#tokens + rate * seconds);
    if (this.#increase > 0) {
      this.#rate = Math.min(this.#ceiling ?? Number.POSITIVE_INFINITY, rate + this.#increase * seconds);
    }
  }

  /** Takes per second over the last second, or since the first take if that is more recent. */
  #observedRate(now: number): number {
    this.#rollWindow(now);
    const fraction = Math.min(1, (now - this.#windowStart) / 1000);
    const count = this.#previousCount * (1 - fraction) + this.#windowCount;
    const span = Math.min(1000, Math.max(MIN_SPAN_MS, now - (this.#firstTakeAt ?? now)));
    return (count * 1000) / span;
  }

  #rollWindow(now: number): void {
    const elapsed = now - this.#windowStart;
    if (elapsed < 1000) return;
    this.#previousCount = elapsed < 2000 ? this.#windowCount : 0;
    this.#windowCount = 0;
    this.#windowStart = now - (elapsed % 1000);
  }
}

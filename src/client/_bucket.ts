/**
 * The rate half of a limit: a token bucket whose rate adapts to 429s (AIMD) and which a
 * Retry-After can pause. Pure arithmetic on an injected clock; the Limiter does the waiting.
 *
 * Only sustained pushback adapts the rate or pauses the interface (see _pushback.ts): a sporadic
 * 429 makes its own request wait its Retry-After, and nothing else. Before that distinction, 1%
 * random 429s halved the rate and paused the interface a second at a time, dozens of times a
 * second: 10,000 rows took 568 s instead of 1.7.
 *
 * The cut: the rate is multiplied by `decrease`, once per round (a 429 for a request sent before
 * the last cut says nothing about the new rate), and never below `decrease` times the rate of
 * successful answers over the last second (the service has just shown it serves that many) nor
 * below `minRate`.
 *
 * The way back: above the knee, `increasePerSecond` (5% of the rate before the cut by default),
 * the gentle probe that converges on a real limit. Below the knee, the rate doubles every second.
 * The knee is the rate right after the first cut of a series: cuts that follow each other without
 * the rate having grown back in between (a limit or an outage that lasts several rounds) lower the
 * rate but not the knee, so the rate climbs back to it in seconds, however deep it fell; before,
 * the increase was 5% of the last, already tiny, rate, and a run never recovered.
 */
import { PushbackShare } from './_pushback.js';
import { RollingRate } from './_rolling.js';

export interface AimdOptions {
  readonly decrease: number;
  /** `null`: a twentieth of the rate before the cut, so a cut heals in ~10 s at any scale. */
  readonly increasePerSecond: number | null;
  readonly minRate: number;
  /** Share of recent answers that may be 429s without slowing down; 0 takes every 429 as a limit. */
  readonly tolerance: number;
}

/** Share of the pre-cut rate added back per second when `increasePerSecond` is null. */
const RELATIVE_INCREASE = 0.05;
/** A cut from a rate this much above the last cut's result follows a regrowth: a new series. */
const REGROWN = 1.1;
/**
 * Default burst, in seconds of the rate. Well under the service's own burst (often a whole
 * second): a client that may burst as much as the limit does drains the service's bucket in step
 * with its own, and from then on every millisecond of jitter is a 429 and a Retry-After pause
 * (a benchmark at 200/s against a 200/s limit reached 145-195/s; with a tenth, 200/s and no 429).
 * A tenth of a second still absorbs timer lateness and event-loop stalls.
 */
const DEFAULT_BURST_SECONDS = 0.1;

export class AdaptiveBucket {
  readonly #ceiling: number | null;
  readonly #burst: number | null;
  readonly #aimd: AimdOptions | undefined;
  readonly #share: PushbackShare | undefined;
  #rate: number | null;
  #tokens: number;
  #refilledAt: number;
  #pausedUntil = 0;
  #begun = false;
  #lastCutAt = Number.NEGATIVE_INFINITY;
  /** The rate the last cut left; undefined before the first. */
  #lastCut: number | undefined;
  #knee = 0;
  #increase = 0;
  // The send rate an unlimited interface had when its first cut came (where its adaptive rate
  // starts), and the rate of successful answers (the floor of a cut).
  readonly #sent: RollingRate;
  readonly #served: RollingRate;

  constructor(rate: number | null, burst: number | null, aimd: AimdOptions | undefined, now: number) {
    this.#ceiling = rate;
    this.#rate = rate;
    this.#burst = burst;
    this.#aimd = aimd;
    this.#share = aimd === undefined ? undefined : new PushbackShare(aimd.tolerance);
    this.#refilledAt = now;
    this.#sent = new RollingRate(now);
    this.#served = new RollingRate(now);
    // One request at once, not the default burst: a run starts at its full rate, and a first
    // second of rate + burst (33 at --rate 30) drew 429s from a service limited at the rate. A
    // burst the job file sets is the user's to spend from the start.
    this.#tokens = burst ?? 1;
  }

  /** The current rate in requests/s at `now`; `null` while unlimited. */
  rateAt(now: number): number | null {
    this.#refill(now);
    return this.#rate;
  }

  /** 0 when a request may start at `now`, else the ms until one may. */
  waitMs(now: number): number {
    this.#begin(now);
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
    this.#begin(now);
    if (this.#rate !== null) this.#tokens -= 1;
    if (this.#aimd !== undefined) this.#sent.add(now);
  }

  /**
   * An answer came: `ok` for a 2xx, `pushback` for a 429 or a Retry-After. Counted before the
   * retry decision acts on it, so that `onThrottled` and `pause` see it.
   */
  answered(now: number, ok: boolean, pushback: boolean): void {
    if (this.#share === undefined) return;
    this.#share.answered(pushback);
    if (ok) this.#served.add(now);
  }

  /** True when recent 429s are more than sporadic (always true without AIMD options). */
  get sustained(): boolean {
    return this.#share?.sustained ?? true;
  }

  /**
   * A 429 for a request sent at `sentAt`. Sporadic: nothing changes (the request waits its own
   * Retry-After). Sustained: cut the rate once per round and pause for `pauseMs`. True when the
   * rate was cut.
   *
   * Strictly after: clocks tick in whole milliseconds, and at low latency a whole burst is sent
   * and refused within the millisecond of the first cut; counting those as new rounds halved the
   * rate once per 429 (400/s fell to ~1.5/s after eight of them, and healed at 5% of that).
   */
  onThrottled(now: number, sentAt: number, pauseMs: number | null): boolean {
    if (!this.sustained) return false;
    const aimd = this.#aimd;
    const cut = aimd !== undefined && aimd.decrease < 1 && sentAt > this.#lastCutAt;
    if (cut) this.#cut(now, aimd);
    if (pauseMs !== null && pauseMs > 0) this.#pausedUntil = Math.max(this.#pausedUntil, now + pauseMs);
    if (this.#rate !== null) {
      // Start from an empty bucket that fills only once the pause is over: a full bucket released
      // at the end of a pause is a burst into a limit that has just refilled its own, smaller one.
      this.#tokens = 0;
      this.#refilledAt = Math.max(now, this.#pausedUntil);
    }
    return cut;
  }

  /**
   * Holds every request for `ms` (a Retry-After that came without a 429); the rate stays. Only
   * when pushback is sustained: a sporadic 503 with a Retry-After delays its own request only.
   */
  pause(now: number, ms: number, held = false): void {
    if (ms <= 0 || (!held && !this.sustained)) return;
    this.#pausedUntil = Math.max(this.#pausedUntil, now + ms);
    if (this.#rate !== null) {
      this.#tokens = Math.min(this.#tokens, 1);
      this.#refilledAt = Math.max(this.#refilledAt, this.#pausedUntil);
    }
  }

  #cut(now: number, aimd: AimdOptions): void {
    this.#refill(now);
    const from = this.#rate ?? Math.max(aimd.minRate, this.#sent.perSecond(now));
    const floor = Math.max(aimd.minRate, aimd.decrease * this.#served.perSecond(now));
    const to = Math.min(from, Math.max(floor, from * aimd.decrease));
    if (this.#lastCut === undefined || from > this.#lastCut * REGROWN) {
      this.#knee = to;
      this.#increase = aimd.increasePerSecond ?? from * RELATIVE_INCREASE;
    }
    this.#rate = to;
    this.#lastCut = to;
    this.#lastCutAt = now;
    this.#share?.cut();
  }

  /**
   * The first request asked for: the bucket starts here, with one request (or the burst given),
   * not with what accrued since it was made. A run reads its input and builds its job first, and
   * the tenth of a second of requests saved up meanwhile went out at once: 4 at t=0 at --rate 40,
   * 43 in the first second.
   */
  #begin(now: number): void {
    if (this.#begun) return;
    this.#begun = true;
    if (now <= this.#refilledAt || now < this.#pausedUntil) return;
    this.#refilledAt = now;
    this.#tokens = Math.min(this.#tokens, this.#burst ?? 1);
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
    if (this.#increase <= 0 && rate >= this.#knee) return;
    let next = rate + this.#increase * seconds;
    if (rate < this.#knee) next = Math.min(this.#knee, Math.max(next, rate * 2 ** seconds));
    this.#rate = Math.min(this.#ceiling ?? Number.POSITIVE_INFINITY, next);
  }
}

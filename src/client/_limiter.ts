/**
 * One limit: a concurrency cap, a token bucket whose rate adapts to 429s (AIMD), and a pause
 * that a Retry-After imposes. Waiters are served strictly in arrival order.
 *
 * Hand-written rather than p-queue: p-queue's `interval`/`intervalCap` is a fixed window that
 * cannot change its rate while running, cannot express a fractional rate such as 0.5/s, and knows
 * no pause; here all three are a few lines of arithmetic on one bucket.
 */
import { abortError } from './_abort.js';

export interface AimdOptions {
  readonly decrease: number;
  /** `null`: a twentieth of the rate before the last cut, so a cut heals in ~10 s at any scale. */
  readonly increasePerSecond: number | null;
  readonly minRate: number;
}

/** Share of the pre-cut rate added back per second when `increasePerSecond` is null. */
const RELATIVE_INCREASE = 0.05;
/** Shortest span a send rate is measured over, so one burst does not read as an absurd rate. */
const MIN_SPAN_MS = 100;

export interface LimiterOptions {
  readonly concurrency: number;
  /** Requests per second; `null` = unlimited (until a 429 says otherwise, when `aimd` is set). */
  readonly rate: number | null;
  readonly burst: number | null;
  /** Absent: the rate never adapts (the global limit). */
  readonly aimd?: AimdOptions;
  readonly now?: () => number;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  done: boolean;
}

export class Limiter {
  readonly #concurrency: number;
  readonly #ceiling: number | null;
  readonly #burst: number | null;
  readonly #aimd: AimdOptions | undefined;
  readonly #now: () => number;
  #rate: number | null;
  #tokens: number;
  #refilledAt: number;
  #active = 0;
  #pausedUntil = 0;
  #lastDecreaseAt = Number.NEGATIVE_INFINITY;
  #increase = 0;
  // Grants in the current and the previous one-second window: the send rate an unlimited
  // interface had when its first 429 arrived, which is where its adaptive rate starts.
  #firstGrantAt: number | undefined;
  #windowStart: number;
  #windowCount = 0;
  #previousCount = 0;
  #waiters: Waiter[] = [];
  #head = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDue = 0;

  constructor(options: LimiterOptions) {
    this.#concurrency = options.concurrency;
    this.#ceiling = options.rate;
    this.#rate = options.rate;
    this.#burst = options.burst;
    this.#aimd = options.aimd;
    this.#now = options.now ?? Date.now;
    this.#refilledAt = this.#now();
    this.#windowStart = this.#refilledAt;
    this.#tokens = this.#capacity();
  }

  /** The current rate in requests/s; `null` while unlimited. */
  get rate(): number | null {
    if (this.#rate !== null) this.#refill(this.#now());
    return this.#rate;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiters.length - this.#head;
  }

  /** Takes a slot. `undefined` when granted at once (the hot path allocates nothing). */
  acquire(signal?: AbortSignal): Promise<void> | undefined {
    if (this.#head === this.#waiters.length && this.#grantable(this.#now())) {
      this.#grant();
      return undefined;
    }
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined, done: false };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          if (waiter.done) return;
          waiter.done = true;
          reject(abortError(signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /** Gives back a slot taken by `acquire`. */
  release(): void {
    this.#active--;
    if (this.#head < this.#waiters.length) this.#pump();
  }

  /**
   * A 429 for a request sent at `sentAt`: cut the rate once per round of requests (answers to
   * requests sent before the last cut say nothing about the new rate), and pause for Retry-After.
   * True when the rate was cut.
   */
  onThrottled(sentAt: number, pauseMs: number | null): boolean {
    const now = this.#now();
    const aimd = this.#aimd;
    const cut = aimd !== undefined && aimd.decrease < 1 && sentAt >= this.#lastDecreaseAt;
    if (cut) {
      this.#refill(now);
      const from = this.#rate ?? Math.max(aimd.minRate, this.#observedRate(now));
      this.#rate = Math.max(aimd.minRate, from * aimd.decrease);
      this.#increase = aimd.increasePerSecond ?? from * RELATIVE_INCREASE;
      this.#lastDecreaseAt = now;
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

  /** Holds every request for `ms` (a Retry-After that came without a 429). */
  pause(ms: number): void {
    if (ms <= 0) return;
    this.#pausedUntil = Math.max(this.#pausedUntil, this.#now() + ms);
    if (this.#rate !== null) {
      this.#tokens = Math.min(this.#tokens, 1);
      this.#refilledAt = Math.max(this.#refilledAt, this.#pausedUntil);
    }
  }

  /** Rejects every waiter; used when the client closes. */
  close(error: unknown): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (let i = this.#head; i < this.#waiters.length; i++) this.#settle(this.#waiters[i], error);
    this.#waiters = [];
    this.#head = 0;
  }

  #capacity(): number {
    return this.#burst ?? Math.max(1, this.#rate ?? 1);
  }

  #refill(now: number): void {
    const rate = this.#rate;
    if (rate === null) return;
    // Negative while a pause runs: nothing accrues until it ends.
    const seconds = (now - this.#refilledAt) / 1000;
    if (seconds <= 0) return;
    this.#refilledAt = now;
    this.#tokens = Math.min(this.#capacity(), this.#tokens + rate * seconds);
    const aimd = this.#aimd;
    if (aimd !== undefined && this.#increase > 0) {
      this.#rate = Math.min(this.#ceiling ?? Number.POSITIVE_INFINITY, rate + this.#increase * seconds);
    }
  }

  /** Grants per second over the last second, or since the first grant if that is more recent. */
  #observedRate(now: number): number {
    this.#rollWindow(now);
    const fraction = Math.min(1, (now - this.#windowStart) / 1000);
    const count = this.#previousCount * (1 - fraction) + this.#windowCount;
    const span = Math.min(1000, Math.max(MIN_SPAN_MS, now - (this.#firstGrantAt ?? now)));
    return (count * 1000) / span;
  }

  #rollWindow(now: number): void {
    const elapsed = now - this.#windowStart;
    if (elapsed < 1000) return;
    this.#previousCount = elapsed < 2000 ? this.#windowCount : 0;
    this.#windowCount = 0;
    this.#windowStart = now - (elapsed % 1000);
  }

  /** True when a request may start at `now`; schedules a wake-up when only time is missing. */
  #grantable(now: number): boolean {
    if (this.#active >= this.#concurrency) return false;
    if (now < this.#pausedUntil) return this.#wakeIn(this.#pausedUntil - now);
    if (this.#rate === null) return true;
    this.#refill(now);
    if (this.#tokens >= 1) return true;
    return this.#wakeIn(((1 - this.#tokens) / this.#rate) * 1000);
  }

  #grant(): void {
    this.#active++;
    if (this.#rate !== null) this.#tokens -= 1;
    if (this.#aimd !== undefined) {
      const now = this.#now();
      this.#firstGrantAt ??= now;
      this.#rollWindow(now);
      this.#windowCount++;
    }
  }

  #pump(): void {
    while (this.#head < this.#waiters.length) {
      const waiter = this.#waiters[this.#head] as Waiter;
      if (waiter.done) {
        this.#shift();
        continue;
      }
      if (!this.#grantable(this.#now())) return;
      this.#shift();
      this.#grant();
      this.#settle(waiter, undefined);
    }
  }

  #shift(): void {
    this.#head++;
    if (this.#head === this.#waiters.length) {
      this.#waiters = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#waiters.length) {
      this.#waiters = this.#waiters.slice(this.#head);
      this.#head = 0;
    }
  }

  #settle(waiter: Waiter | undefined, error: unknown): void {
    if (waiter === undefined || waiter.done) return;
    waiter.done = true;
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    if (error === undefined) waiter.resolve();
    else waiter.reject(error);
  }

  /** Always false, so `#grantable` can return it: a wake-up is pending. */
  #wakeIn(ms: number): false {
    const due = this.#now() + ms;
    if (this.#timer !== undefined && this.#timerDue <= due) return false;
    clearTimeout(this.#timer);
    this.#timerDue = due;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        this.#pump();
      },
      Math.max(1, Math.ceil(ms)),
    );
    return false;
  }
}

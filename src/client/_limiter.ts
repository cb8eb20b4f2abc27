/**
 * One limit: a concurrency cap plus an AdaptiveBucket (rate, AIMD, Retry-After pause). Waiters
 * are served strictly in arrival order; one timer wakes the queue when only time is missing.
 *
 * Hand-written rather than p-queue: p-queue's `interval`/`intervalCap` is a fixed window that
 * cannot change its rate while running, cannot express a fractional rate such as 0.5/s, and knows
 * no pause; here all three are a few lines of arithmetic on one bucket.
 */
import { abortError } from './_abort.js';
import type { AimdOptions } from './_bucket.js';
import { AdaptiveBucket } from './_bucket.js';

export type { AimdOptions };

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
  readonly #bucket: AdaptiveBucket;
  readonly #now: () => number;
  #active = 0;
  #waiters: Waiter[] = [];
  #head = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerDue = 0;

  constructor(options: LimiterOptions) {
    this.#concurrency = options.concurrency;
    this.#now = options.now ?? Date.now;
    this.#bucket = new AdaptiveBucket(options.rate, options.burst, options.aimd, this.#now());
  }

  /** The current rate in requests/s; `null` while unlimited. */
  get rate(): number | null {
    return this.#bucket.rateAt(this.#now());
  }

  /** What is left of a Retry-After pause; 0 when none runs. */
  get pausedMs(): number {
    return this.#bucket.pausedMs(this.#now());
  }

  /** True when recent 429s are more than sporadic: a limit to slow down for (see AdaptiveBucket). */
  get sustained(): boolean {
    return this.#bucket.sustained;
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiters.length - this.#head;
  }

  /**
   * Takes a slot. `undefined` when granted at once (the hot path allocates nothing). `first`: ahead
   * of every waiter (the ENDPOINT_NOT_FOUND probe, which the waiters' own requests wait for), yet
   * still within the rate and the concurrency.
   */
  acquire(signal?: AbortSignal, first = false): Promise<void> | undefined {
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
      if (first) this.#waiters.splice(this.#head, 0, waiter);
      else this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /** Gives back a slot taken by `acquire`. */
  release(): void {
    this.#active--;
    if (this.#head < this.#waiters.length) this.#pump();
  }

  /** An answer came: `ok` for a 2xx, `pushback` for a 429 or a Retry-After (see AdaptiveBucket). */
  answered(ok: boolean, pushback: boolean): void {
    this.#bucket.answered(this.#now(), ok, pushback);
  }

  /** A 429 for a request sent at `sentAt` (see AdaptiveBucket). True when the rate was cut. */
  onThrottled(sentAt: number, pauseMs: number | null): boolean {
    return this.#bucket.onThrottled(this.#now(), sentAt, pauseMs);
  }

  /**
   * Holds every request for `ms` (a Retry-After that came without a 429), when sustained; `held`:
   * whether or not (an interface that serves nothing, _storm.ts).
   */
  pause(ms: number, held = false): void {
    this.#bucket.pause(this.#now(), ms, held);
  }

  /** Rejects every waiter; used when the client closes. */
  close(error: unknown): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (let i = this.#head; i < this.#waiters.length; i++) this.#settle(this.#waiters[i], error);
    this.#waiters = [];
    this.#head = 0;
  }

  /** True when a request may start at `now`; schedules a wake-up when only time is missing. */
  #grantable(now: number): boolean {
    if (this.#active >= this.#concurrency) return false;
    const wait = this.#bucket.waitMs(now);
    return wait <= 0 || this.#wakeIn(wait);
  }

  #grant(): void {
    this.#active++;
    this.#bucket.take(this.#now());
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

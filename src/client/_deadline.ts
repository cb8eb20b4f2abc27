/**
 * Per-attempt deadlines, hedge triggers and caller aborts without an AbortController and a timer
 * per request.
 *
 * An attempt's handle is a plain object with one abort target (the exchange's handler, http.ts):
 * an AbortController is an EventTarget, and even an EventEmitter costs a listener array per request;
 * one sweeping interval for all requests in flight replaces a setTimeout/clearTimeout pair each.
 * On the hot path of a million-row run, the AbortController, its listener and its timer were the
 * client's largest cost after JSON itself. A caller's AbortSignal gets one listener for its whole
 * life, not one per request.
 *
 * The sweep runs every tenth of the shortest delay it was given (5 ms to 1 s), so a deadline or a
 * hedge fires at most ~10% late; it runs only while requests are in flight.
 */

/** Who is told of an attempt's abort: an object, not a callback (see `Abortable.target`). */
export interface AbortTarget {
  attemptAborted(reason: unknown): void;
}

/** One attempt's abort state; its target is told once, when it is aborted. */
export class Abortable {
  aborted = false;
  reason: unknown = undefined;
  /** Epoch ms after which the sweep aborts it with TIMED_OUT. */
  due = 0;
  /** Epoch ms after which the sweep calls `onSlow` (once). */
  slowAt = Number.POSITIVE_INFINITY;
  onSlow: ((abandon: () => void) => void) | undefined = undefined;
  owner: Set<Abortable> | undefined = undefined;
  /**
   * Set by whoever runs the attempt; told once, at the abort. An object rather than a closure:
   * with an arrow function made per request in the exchange's handler and kept here, V8 promoted
   * about 2.6 KB more of every request to the old generation (its headers, its body text,
   * undici's parser output). 20,000 geocoded rows promoted 90 MB against 37 with the object, and
   * spent 210 ms in scavenges against 121, and the full collections halved (6 -> 3). Why V8
   * keeps those alive longer we did not find out; the measurement is in BENCHMARKS.md.
   */
  target: AbortTarget | undefined = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const target = this.target;
    this.target = undefined;
    target?.attemptAborted(reason);
  }
}

/** The abort reason of a deadline, told apart from a caller's by identity. */
export const TIMED_OUT = Object.freeze({ timedOut: true });
/** The abort reason of an attempt given up because another attempt of its request answered. */
export const ABANDONED = Object.freeze({ abandoned: true });

const MIN_RESOLUTION_MS = 5;
const MAX_RESOLUTION_MS = 1000;

export class Deadlines {
  readonly #inflight = new Set<Abortable>();
  readonly #bySignal = new WeakMap<AbortSignal, Set<Abortable>>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #resolutionMs = MAX_RESOLUTION_MS;

  /**
   * A signal for one attempt: aborted after `timeoutMs` or when `signal` aborts; `onSlow` is
   * called once if it is still running after `slowMs`, with a function that abandons it.
   */
  start(
    signal: AbortSignal | undefined,
    timeoutMs: number,
    slowMs?: number,
    onSlow?: (abandon: () => void) => void,
  ): Abortable {
    const handle = new Abortable();
    const now = Date.now();
    handle.due = now + timeoutMs;
    if (slowMs !== undefined && onSlow !== undefined) {
      handle.slowAt = now + slowMs;
      handle.onSlow = onSlow;
    }
    this.#inflight.add(handle);
    if (signal !== undefined) {
      const owner = this.#linked(signal);
      owner.add(handle);
      handle.owner = owner;
    }
    this.#sweepEvery(Math.min(timeoutMs, slowMs ?? timeoutMs) / 10);
    return handle;
  }

  finish(handle: Abortable): void {
    this.#inflight.delete(handle);
    handle.owner?.delete(handle);
    handle.onSlow = undefined;
    handle.target = undefined;
    if (this.#inflight.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
      this.#resolutionMs = MAX_RESOLUTION_MS;
    }
  }

  #sweepEvery(wantedMs: number): void {
    const ms = Math.min(MAX_RESOLUTION_MS, Math.max(MIN_RESOLUTION_MS, Math.floor(wantedMs)));
    if (this.#timer !== undefined && ms >= this.#resolutionMs) return;
    clearInterval(this.#timer);
    this.#resolutionMs = ms;
    this.#timer = setInterval(() => this.#sweep(), ms).unref();
  }

  #linked(signal: AbortSignal): Set<Abortable> {
    let owned = this.#bySignal.get(signal);
    if (owned === undefined) {
      const set = new Set<Abortable>();
      owned = set;
      this.#bySignal.set(signal, set);
      signal.addEventListener('abort', () => {
        for (const handle of set) handle.abort(signal.reason);
      });
    }
    return owned;
  }

  #sweep(): void {
    const now = Date.now();
    for (const handle of this.#inflight) {
      if (handle.due <= now) handle.abort(TIMED_OUT);
      else if (handle.slowAt <= now) {
        const onSlow = handle.onSlow;
        handle.slowAt = Number.POSITIVE_INFINITY;
        handle.onSlow = undefined;
        onSlow?.(() => handle.abort(ABANDONED));
      }
    }
  }
}

/**
 * Per-request deadlines and caller aborts without an AbortController and a timer per request.
 *
 * undici takes any EventEmitter that emits 'abort' as a request's signal; an EventEmitter costs a
 * fraction of an AbortController (an EventTarget), and one sweeping interval for all requests in
 * flight replaces a setTimeout/clearTimeout pair each. On the hot path of a million-row run, the
 * AbortController, its listener and its timer were the client's largest cost after JSON itself.
 * A caller's AbortSignal gets one listener for its whole life, not one per request.
 */
import { EventEmitter } from 'node:events';

/** What undici sees as the request's signal. */
export class Abortable extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
  /** Epoch ms after which the sweep aborts it with TIMED_OUT. */
  due = 0;
  owner: Set<Abortable> | undefined = undefined;

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/** The abort reason of a deadline, told apart from a caller's by identity. */
export const TIMED_OUT = Object.freeze({ timedOut: true });

export class Deadlines {
  readonly #timeoutMs: number;
  readonly #resolutionMs: number;
  readonly #inflight = new Set<Abortable>();
  readonly #bySignal = new WeakMap<AbortSignal, Set<Abortable>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    // A deadline fires up to one resolution late: 1 s late on the default 30 s, 10 ms on 100 ms.
    this.#resolutionMs = Math.min(1000, Math.max(5, Math.floor(timeoutMs / 10)));
  }

  /** A signal for one request: aborted at its deadline, or when `signal` aborts. */
  start(signal: AbortSignal | undefined): Abortable {
    const handle = new Abortable();
    handle.due = Date.now() + this.#timeoutMs;
    this.#inflight.add(handle);
    if (signal !== undefined) {
      const owner = this.#linked(signal);
      owner.add(handle);
      handle.owner = owner;
    }
    this.#timer ??= setInterval(() => this.#sweep(), this.#resolutionMs).unref();
    return handle;
  }

  finish(handle: Abortable): void {
    this.#inflight.delete(handle);
    handle.owner?.delete(handle);
    if (this.#inflight.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
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
    for (const handle of this.#inflight) if (handle.due <= now) handle.abort(TIMED_OUT);
  }
}

/**
 * The client's throttle: one limit per interface and one for everything, and a request holds a
 * slot in both while it is on the wire (never while it sleeps before a retry).
 *
 * The interface slot is taken first: a request waiting for its own interface's rate must not sit
 * on a global slot that a request to another interface could use.
 *
 * With a shared gate (a distributed run), a request then takes a slot from the rate all processes
 * of the run share, last: the local limits keep their meaning (concurrency, this process's own
 * rate), and the shared slot is the one closest to the wire, so that its schedule is what the
 * service sees. Sustained 429s are told to the gate as well, which cuts the shared rate.
 */
import { abortError, sleep } from './_abort.js';
import type { SharedGate } from './_gate.js';
import { Limiter } from './_limiter.js';
import type { InterfaceName, ResolvedOptions } from './options.js';
import { INTERFACE_NAMES } from './options.js';

export type ThrottleOptions = Pick<
  ResolvedOptions,
  'global' | 'interfaces' | 'aimd' | 'pauseOnRetryAfter'
> & {
  readonly now?: () => number;
  /** The rate shared with the other processes of a distributed run; absent: this process alone. */
  readonly sharedGate?: SharedGate | undefined;
};

export class Throttle {
  readonly #global: Limiter;
  readonly #interfaces: Record<InterfaceName, Limiter>;
  readonly #pause: boolean;
  readonly #gate: SharedGate | undefined;
  /** Aborted by `close`: a request waiting for a shared slot must not outlive the client. */
  readonly #closed = new AbortController();

  constructor(options: ThrottleOptions) {
    const now = options.now;
    this.#global = new Limiter({ ...options.global, ...(now ? { now } : {}) });
    this.#interfaces = {} as Record<InterfaceName, Limiter>;
    for (const name of INTERFACE_NAMES) {
      this.#interfaces[name] = new Limiter({
        ...options.interfaces[name],
        aimd: options.aimd,
        ...(now ? { now } : {}),
      });
    }
    this.#pause = options.pauseOnRetryAfter;
    this.#gate = options.sharedGate;
  }

  /**
   * Takes a slot in `name`, in the global limit and, in a distributed run, in the shared rate.
   * `undefined` when all were free at once (never with a shared gate). `ahead`: before the
   * requests waiting in the local limits (see Limiter.acquire), never past the rates.
   */
  acquire(name: InterfaceName, signal?: AbortSignal, ahead = false): Promise<void> | undefined {
    const own = this.#interfaces[name];
    const first = own.acquire(signal, ahead);
    const local =
      first === undefined
        ? this.#thenGlobal(own, signal, ahead)
        : first.then(() => this.#thenGlobal(own, signal, ahead));
    if (this.#gate === undefined) return local;
    return local === undefined ? this.#shared(name, signal) : local.then(() => this.#shared(name, signal));
  }

  release(name: InterfaceName): void {
    this.#global.release();
    this.#interfaces[name].release();
  }

  /**
   * Every answer from `name`, before the retry decision acts on it: 429s and Retry-After headers
   * are told apart as sporadic or sustained by their share of the answers.
   */
  answered(name: InterfaceName, status: number, retryAfter: boolean): void {
    this.#interfaces[name].answered(status >= 200 && status < 300, status === 429 || retryAfter);
  }

  /**
   * A 429 from `name` for a request sent at `sentAt`. When 429s are sustained, the rate is cut and
   * `retryAfterMs` pauses the interface; a sporadic one changes nothing here (its request waits
   * its own Retry-After). Returns the new rate when this 429 cut it, else undefined.
   */
  onThrottled(name: InterfaceName, sentAt: number, retryAfterMs: number | null): number | undefined {
    const limiter = this.#interfaces[name];
    // Sporadic 429s stay this request's business here as well: the gate hears only of a limit.
    if (this.#gate !== undefined && limiter.sustained) this.#gate.throttled(name, sentAt);
    const cut = limiter.onThrottled(sentAt, this.#pause ? retryAfterMs : null);
    return cut ? (limiter.rate ?? undefined) : undefined;
  }

  /** A Retry-After on another status (503): hold the interface when sustained, leave its rate alone. */
  pause(name: InterfaceName, ms: number): void {
    if (this.#pause) this.#interfaces[name].pause(ms);
  }

  /**
   * Holds the interface's requests for `ms`, pushback or not: it serves nothing, and requests that
   * wait for it are told to knock together, about `concurrency` of them a second (_storm.ts).
   */
  hold(name: InterfaceName, ms: number): void {
    this.#interfaces[name].pause(ms, true);
  }

  /** The adaptive rate of an interface now, `null` while unlimited. */
  rate(name: InterfaceName): number | null {
    return this.#interfaces[name].rate;
  }

  close(error: unknown): void {
    this.#closed.abort(error);
    this.#global.close(error);
    for (const name of INTERFACE_NAMES) this.#interfaces[name].close(error);
  }

  /**
   * The shared slot, holding the local ones. A rejection (the signal, or the shared store gone:
   * QUEUE_UNUSABLE, fatal) gives the local slots back, as the caller never sends nor releases.
   */
  async #shared(name: InterfaceName, signal: AbortSignal | undefined): Promise<void> {
    const closed = this.#closed.signal;
    try {
      if (closed.aborted) throw closed.reason;
      await (this.#gate as SharedGate).take(
        name,
        signal === undefined ? closed : AbortSignal.any([signal, closed]),
      );
    } catch (error) {
      this.release(name);
      if (signal?.aborted) throw abortError(signal);
      throw error;
    }
  }

  #thenGlobal(own: Limiter, signal: AbortSignal | undefined, ahead: boolean): Promise<void> | undefined {
    const second = this.#global.acquire(signal, ahead);
    return second === undefined ? undefined : this.#afterGlobalWait(second, own, signal);
  }

  /**
   * A request that passed its interface and then waited for a global slot may find that a 429
   * paused the interface meanwhile: it waits the pause out as well. Otherwise the requests queued
   * at the global rate (up to `concurrency`) went out during the Retry-After, each met a 429, and
   * each started a new AIMD round (a benchmark saw 400/s fall to under 2/s in 30 ms).
   */
  async #afterGlobalWait(pending: Promise<void>, own: Limiter, signal: AbortSignal | undefined) {
    try {
      await pending;
    } catch (error) {
      own.release();
      throw error;
    }
    for (let hold = own.pausedMs; hold > 0; hold = own.pausedMs) {
      try {
        await sleep(hold, signal);
      } catch (error) {
        this.#global.release();
        own.release();
        throw error;
      }
    }
  }
}

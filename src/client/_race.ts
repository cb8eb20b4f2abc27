/**
 * One attempt and its hedges, racing: the first to settle is the result, the others are
 * abandoned. See _exchange.ts for why and when a hedge is sent.
 */
import { ABANDONED } from './_deadline.js';
import type { HttpFailure, HttpResponse, WireState } from './http.js';

/** What one attempt (or hedged pair) gave. */
export interface Sent {
  readonly result: HttpResponse | HttpFailure;
  readonly sentAt: number;
  /**
   * Its place in the order the process sent attempts in, which a clock's millisecond does not
   * give: whether an answer came to anything sent after a request's first attempt (_outage.ts).
   */
  readonly order: number;
  /** The deadline it ran under. */
  readonly timeoutMs: number;
}

/** One attempt's state: whether it was written (http.ts), is a hedge, and is in the counts. */
export interface Wire extends WireState {
  readonly hedge: boolean;
  /**
   * It is in the request counts (answered, abandoned or aborted). An attempt can end two ways at
   * once (answered in the same turn as its hedge, which abandons it; or cut by a stop that also
   * ends its race), and was then counted twice: whichever counts first sets this.
   */
  counted: boolean;
}

export function newWire(hedge: boolean): Wire {
  return { written: false, hedge, counted: false };
}

/** Attempts of one request out at once: the first and up to two hedges (a hedge may hang too). */
const MAX_OUT = 3;

export interface RaceParts {
  /** Sends one attempt; `onSlow` is its hedge trigger (see AttemptOptions). */
  attempt(signal: AbortSignal | undefined, onSlow: (abandon: () => void) => void, wire: Wire): Promise<Sent>;
  /** Asked when an attempt is slow: is a hedge due and in the budget? (Spends it when yes.) */
  worthHedging(): boolean;
  /** An attempt that was written is abandoned. */
  abandoned(): void;
  /** A hedge was written (counted when the race is decided). */
  hedgeSent(): void;
  hedgeWon(): void;
  resolve(sent: Sent): void;
  reject(error: unknown): void;
}

export class Race {
  readonly #p: RaceParts;
  #signal: AbortSignal | undefined;
  #done = false;
  #launched = 0;
  /** Attempts that may still be running, by number: what abandons each, and whether it went out. */
  readonly #running = new Map<number, { abandon: () => void; wire: Wire }>();

  constructor(parts: RaceParts) {
    this.#p = parts;
  }

  start(signal: AbortSignal | undefined): void {
    this.#signal = signal;
    void this.#launch(signal);
  }

  #launch(signal: AbortSignal | undefined, abandon?: () => void): Promise<void> {
    const number = ++this.#launched;
    const wire = newWire(number > 1);
    if (abandon !== undefined) this.#running.set(number, { abandon, wire });
    const onSlow = (abandonThis: () => void) => {
      if (!this.#running.has(number)) this.#running.set(number, { abandon: abandonThis, wire });
      // After the answers the event loop holds: the deadline sweep is a timer, and timers run
      // before I/O, so after a stall (GC, a busy core) every attempt in flight looks slow while
      // its answer sits unread. Hedging those spent the budget on nothing.
      setImmediate(() => {
        if (!this.#done && this.#launched < MAX_OUT && this.#p.worthHedging()) this.#hedge();
      });
    };
    return this.#p.attempt(signal, onSlow, wire).then(
      (sent) => {
        if (this.#done) return;
        this.#win(number);
        if (number > 1) this.#p.hedgeWon();
        this.#p.resolve(sent);
      },
      (error: unknown) => {
        // A hedge dropped while it queued for the throttle, or the caller aborted (which the
        // first attempt reports).
        if (this.#done || number > 1) return;
        this.#win(number);
        this.#p.reject(error);
      },
    );
  }

  /** A second attempt with its own signal: the caller's abort reaches it, and so does ours. */
  #hedge(): void {
    const signal = this.#signal;
    const controller = new AbortController();
    const forward = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    void this.#launch(controller.signal, () => controller.abort(ABANDONED)).finally(() =>
      signal?.removeEventListener('abort', forward),
    );
  }

  #win(number: number): void {
    this.#done = true;
    for (const [other, { abandon, wire }] of this.#running) {
      // Once the race is decided: a hedge still waiting for a connection then never leaves.
      if (wire.hedge && wire.written) this.#p.hedgeSent();
      if (other === number) continue;
      // Counted here, not when its promise settles: the caller has its answer by then. One that
      // was never written is dropped unsent (abandon() below) and costs nothing.
      if (wire.written && !wire.counted) {
        wire.counted = true;
        this.#p.abandoned();
      }
      abandon();
    }
  }
}

/**
 * Answers wait their turn: an answer's processing (parsing and checking it, then the job's and
 * the engine's work on its row, rendering and writing) runs a few answers per turn of the event
 * loop, after the I/O of that turn, instead of as soon as the answer has arrived.
 *
 * Why: answers come in bursts (requests sent together come back together), and everything the
 * event loop does between two reads delays both the answers behind it and the next requests,
 * which undici writes to a kept-alive socket only a turn after its last answer. Processed at
 * once, a burst of 32 geocoding answers held each next request behind all of them: about 0.6 ms
 * a request more than a bare loop spent outside the service, 20 ms answers at 32 in flight. In
 * turns, the reads and the writes of a burst come first and the processing follows a few at a
 * time (issue 17's latency-bound scenario: 0.92 -> 0.94-0.95 of the bound, BENCHMARKS.md).
 *
 * The throttle's slot is given back before an answer waits here, so the next request does not
 * wait for it. What waits is bounded: when more answers wait than requests may be in flight (a
 * service that answers faster than they are processed), a turn takes all but that many, so the
 * queue never outgrows one round of requests.
 */
export class Turns {
  readonly #perTurn: number;
  readonly #bound: number;
  #waiting: ((() => void) | undefined)[] = [];
  #head = 0;
  #scheduled = false;

  /** `perTurn` answers a turn at least; `bound` answers at most left waiting after a turn. */
  constructor(perTurn: number, bound: number) {
    this.#perTurn = Math.max(1, perTurn);
    this.#bound = Math.max(0, bound);
  }

  /** Resolves on a later turn of the event loop, in the order of the calls. */
  next(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#drain);
      }
    });
  }

  readonly #drain = (): void => {
    const queued = this.#waiting.length - this.#head;
    const end = this.#head + Math.min(queued, Math.max(this.#perTurn, queued - this.#bound));
    for (let i = this.#head; i < end; i++) {
      const resolve = this.#waiting[i];
      this.#waiting[i] = undefined;
      resolve?.();
    }
    this.#head = end;
    if (end < this.#waiting.length) {
      // A queue that never empties (answers faster than processed) drops its spent head now and then.
      if (end > 1024 && end * 2 > this.#waiting.length) {
        this.#waiting = this.#waiting.slice(end);
        this.#head = 0;
      }
      setImmediate(this.#drain);
      return;
    }
    this.#waiting = [];
    this.#head = 0;
    this.#scheduled = false;
  };
}

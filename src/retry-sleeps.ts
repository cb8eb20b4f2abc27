/**
 * Requests the client is sleeping out before their next attempt (a Retry-After, a backoff): the
 * client counts them here, and the engine does not count them against its concurrency.
 *
 * Why: the engine sends at most `concurrency` requests to the client at once, and a request that
 * waits 1-2 s for a Retry-After before its retry held one of them. With 1% of answers a 429, about
 * 15 of 16 were asleep at any time, and a run took 6-7 times as long as without the 429s, its
 * requests one at a time (BENCHMARKS.md, faults). A sleeping request holds no slot of the client's
 * throttle either; on waking it takes one like any other, so what is on the wire stays bounded.
 */
export class RetrySleeps {
  #sleeping = 0;
  readonly #listeners = new Set<() => void>();

  /** Requests asleep now. */
  get sleeping(): number {
    return this.#sleeping;
  }

  /** A request starts sleeping: engines may send another in its place. */
  start(): void {
    this.#sleeping++;
    for (const listener of this.#listeners) listener();
  }

  /** A request woke up (or its sleep was cut short). */
  end(): void {
    this.#sleeping--;
  }

  /** Tells `listener` of every request that starts sleeping; returns what stops that. */
  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}

/**
 * Gathers the items the answer cache is asked about: those of one turn of the event loop (the
 * rows of one read chunk), or LOOKUP_BATCH of them, go in one lookup, so that a batch of 500
 * points is one query, not 500.
 */
import type { Flight } from './_slots.js';
import type { AnswerCache } from './answers.js';
import type { ItemResult } from './job.js';

/** Items asked of the answer cache at once; more wait for the next lookup. */
const LOOKUP_BATCH = 500;

export interface LookupHooks {
  /** The lookup of these flights came back: `found` holds the answers the cache knew. */
  answered(flights: readonly Flight[], found: ReadonlyMap<string, ItemResult<unknown>>): void;
  readonly stopped: () => boolean;
}

export class Lookups {
  private waiting: Flight[] = [];
  private scheduled = false;
  /** Lookups asked and not yet answered. */
  running = 0;

  constructor(
    private readonly cache: AnswerCache,
    private readonly hooks: LookupHooks,
  ) {}

  add(flight: Flight): void {
    this.waiting.push(flight);
    if (this.waiting.length >= LOOKUP_BATCH) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  /** Asks now about every item waiting. */
  flush(): void {
    const asked = this.waiting;
    if (asked.length === 0 || this.hooks.stopped()) return;
    this.waiting = [];
    this.running++;
    let known: Promise<ReadonlyMap<string, ItemResult<unknown>>>;
    try {
      known = this.cache.lookup(asked);
    } catch {
      known = Promise.resolve(new Map());
    }
    // A cache that fails costs requests, never rows: its items are asked of the service.
    known
      .catch(() => new Map<string, ItemResult<unknown>>())
      .then((found) => {
        this.running--;
        if (!this.hooks.stopped()) this.hooks.answered(asked, found);
      });
  }
}

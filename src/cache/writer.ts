/**
 * Writes answers as they arrive: what arrived since the last commit goes in one transaction, at
 * most MIN_INTERVAL_MS after the last one, so an answer is durable within milliseconds of its
 * arrival (a run killed and resumed does not pay for it again). A commit costs about 70 µs
 * whatever it holds and 5 µs an entry: one per answer would cost a fast run more time than its
 * requests. A write that fails (a full disk, a lost database) stops caching for the rest of the
 * run, and says so once; the run itself goes on.
 */
import type { Logger } from 'pino';
import { isFull, problemOf } from './_errors.js';
import type { CacheStore, NewEntry } from './store.js';
import type { CacheTally } from './tally.js';

/** The longest an answer waits for its commit (when the one before was that recent). */
const MIN_INTERVAL_MS = 5;

export class CacheWriter {
  #buffer: NewEntry[] = [];
  #lastCommit = 0;
  #running: Promise<void> | undefined;
  #scheduled = false;
  #stopped = false;

  constructor(
    private readonly store: CacheStore,
    private readonly tally: CacheTally,
    private readonly logger: Logger,
  ) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  add(entry: NewEntry): void {
    if (this.#stopped) return;
    this.#buffer.push(entry);
    if (this.#scheduled || this.#running !== undefined) return;
    this.#scheduled = true;
    const start = () => {
      this.#scheduled = false;
      this.#start();
    };
    const wait = this.#lastCommit + MIN_INTERVAL_MS - performance.now();
    if (wait <= 0) setImmediate(start);
    else setTimeout(start, wait);
  }

  /** Resolves when everything added so far is written (or writing has stopped). */
  async flush(): Promise<void> {
    while (this.#running !== undefined || (this.#buffer.length > 0 && !this.#stopped)) {
      this.#start();
      await this.#running;
    }
  }

  #start(): void {
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
  }

  async #drain(): Promise<void> {
    while (this.#buffer.length > 0 && !this.#stopped) {
      const batch = this.#buffer;
      this.#buffer = [];
      try {
        await this.store.putMany(batch);
        this.#lastCommit = performance.now();
        this.tally.writes += batch.length;
      } catch (error) {
        this.#stop(error);
      }
    }
  }

  #stop(error: unknown): void {
    this.#stopped = true;
    this.#buffer = [];
    // A damaged file was said once, by the store that found it (_damage.ts).
    if (problemOf(error) === 'damaged') return;
    const reason = isFull(error)
      ? 'the disk is full'
      : `writing failed (${(error as Error).message ?? String(error)})`;
    const problem = `${this.store.location}: ${reason}; the run goes on without caching new answers`;
    this.tally.problems.push(problem);
    this.logger.warn({ cache: this.store.location }, `Request cache: ${problem}`);
  }
}

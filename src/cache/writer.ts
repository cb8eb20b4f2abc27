/**
 * Writes answers as they arrive: entries gathered during one turn of the event loop go in one
 * transaction right after it, so an answer is durable within milliseconds of its arrival (a run
 * killed and resumed does not pay for it again) without a transaction per answer. A write that
 * fails (a full disk, a lost database) stops caching for the rest of the run, and says so once;
 * the run itself goes on.
 */
import type { Logger } from 'pino';
import { isFull } from './_errors.js';
import type { CacheStore, NewEntry } from './store.js';
import type { CacheTally } from './tally.js';

export class CacheWriter {
  #buffer: NewEntry[] = [];
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
    setImmediate(() => {
      this.#scheduled = false;
      this.#start();
    });
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
        this.tally.writes += batch.length;
      } catch (error) {
        this.#stop(error);
      }
    }
  }

  #stop(error: unknown): void {
    this.#stopped = true;
    this.#buffer = [];
    const reason = isFull(error)
      ? 'the disk is full (or the cache reached its size limit)'
      : `writing failed (${(error as Error).message ?? String(error)})`;
    const problem = `${this.store.location}: ${reason}; the run goes on without caching new answers`;
    this.tally.problems.push(problem);
    this.logger.warn({ cache: this.store.location }, `Request cache: ${problem}`);
  }
}

/**
 * Writes answers as they arrive: what arrived since the last commit goes in one transaction, at
 * most MIN_INTERVAL_MS after the last one, so an answer is durable within milliseconds of its
 * arrival (a run killed and resumed does not pay for it again). A commit costs about 70 µs
 * whatever it holds and 5 µs an entry: one per answer would cost a fast run more time than its
 * requests. A write that finds the file locked by another process waits and is tried again
 * (BUSY_RETRY_MS); one that fails otherwise (a full disk, a lost database) stops caching for the
 * rest of the run, and says so once; the run itself goes on.
 */
import type { Logger } from 'pino';
import { isFull, problemOf } from './_errors.js';
import { lostCacheAdvice } from './_pg-lost.js';
import type { CacheStore, NewEntry } from './store.js';
import type { CacheTally } from './tally.js';

/** The longest an answer waits for its commit (when the one before was that recent). */
const MIN_INTERVAL_MS = 5;

/**
 * Another process holding the file locked (a `cache prune`, an `sqlite3` shell in a transaction)
 * makes a write fail busy. The answers wait, and are written when it is free: tried again after
 * this long, while no more than MAX_WAITING wait, and until FLUSH_WAIT_MS into the run's last flush.
 */
const BUSY_RETRY_MS = 1000;
const MAX_WAITING = 100_000;
/** How long the run's last flush waits for the file: a stop asks for less (run.ts, STOP_FLUSH_WAIT_MS). */
export const FLUSH_WAIT_MS = 10_000;

/** SQLite's BUSY or LOCKED (extended codes included): the file is another connection's for now. */
function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: number } | null)?.errcode;
  return code !== undefined && ((code & 0xff) === 5 || (code & 0xff) === 6);
}

export class CacheWriter {
  #buffer: NewEntry[] = [];
  #lastCommit = 0;
  #running: Promise<void> | undefined;
  #scheduled = false;
  #stopped = false;
  /** A write found the file locked: the next is tried after BUSY_RETRY_MS. */
  #busy = false;
  #retry: NodeJS.Timeout | undefined;

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
    if (this.#scheduled || this.#running !== undefined || this.#retry !== undefined) return;
    this.#scheduled = true;
    const start = () => {
      this.#scheduled = false;
      this.#start();
    };
    const wait = this.#lastCommit + MIN_INTERVAL_MS - performance.now();
    if (wait <= 0) setImmediate(start);
    else setTimeout(start, wait);
  }

  /**
   * Resolves when everything added so far is written, or writing has stopped: a file another
   * process keeps locked for `waitMs` stops it, and the answers still waiting are not cached.
   */
  async flush(waitMs = FLUSH_WAIT_MS): Promise<void> {
    const until = performance.now() + waitMs;
    while (this.#running !== undefined || (this.#buffer.length > 0 && !this.#stopped)) {
      if (this.#busy && this.#running === undefined) {
        if (performance.now() >= until) {
          const waiting = this.#buffer.length;
          this.#stop(
            new Error(
              `the file stayed locked by another process for ${waitMs / 1000} s; ${waiting} answers were not cached`,
            ),
          );
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS / 4));
      }
      clearTimeout(this.#retry);
      this.#retry = undefined;
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
        if (this.#busy) {
          this.logger.info(
            { cache: this.store.location },
            'Request cache: the file is free again; the waiting answers are written',
          );
          this.#busy = false;
        }
      } catch (error) {
        if (!isBusy(error) || batch.length + this.#buffer.length > MAX_WAITING) {
          this.#stop(error);
          return;
        }
        this.#buffer = batch.concat(this.#buffer);
        if (!this.#busy) {
          this.#busy = true;
          this.logger.warn(
            { cache: this.store.location },
            'Request cache: another process holds the file locked; answers wait and are written when it is free',
          );
        }
        this.#retry ??= setTimeout(() => {
          this.#retry = undefined;
          this.#start();
        }, BUSY_RETRY_MS);
        this.#retry.unref();
        return;
      }
    }
  }

  #stop(error: unknown): void {
    this.#stopped = true;
    this.#buffer = [];
    clearTimeout(this.#retry);
    this.#retry = undefined;
    // A damaged file was said once, by the store that found it (_damage.ts).
    if (problemOf(error) === 'damaged') return;
    const reason = isFull(error)
      ? 'the disk is full'
      : `writing failed (${(error as Error).message ?? String(error)})`;
    const advice = this.store.kind === 'postgres' ? `. ${lostCacheAdvice(error)}` : '';
    const problem = `${this.store.location}: ${reason}; the run goes on without caching new answers${advice}`;
    this.tally.problems.push(problem);
    this.logger.warn({ cache: this.store.location }, `Request cache: ${problem}`);
  }
}

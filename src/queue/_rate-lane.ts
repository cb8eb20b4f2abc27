/**
 * One scope's takes in one process: a queue of waiters, batched reservations, and the sleep until
 * each slot. The statements themselves are the gate's (`reserve`); a lane only decides when to
 * ask and for how many.
 *
 * Batching: while the lane's slots reach into the future, the next reservation waits until
 * shortly before the last of them (LEAD_MS plus two round trips), so that takes queue up and go in
 * one statement rather than one statement each, and the next slots are still reserved before the
 * schedule runs dry. A batch is at most a tenth of a second of the rate.
 *
 * Unlimited (no rate on the row): takes pass at once and are only counted; the count goes to the
 * row every FLUSH_MS, which is also when the lane learns that another worker's 429 gave the scope
 * a rate. After a quiet spell, takes wait for one statement's answer before they pass.
 */
import type { IoError } from '../errors.js';

/** Slots one statement reserves: up to this many seconds of the rate (between 1 and MAX_BATCH). */
const BATCH_SECONDS = 0.1;
const MAX_BATCH = 64;
const LEAD_MS = 20;
export const FLUSH_MS = 200;
/** A spare slot (its waiter gave up) this late is dropped: sending on it now would bunch. */
const SPARE_GRACE_MS = 10;

export interface LaneParts {
  now(): number;
  /** Reserves `slots` and counts `count` grants: the slots' local due times and the rate now. */
  reserve(slots: number, count: number): Promise<{ dues: number[]; rate: number | null }>;
  /** A statement's round trip, ms. */
  rtt(): number;
  /** Set while the store is failing: a free take (which sends no statement) rejects with it. */
  failure(): IoError | undefined;
}

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  due: number;
  done: boolean;
}

export class Lane {
  readonly #p: LaneParts;
  /** Null: unlimited, takes pass and are counted. */
  #rate: number | null = null;
  #queue: Waiter[] = [];
  readonly #held = new Set<Waiter>();
  #spare: number[] = [];
  #busy = false;
  #unsent = 0;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #flushedAt = 0;
  /** The latest slot handed out. */
  #lastDue = 0;
  #pumpTimer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  /** The flush that takes after a quiet spell wait for. */
  #learning: Promise<void> | undefined;

  constructor(parts: LaneParts) {
    this.#p = parts;
  }

  /** What the row says now; a lane that gets a rate starts reserving. */
  learn(rate: number | null): void {
    this.#rate = rate;
    this.#pump();
  }

  /** `undefined`: granted at once (an unlimited scope, counted). */
  take(signal: AbortSignal | undefined): Promise<void> | undefined {
    if (this.#rate === null) {
      const failure = this.#p.failure();
      if (failure !== undefined) return Promise.reject(failure);
      // After a quiet spell what the lane knows may be old (another worker's 429 cut the scope
      // meanwhile): takes wait for one statement's answer instead of passing on old knowledge.
      // A busy lane learns every FLUSH_MS; a flush slow to come back (a loaded machine) let 3
      // rounds of 16 takes through at 1,600/s after a cut.
      if (this.#learning === undefined && this.#flushTimer === undefined && !this.#closed && this.#stale())
        this.#learning = this.flush().finally(() => {
          this.#learning = undefined;
        });
      if (this.#learning !== undefined) return this.#learning.then(() => this.take(signal));
      this.#count();
      return undefined;
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: undefined,
        timer: undefined,
        due: 0,
        done: false,
      };
      if (signal !== undefined) {
        waiter.onAbort = () => this.#abandon(waiter, signal.reason);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      const spare = this.#takeSpare();
      if (spare !== undefined) this.#hold(waiter, spare);
      else {
        this.#queue.push(waiter);
        this.#pump();
      }
    });
  }

  /** Counts the unlimited grants into the row, and learns whether the scope still is unlimited. */
  async flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#closed) return;
    const count = this.#unsent;
    this.#unsent = 0;
    this.#flushedAt = this.#p.now();
    try {
      const { rate } = await this.#p.reserve(0, count);
      this.learn(rate);
    } catch {
      // The gate keeps the failure: the next free take rejects with it.
    }
  }

  close(error: unknown): void {
    this.#closed = true;
    clearTimeout(this.#flushTimer);
    clearTimeout(this.#pumpTimer);
    for (const waiter of [...this.#queue, ...this.#held]) this.#settle(waiter, error);
    this.#queue = [];
    this.#held.clear();
  }

  /** No flush for longer than FLUSH_MS. */
  #stale(): boolean {
    return this.#p.now() - this.#flushedAt > FLUSH_MS;
  }

  #count(): void {
    this.#unsent++;
    if (this.#flushTimer !== undefined || this.#closed) return;
    const wait = this.#flushedAt + FLUSH_MS - this.#p.now();
    if (wait <= 0) void this.flush();
    else this.#flushTimer = setTimeout(() => void this.flush(), wait);
  }

  /** Reserves slots for the head of the queue, one statement at a time. */
  #pump(): void {
    if (this.#busy || this.#closed || this.#pumpTimer !== undefined) return;
    this.#queue = this.#queue.filter((w) => !w.done);
    if (this.#queue.length === 0) return;
    const rate = this.#rate;
    if (rate === null) {
      // The scope turned out unlimited (a refresh): let the queue through.
      for (const waiter of this.#queue.splice(0)) this.#settle(waiter, undefined);
      return;
    }
    const early = this.#lastDue - LEAD_MS - 2 * this.#p.rtt() - this.#p.now();
    if (early > 0) {
      this.#pumpTimer = setTimeout(() => {
        this.#pumpTimer = undefined;
        this.#pump();
      }, Math.ceil(early));
      return;
    }
    const k = Math.min(this.#queue.length, MAX_BATCH, Math.max(1, Math.floor(rate * BATCH_SECONDS)));
    const count = k + this.#unsent;
    this.#unsent = 0;
    this.#busy = true;
    this.#p.reserve(k, count).then(
      ({ dues, rate: now }) => {
        this.#busy = false;
        for (const due of dues) this.#offer(due);
        this.learn(now);
      },
      (error: unknown) => {
        this.#busy = false;
        for (const waiter of this.#queue.splice(0)) this.#settle(waiter, error);
      },
    );
  }

  /** A reserved slot: to the first waiter still queued, else kept for the next take. */
  #offer(due: number): void {
    while (this.#queue.length > 0) {
      const waiter = this.#queue.shift() as Waiter;
      if (!waiter.done) {
        this.#hold(waiter, due);
        return;
      }
    }
    this.#spare.push(due);
    this.#spare.sort((a, b) => a - b);
  }

  #takeSpare(): number | undefined {
    const oldest = this.#p.now() - SPARE_GRACE_MS;
    while (this.#spare.length > 0 && (this.#spare[0] as number) < oldest) this.#spare.shift();
    return this.#spare.shift();
  }

  /** The waiter sleeps until `due`; a timer may fire a little early, so it checks and sleeps on. */
  #hold(waiter: Waiter, due: number): void {
    waiter.due = due;
    this.#lastDue = Math.max(this.#lastDue, due);
    this.#held.add(waiter);
    const wake = (): void => {
      const left = waiter.due - this.#p.now();
      if (left > 0) {
        waiter.timer = setTimeout(wake, Math.ceil(left));
        return;
      }
      waiter.timer = undefined;
      this.#held.delete(waiter);
      this.#settle(waiter, undefined);
    };
    wake();
  }

  /** An aborted take: its slot, when it had one, goes to the next waiter. */
  #abandon(waiter: Waiter, reason: unknown): void {
    if (waiter.done) return;
    if (this.#held.delete(waiter)) {
      clearTimeout(waiter.timer);
      this.#offer(waiter.due);
    }
    this.#settle(waiter, reason);
  }

  #settle(waiter: Waiter, error: unknown): void {
    if (waiter.done) return;
    waiter.done = true;
    clearTimeout(waiter.timer);
    if (waiter.onAbort !== undefined) waiter.signal?.removeEventListener('abort', waiter.onAbort);
    if (error === undefined) waiter.resolve();
    else waiter.reject(error);
  }
}

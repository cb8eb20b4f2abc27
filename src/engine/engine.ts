/**
 * The engine: read -> plan -> dedup -> batch -> send -> reorder, as one pull-based async
 * generator. Rows are pulled only while fewer than `window` wait for answers and the window's
 * rows fit in `windowBytes`, requests are started only while fewer than `concurrency` are running,
 * and outcomes leave in input order.
 *
 * Invariant: every row pulled leaves as exactly one outcome, unless the run stops (fatal error,
 * abort), in which case the finished rows at the head leave first and the error is thrown.
 */
import { batchesOf } from '../batches.js';
import { fatalReason, type GeobatchError, interrupted, isGeobatchError, RunError } from '../errors.js';
import type { HttpAttempts } from '../http-attempts.js';
import type { Outcome, ReadItem } from '../types.js';
import { estimateBytes } from './_bytes.js';
import { planRow, renderRow, unreadable } from './_render.js';
import { Requests } from './_requests.js';
import { NO_FLIGHTS, type Slot, Slots } from './_slots.js';
import type { SharedAnswers } from './_step-sharing.js';
import { createCounters, type EngineCounters } from './counters.js';
import type { AnyJob, ItemResult } from './job.js';
import { type EngineOptions, resolveEngineOptions } from './options.js';

/**
 * A row that already failed in an earlier step of a pipeline: it keeps its place in the order and
 * leaves as it came, without a plan or a request.
 */
export interface PassedItem {
  readonly kind: 'passed';
  readonly ref: Outcome['ref'];
  readonly outcome: Extract<Outcome, { status: 'failed' }>;
}

export type EngineItem = ReadItem | PassedItem;

export interface ProcessOptions extends EngineOptions {
  /**
   * Stops the run: no more rows pulled, requests in flight aborted, ABORTED thrown; or the reason
   * it was aborted with, when that is a fatal GeobatchError (the log file's IO_ERROR).
   */
  signal?: AbortSignal;
  /**
   * Once `signal` aborts: let the requests already in flight come back, for at most `ms`, before
   * they are aborted. No row is pulled and no request sent meanwhile (but by a pipeline's later
   * steps, for the rows the first step hands on: pipeline.ts, laterSteps); the rows their answers
   * finish leave as usual and the answers reach the answer cache, so a resumed run does not pay
   * for them again. Not with a fatal reason (the log file failed): that stops at once.
   * @default none: requests in flight are aborted at once
   */
  drain?: StopDrain;
  /** Counters to update (created when absent); readable while the run goes. */
  counters?: EngineCounters;
  /**
   * The items are an earlier pipeline step's outcomes, which arrive at the pace of that step's
   * answers: a partial batch then waits for them instead of leaving after the job's `lingerMs`,
   * and leaves when full, when the earlier steps are done, or when the window is full and its
   * head row waits in it. Lingering there sent a request for every few rows. @default false
   */
  fedByStep?: boolean;
  /**
   * With fedByStep: the longest a partial batch waits to fill before it leaves part-full. The
   * pipeline shares STEP_BATCH_WAIT_MS among its later steps that batch, since a row waits in
   * each of them in turn. @default STEP_BATCH_WAIT_MS
   */
  stepWaitMs?: number;
  /**
   * Counts the HTTP attempts the client makes for this engine's requests, retries and further
   * pages included (a pipeline's step: its own count, see src/http-attempts.ts). @default none
   */
  httpAttempts?: HttpAttempts;
  /**
   * What this step shares with the pipeline's other steps of its scope: their dedup memory and
   * their items in flight (_step-sharing.ts). Set by processSteps. @default none
   */
  shared?: SharedAnswers;
}

/** How a stop waits for the requests in flight (ProcessOptions.drain). */
export interface StopDrain {
  /** The longest wait, in milliseconds; 0 waits for none. */
  readonly ms: number;
  /** Ends the wait at once (a second Ctrl-C). */
  readonly cut?: AbortSignal;
}

/** Turns read items into outcomes in input order. See the module comment for the guarantees. */
export function processRows(
  items: AsyncIterable<EngineItem>,
  job: AnyJob,
  options: ProcessOptions = {},
): AsyncGenerator<Outcome> {
  return new Engine(job, options).run(items);
}

class Engine {
  private readonly window: number;
  private readonly windowBytes: number;
  /** Estimated bytes of the rows in the window. */
  private bytes = 0;
  /** Rows in the window still waiting for answers (the rest are finished, waiting for their turn). */
  private unanswered = 0;
  private readonly counters: EngineCounters;
  private readonly slots = new Slots();
  private readonly requests: Requests;
  private fatal: GeobatchError | undefined;
  private wakeUp: (() => void) | undefined;
  private woken: Promise<undefined> | undefined;
  /** The run waits for the next rows of the input (not for room, answers or its reader). */
  private awaitingInput = false;
  /** Set once a stop started to wait for the requests in flight (ProcessOptions.drain). */
  private draining: { over: boolean; end(): void } | undefined;

  constructor(
    private readonly job: AnyJob,
    private readonly options: ProcessOptions,
  ) {
    const resolved = resolveEngineOptions(options);
    this.window = resolved.window;
    this.windowBytes = resolved.windowBytes;
    this.counters = options.counters ?? createCounters();
    const linger = options.fedByStep !== true;
    const awaitingInput = () => this.awaitingInput;
    const requestOptions = {
      ...resolved,
      answers: options.answers,
      linger,
      ...(options.stepWaitMs === undefined ? {} : { stepWaitMs: options.stepWaitMs }),
      awaitingInput,
      retrySleeps: options.retrySleeps,
      httpAttempts: options.httpAttempts,
      shared: options.shared,
    };
    this.requests = new Requests(job, requestOptions, this.counters, {
      deliver: (slot, position, result) => this.deliver(slot, position, result),
      settled: () => this.notify(),
      fatal: (error) => {
        this.fatal ??= error;
        this.notify();
      },
    });
  }

  async *run(items: AsyncIterable<EngineItem>): AsyncGenerator<Outcome> {
    // Taken a batch at a time when the input has them (batches.ts): one await per chunk, not per row.
    const iterator = batchesOf(items);
    const signal = this.options.signal;
    const onAbort = () => this.notify();
    signal?.addEventListener('abort', onAbort);
    // The read in flight, and what it gave once it settled. A settled read wakes the loop as an
    // answer does (notify), so that the loop waits for whichever comes first, finished rows leaving
    // while a slow input stalls, without racing promises: raced against the shared wake-up, each
    // read the input won left a reaction on it holding the batch it carried until an answer came,
    // and rows that fail before any request bring none (1,000,000 of them held 389 MB).
    const read: {
      inFlight: boolean;
      settled: { value: IteratorResult<readonly EngineItem[]> } | { error: unknown } | undefined;
    } = { inFlight: false, settled: undefined };
    let batch: readonly EngineItem[] = [];
    let taken = 0;
    let inputDone = false;
    /** The stop an earlier step of a pipeline ended its rows with, thrown once this step's are out. */
    let stoppedBefore: unknown;
    try {
      for (;;) {
        for (let slot = this.slots.head(); slot?.outcome !== undefined; slot = this.slots.head()) {
          this.slots.shift();
          this.bytes -= slot.bytes;
          yield this.emit(slot.outcome);
        }
        if (this.fatal !== undefined) throw stopError(this.fatal, signal);
        // Every row out, the last ones answered while a stop waited for them: the run is whole,
        // not stopped (a --resume of it sent nothing and wrote the same file).
        if (inputDone && this.slots.size === 0) {
          if (stoppedBefore !== undefined) throw stoppedBefore;
          break;
        }
        if (signal?.aborted) {
          if (!this.stillDraining(signal)) throw stopError(this.fatal, signal);
          await this.wait();
          continue;
        }
        if (!inputDone && this.hasRoom()) {
          if (taken < batch.length) {
            // What fits of the batch, then finished rows leave (the loop's top) before more come in.
            do this.admit(batch[taken++] as EngineItem);
            while (taken < batch.length && this.hasRoom() && this.fatal === undefined && !signal?.aborted);
            continue;
          }
          if (!read.inFlight && read.settled === undefined) {
            read.inFlight = true;
            iterator.next().then(
              (value) => {
                read.inFlight = false;
                read.settled = { value };
                this.notify();
              },
              (error: unknown) => {
                read.inFlight = false;
                read.settled = { error };
                this.notify();
              },
            );
          }
          if (read.settled === undefined) {
            this.awaitingInput = true;
            await this.wait();
            this.awaitingInput = false;
            if (read.settled === undefined) continue;
          }
          const settled = read.settled;
          read.settled = undefined;
          if ('error' in settled) {
            // An earlier step stopped (Ctrl-C) after its requests in flight came back: the rows it
            // handed on were paid for, and this step finishes them as at the input's end, then
            // stops the same way (see pipeline.ts, laterSteps).
            if (!this.fedByStopped(settled.error)) throw settled.error;
            stoppedBefore = settled.error;
            inputDone = true;
            this.endInput();
            this.requests.flushAll();
            continue;
          }
          const next = settled.value;
          if (next.done === true) {
            inputDone = true;
            this.endInput();
            this.requests.flushAll();
          } else {
            batch = next.value;
            taken = 0;
          }
          continue;
        }
        // The window is full: the head row must not wait for a batch only time would send.
        if (!inputDone) this.requests.flush(this.slots.head()?.flights ?? []);
        await this.wait();
      }
      this.checkBalance();
    } finally {
      signal?.removeEventListener('abort', onAbort);
      // A stop that waits for the requests in flight waits here too when the rows' reader stopped
      // pulling (a later step of a pipeline done with its own): their answers still reach the
      // cache. And then for an earlier step's, whose return() waits for them in turn.
      const waits = signal?.aborted === true && this.stillDraining(signal);
      if (waits) while (this.stillDraining(signal)) await this.wait();
      this.draining?.end();
      this.requests.stop();
      if (!inputDone) {
        const closed = Promise.resolve(iterator.return?.()).catch(() => {});
        if (this.draining !== undefined) await closed;
      }
    }
  }

  /** A later step's input ended by a stop that is no failure of its own (Ctrl-C, not a fatal error). */
  private fedByStopped(error: unknown): boolean {
    return this.options.fedByStep === true && isGeobatchError(error) && error.code === 'ABORTED';
  }

  /**
   * A stop waits for requests in flight while ProcessOptions.drain allows: started by the first
   * call after the signal, it holds every request not yet sent and ends when none is in flight,
   * when `drain.ms` has passed or `drain.cut` aborts. Never for a fatal reason.
   */
  private stillDraining(signal: AbortSignal): boolean {
    const drain = this.options.drain;
    if (drain === undefined || drain.ms <= 0 || fatalReason(signal) !== undefined) return false;
    if (this.draining === undefined) {
      const state = { over: drain.cut?.aborted === true, end: () => {} };
      const over = () => {
        state.over = true;
        this.notify();
      };
      const timer = setTimeout(over, drain.ms);
      drain.cut?.addEventListener('abort', over);
      state.end = () => {
        clearTimeout(timer);
        drain.cut?.removeEventListener('abort', over);
      };
      this.draining = state;
      this.requests.hold();
    }
    return !this.draining.over && this.requests.inFlight > 0;
  }

  /**
   * Another row fits: fewer than `window` rows waiting for answers, the window's rows (finished
   * ones too) under the byte budget, and fewer than `concurrency` requests waiting for a slot (one
   * row always fits). Rows read while every slot is busy and as many requests wait would only wait
   * in memory; a window full of them lived longer than a young-generation collection's interval
   * and was promoted, row after row.
   *
   * Finished rows waiting behind a slow one are bounded by bytes alone: with 1% of answers a 429
   * asking for 1-2 s, a row sleeps out its Retry-After every hundred rows, and a count of 2048
   * rows in all filled within half a second behind it, then reading stopped until it woke
   * (10,000 geocoded rows: 10.4-11.5 s, against 4.0-4.3 s bounded by bytes, and 1.8-2.2 s
   * without 429s). The count still bounds the work in flight: elevation's 500-point requests,
   * allowed 8192 rows in all, kept 16 requests in flight and peaked at 162 MB instead of 141.
   */
  private hasRoom(): boolean {
    const size = this.slots.size;
    return (
      this.unanswered < this.window &&
      (size === 0 || (this.bytes < this.windowBytes && !this.requests.backlogged))
    );
  }

  /** Tells the job before the last batches leave; a throw there is a defect, and stops the run. */
  private endInput(): void {
    try {
      this.job.inputEnded?.();
    } catch (error) {
      this.fatal ??= new RunError(
        'INTERNAL',
        `The ${this.job.kind} job failed at the end of the input: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private emit(outcome: Outcome): Outcome {
    const c = this.counters;
    c.rowsEmitted++;
    if (outcome.status === 'ok') c.rowsOk++;
    else {
      c.rowsFailed++;
      c.failuresByCode[outcome.issue.code] = (c.failuresByCode[outcome.issue.code] ?? 0) + 1;
    }
    return outcome;
  }

  private admit(item: EngineItem): void {
    const c = this.counters;
    c.rowsRead++;
    if (item.kind === 'passed') {
      const slot = this.slots.push(item.outcome.issue);
      // Finished at once, but it may wait behind a slow row: only the byte budget bounds that.
      this.account(slot, ROW_BYTES + estimateBytes(item.outcome.row?.fields ?? null));
      slot.outcome = item.outcome;
      return;
    }
    const slot = this.slots.push(item);
    this.account(slot, ROW_BYTES + estimateBytes(item.kind === 'row' ? item.fields : (item.fields ?? null)));
    if (item.kind === 'row' && item.geometry != null) this.account(slot, estimateBytes(item.geometry));
    c.maxRowsInFlight = Math.max(c.maxRowsInFlight, this.slots.size);
    if (item.kind === 'issue') {
      slot.outcome = unreadable(item);
      return;
    }
    const plan = planRow(this.job, item);
    if (!('keys' in plan)) {
      slot.outcome = plan;
      return;
    }
    c.itemsPlanned += plan.items.length;
    this.unanswered++;
    slot.results = new Array(plan.items.length);
    slot.pending = plan.items.length + 1;
    for (let i = 0; i < plan.items.length; i++) {
      this.requests.request(slot, i, plan.items[i], plan.keys[i] as string);
    }
    this.deliver(slot, -1, undefined);
  }

  /** Records one answer; the row renders once all its items are answered. Position -1 is the planning guard. */
  private deliver(slot: Slot, position: number, result: ItemResult<unknown> | undefined): void {
    if (position >= 0) (slot.results as ItemResult<unknown>[])[position] = result as ItemResult<unknown>;
    if (--slot.pending > 0) return;
    this.unanswered--;
    const outcome = renderRow(this.job, slot.item as Extract<ReadItem, { kind: 'row' }>, slot.results ?? []);
    slot.outcome = outcome;
    slot.results = undefined;
    slot.flights = NO_FLIGHTS;
    if (outcome.status === 'ok' || outcome.records !== undefined)
      this.account(slot, estimateBytes(outcome.records));
    if (slot === this.slots.head()) this.notify();
  }

  private account(slot: Slot, bytes: number): void {
    slot.bytes += bytes;
    this.bytes += bytes;
  }

  /** One promise per wake-up, shared by every wait until then (not one per row read). */
  private wait(): Promise<undefined> {
    this.woken ??= new Promise<undefined>((resolve) => {
      this.wakeUp = () => resolve(undefined);
    });
    return this.woken;
  }

  private notify(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    this.woken = undefined;
    wake?.();
  }

  private checkBalance(): void {
    const c = this.counters;
    if (c.rowsRead !== c.rowsEmitted || c.rowsOk + c.rowsFailed !== c.rowsEmitted) {
      throw new RunError(
        'INVARIANT_BROKEN',
        `Row accounting does not balance: ${c.rowsRead} read, ${c.rowsEmitted} emitted (${c.rowsOk} ok, ${c.rowsFailed} failed)`,
      );
    }
  }
}

/** The engine's own objects for a row (slot, plan, flight, outcome), besides its data. */
const ROW_BYTES = 512;

/**
 * Why the rows stop: the fatal error a request met, unless that is only the ABORTED of a request
 * cut short by the signal, whose own fatal reason (an IO_ERROR: the log file failed) is the cause.
 * A signal aborted for no such reason (Ctrl-C) is ABORTED.
 */
function stopError(fatal: GeobatchError | undefined, signal: AbortSignal | undefined): GeobatchError {
  if (fatal !== undefined && (fatal.code !== 'ABORTED' || fatalReason(signal) === undefined)) return fatal;
  return interrupted(signal);
}

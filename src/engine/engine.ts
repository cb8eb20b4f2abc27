/**
 * The engine: read -> plan -> dedup -> batch -> send -> reorder, as one pull-based async
 * generator. Rows are pulled only while fewer than `window` are unfinished, requests are started
 * only while fewer than `concurrency` are running, and outcomes leave in input order.
 *
 * Invariant: every row pulled leaves as exactly one outcome, unless the run stops (fatal error,
 * abort), in which case the finished rows at the head leave first and the error is thrown.
 */
import { setMaxListeners } from 'node:events';
import { GeobatchError, isFatalCode, isGeobatchError, isUsageCode } from '../errors.js';
import type { Outcome, ReadItem } from '../types.js';
import { Batcher } from './_batcher.js';
import { cacheable, failed, failureFromError, internal } from './_failure.js';
import { Lru } from './_lru.js';
import { planRow, renderRow, unreadable } from './_render.js';
import { type Flight, type Slot, Slots } from './_slots.js';
import { createCounters, type EngineCounters } from './counters.js';
import type { AnyJob, ItemResult } from './job.js';
import { type EngineOptions, resolveEngineOptions } from './options.js';

export interface ProcessOptions extends EngineOptions {
  /** Stops the run: no more rows pulled, requests in flight aborted, ABORTED thrown. */
  signal?: AbortSignal;
  /** Counters to update (created when absent); readable while the run goes. */
  counters?: EngineCounters;
}

/** Turns read items into outcomes in input order. See the module comment for the guarantees. */
export function processRows(
  items: AsyncIterable<ReadItem>,
  job: AnyJob,
  options: ProcessOptions = {},
): AsyncGenerator<Outcome> {
  return new Engine(job, options).run(items);
}

class Engine {
  private readonly window: number;
  private readonly concurrency: number;
  private readonly counters: EngineCounters;
  private readonly slots = new Slots();
  private readonly inflight = new Map<string, Flight>();
  private readonly cache: Lru<string, ItemResult<unknown>>;
  private readonly batcher: Batcher<Flight>;
  private readonly ready: Flight[][] = [];
  private readonly controller = new AbortController();
  private running = 0;
  private fatal: GeobatchError | undefined;
  private wakeUp: (() => void) | undefined;
  private woken: Promise<void> | undefined;

  constructor(
    private readonly job: AnyJob,
    private readonly options: ProcessOptions,
  ) {
    const resolved = resolveEngineOptions(options);
    this.window = resolved.window;
    this.concurrency = resolved.concurrency;
    this.counters = options.counters ?? createCounters();
    this.cache = new Lru(resolved.dedupCacheSize);
    // Every request in flight may listen to the one signal; that is expected, not a leak.
    setMaxListeners(Math.max(10, this.concurrency * 4), this.controller.signal);
    this.batcher = new Batcher<Flight>(job.batching, (members) => {
      this.ready.push(members);
      this.dispatch();
    });
  }

  async *run(items: AsyncIterable<ReadItem>): AsyncGenerator<Outcome> {
    const iterator = items[Symbol.asyncIterator]();
    const signal = this.options.signal;
    const onAbort = () => this.notify();
    signal?.addEventListener('abort', onAbort);
    let pending: Promise<IteratorResult<ReadItem>> | undefined;
    let inputDone = false;
    try {
      for (;;) {
        for (let slot = this.slots.head(); slot?.outcome !== undefined; slot = this.slots.head()) {
          this.slots.shift();
          yield this.emit(slot.outcome);
        }
        if (this.fatal !== undefined) throw this.fatal;
        if (signal?.aborted) throw aborted();
        if (inputDone && this.slots.size === 0) break;
        if (!inputDone && this.slots.size < this.window) {
          pending ??= iterator.next();
          // Racing the read against completions lets finished rows leave while a slow input stalls.
          const next = await Promise.race([pending, this.wait()]);
          if (next === undefined) continue;
          pending = undefined;
          if (next.done) {
            inputDone = true;
            this.batcher.closeAll();
          } else this.admit(next.value);
          continue;
        }
        if (!inputDone) this.flushHead();
        await this.wait();
      }
      this.checkBalance();
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.controller.abort();
      this.batcher.dispose();
      if (!inputDone) void Promise.resolve(iterator.return?.()).catch(() => {});
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

  private admit(item: ReadItem): void {
    const c = this.counters;
    c.rowsRead++;
    const slot = this.slots.push(item);
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
    slot.results = new Array(plan.items.length);
    slot.pending = plan.items.length + 1;
    for (let i = 0; i < plan.items.length; i++) this.request(slot, i, plan.items[i], plan.keys[i] as string);
    this.deliver(slot, -1, undefined);
  }

  /** Finds an item's answer: remembered, in flight, local, or (new) queued for a request. */
  private request(slot: Slot, position: number, item: unknown, key: string): void {
    const c = this.counters;
    const known = this.cache.get(key);
    if (known !== undefined) {
      c.dedupHits++;
      this.deliver(slot, position, known);
      return;
    }
    const flying = this.inflight.get(key);
    if (flying !== undefined) {
      c.dedupHits++;
      flying.waiters.push(slot, position);
      slot.flights.push(flying);
      return;
    }
    const local = this.local(item);
    if (local !== undefined) {
      this.deliver(slot, position, local);
      return;
    }
    let placement: ReturnType<Batcher<Flight>['place']>;
    try {
      placement = this.batcher.place(item);
    } catch (error) {
      this.deliver(slot, position, failed(internal(`Batching the item failed: ${String(error)}`)));
      return;
    }
    c.uniqueItems++;
    const flight: Flight = { key, item, waiters: [slot, position], batch: undefined };
    this.inflight.set(key, flight);
    slot.flights.push(flight);
    this.batcher.add(flight, placement);
  }

  private local(item: unknown): ItemResult<unknown> | undefined {
    if (this.job.resolveLocally === undefined) return undefined;
    let value: unknown;
    try {
      value = this.job.resolveLocally(item);
    } catch {
      return undefined;
    }
    if (value === undefined) return undefined;
    this.counters.localHits++;
    return { ok: true, value };
  }

  /** Records one answer; the row renders once all its items are answered. Position -1 is the planning guard. */
  private deliver(slot: Slot, position: number, result: ItemResult<unknown> | undefined): void {
    if (position >= 0) (slot.results as ItemResult<unknown>[])[position] = result as ItemResult<unknown>;
    if (--slot.pending > 0) return;
    slot.outcome = renderRow(this.job, slot.item as Extract<ReadItem, { kind: 'row' }>, slot.results ?? []);
    slot.results = undefined;
    slot.flights = [];
    if (slot === this.slots.head()) this.notify();
  }

  private settle(flight: Flight, result: ItemResult<unknown>): void {
    this.inflight.delete(flight.key);
    if (cacheable(result)) this.cache.set(flight.key, result);
    const w = flight.waiters;
    for (let i = 0; i < w.length; i += 2) this.deliver(w[i] as Slot, w[i + 1] as number, result);
  }

  private dispatch(): void {
    while (this.running < this.concurrency && this.ready.length > 0 && !this.controller.signal.aborted) {
      const batch = (this.ready.shift() as Flight[]).filter((flight) => {
        const local = this.local(flight.item);
        if (local !== undefined) this.settle(flight, local);
        return local === undefined;
      });
      if (batch.length > 0) this.send(batch);
    }
  }

  private send(batch: Flight[]): void {
    const c = this.counters;
    this.running++;
    c.requestsSent++;
    c.itemsSent += batch.length;
    c.maxRequestsInFlight = Math.max(c.maxRequestsInFlight, this.running);
    let answer: Promise<ReadonlyMap<string, ItemResult<unknown>>>;
    try {
      answer = this.job.execute(
        batch.map((f) => f.item),
        this.controller.signal,
      );
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (results) => this.answered(batch, results),
      (error: unknown) => this.failed(batch, error),
    );
  }

  private answered(batch: Flight[], results: ReadonlyMap<string, ItemResult<unknown>>): void {
    this.running--;
    if (this.controller.signal.aborted) return;
    const usable = results !== null && typeof results?.get === 'function';
    for (const flight of batch) {
      const result = usable ? results.get(flight.key) : undefined;
      this.settle(
        flight,
        result ?? failed(internal(`The ${this.job.kind} job gave no answer for an item`, 'response')),
      );
    }
    this.dispatch();
    this.notify();
  }

  private failed(batch: Flight[], error: unknown): void {
    this.running--;
    if (this.controller.signal.aborted) return;
    if (isGeobatchError(error) && (isFatalCode(error.code) || isUsageCode(error.code))) {
      this.fatal ??= error;
      this.controller.abort();
      this.notify();
      return;
    }
    this.counters.requestsFailed++;
    const failure = failed(failureFromError(error));
    for (const flight of batch) this.settle(flight, failure);
    this.dispatch();
    this.notify();
  }

  /** The window is full: the head row must not wait for a batch that only time would send. */
  private flushHead(): void {
    for (const flight of this.slots.head()?.flights ?? []) {
      if (flight.batch !== undefined) this.batcher.close(flight.batch);
    }
  }

  private wait(): Promise<undefined> {
    this.woken ??= new Promise<void>((resolve) => {
      this.wakeUp = resolve;
    });
    return this.woken.then(() => undefined);
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
      throw new GeobatchError(
        'INVARIANT_BROKEN',
        `Row accounting does not balance: ${c.rowsRead} read, ${c.rowsEmitted} emitted (${c.rowsOk} ok, ${c.rowsFailed} failed)`,
      );
    }
  }
}

function aborted(): GeobatchError {
  return new GeobatchError('ABORTED', 'The run was interrupted', {
    hint: 'Run again with --resume to continue from the checkpoint.',
  });
}

/**
 * The request side of the engine: dedup (requests in flight, then remembered answers), local
 * answers, the persistent answer cache, batching, and at most `concurrency` requests running.
 * Answers go back to the rows waiting on them through `deliver`.
 *
 * A request that fails on transient grounds (its attempts ran out on 5xx/429, timeouts or
 * resets) gets one second pass before its items fail: it goes back in the queue after
 * SECOND_PASS_DELAY_MS, once. A 500-point elevation chunk that met 503, 500, a hang, 500 and two
 * resets within 34 s otherwise failed 500 rows at once, though the next chunk went through.
 * While it waits, its items stay in flight (identical items join it rather than being sent
 * again) and its rows stay in the reorder window: rows behind them go on until the window is full,
 * then reading waits. So the window is held at most the delay plus one more round of attempts,
 * never for good, and memory stays bounded by the window: nothing is kept beyond the rows it
 * already holds.
 */
import { setMaxListeners } from 'node:events';
import { type GeobatchError, isFatalCode, isGeobatchError, isUsageCode } from '../errors.js';
import { countingHttpAttempts, type HttpAttempts } from '../http-attempts.js';
import type { RetrySleeps } from '../retry-sleeps.js';
import { Batcher } from './_batcher.js';
import { estimateBytes } from './_bytes.js';
import { cacheable, failed, failureFromError, internal } from './_failure.js';
import { Lookups } from './_lookups.js';
import { Lru } from './_lru.js';
import { type Flight, NO_FLIGHTS, type Slot } from './_slots.js';
import type { Owned, SharedAnswers, Sharer } from './_step-sharing.js';
import { StringTable } from './_string-table.js';
import type { AnswerCache } from './answers.js';
import { answeredFromCache, type EngineCounters, type RequestTrace, requestTraces } from './counters.js';
import type { AnyJob, ItemFailure, ItemResult } from './job.js';

/**
 * The pause before a second pass. Short: the rows behind wait for it once the window is full, so
 * it adds to the run's time (5 s did, for each chunk that needed one: 50,000 points with 50%
 * random faults took 23-30 s instead of 17-19), while its request has already spent its retries'
 * backoff and the faults that exhaust a request are mostly bad luck, not an outage that a few more
 * seconds would outlast. A second still lets a burst of faults (a backend restarting) pass.
 */
export const SECOND_PASS_DELAY_MS = 1000;

/**
 * A second pass's failure counted over both passes: its attempts, and the message's "after N
 * attempts" (a row that met 503 twelve times said "after 6 attempts").
 */
function bothPasses(failure: ItemFailure, first: number): ItemFailure {
  if (first === 0 || failure.attempts === undefined) return failure;
  const attempts = failure.attempts + first;
  const said = `after ${failure.attempts} attempt${failure.attempts === 1 ? '' : 's'}`;
  const message = failure.message.replace(said, `after ${attempts} attempts (two passes)`);
  return { ...failure, attempts, message };
}

/** Failures worth another pass later: the service or the network, not the request, was at fault. */
const PASSING: ReadonlySet<string> = new Set(['RETRIES_EXHAUSTED', 'TIMEOUT', 'NETWORK']);

export interface RequestsHooks {
  /** An answer for the item at `position` of the row in `slot`. */
  deliver(slot: Slot, position: number, result: ItemResult<unknown>): void;
  /** A request finished (answered, failed or stopped the run). */
  settled(): void;
  /** A request failed in a way no other request can avoid: the run must stop. */
  fatal(error: GeobatchError): void;
}

/**
 * Notes that the row waits on a flight. Most rows wait on one: an array of exactly one, not an
 * empty array grown by push (which reserves room for 17).
 */
function waitOn(slot: Slot, flight: Flight): void {
  if (slot.flights === NO_FLIGHTS) slot.flights = [flight];
  else slot.flights.push(flight);
}

/** A remembered answer's size: its key, its value, and the Map entry and result object around them. */
function entryBytes(key: string, result: ItemResult<unknown>): number {
  return 64 + key.length + estimateBytes(result.ok ? result.value : result.failure);
}

export class Requests implements Sharer {
  private readonly inflight = new StringTable<Flight>();
  private readonly cache: Lru<string, ItemResult<unknown>>;
  private readonly batcher: Batcher<Flight>;
  /** Batches cut and waiting for a request slot, with their group. */
  private readonly ready: ({ group: string; members: Flight[] } | undefined)[] = [];
  /**
   * Non-serial jobs take from the front: the index of the first batch not yet taken, so that
   * taking one costs O(1) (a splice at 0 moved the whole queue, up to a window of batches, each time).
   */
  private readyHead = 0;
  /** Serial jobs: groups with a request in flight. */
  private readonly busy = new Set<string>();
  private readonly serial: boolean;
  private readonly controller = new AbortController();
  private running = 0;
  private readonly concurrency: number;
  private readonly sleeps: RetrySleeps | undefined;
  private readonly attempts: HttpAttempts | undefined;
  /** Set by the first request sent: an engine that never sends never listens (nor leaks). */
  private unlisten: (() => void) | undefined;
  private readonly answers: AnswerCache | undefined;
  /** Items being asked of the answer cache; they are registered in flight meanwhile. */
  private readonly lookups: Lookups | undefined;
  /** The input ended: batches filled from cache misses are sent at once, not after linger. */
  private ended = false;
  /**
   * Flights that had their second pass, with the attempts their first pass made (0: not told); a
   * second failure fails them, counting both passes' attempts.
   */
  private readonly passed = new WeakMap<Flight, number>();
  /** Timers of second passes waiting to start. */
  private readonly waiting = new Set<NodeJS.Timeout>();
  /** A stop waits for the requests in flight: none more is sent (hold). */
  private held = false;
  /** What this step shares with the pipeline's steps of its scope (_step-sharing.ts), if any. */
  private readonly shared: SharedAnswers | undefined;
  /** Flights waiting on another step's identical flight, with it. */
  private readonly awaiting = new Map<Flight, Owned>();
  /** Flights in a request being worked on: a hold lets go of the others' waiters. */
  private readonly sending = new Set<Flight>();

  constructor(
    private readonly job: AnyJob,
    options: {
      concurrency: number;
      /** Rows waiting for answers at most (EngineOptions.window); bounds the requests asleep. */
      window?: number;
      dedupCacheSize: number;
      dedupCacheBytes: number;
      answers?: AnswerCache | undefined;
      /** False: a partial batch leaves only when flushed (see EngineOptions.fedByStep). */
      linger: boolean;
      /** Without linger: how long a partial batch waits to fill (ProcessOptions.stepWaitMs). */
      stepWaitMs?: number;
      /** The engine waits for input: only then does a partial batch's linger run out (_batcher.ts). */
      awaitingInput?: () => boolean;
      /** The client's requests asleep before a retry (EngineOptions.retrySleeps). */
      retrySleeps?: RetrySleeps | undefined;
      /** Counts the HTTP attempts of this engine's requests (ProcessOptions.httpAttempts). */
      httpAttempts?: HttpAttempts | undefined;
      /** Shared with the pipeline's other steps of this step's scope (ProcessOptions.shared). */
      shared?: SharedAnswers | undefined;
    },
    private readonly counters: EngineCounters,
    private readonly hooks: RequestsHooks,
  ) {
    const { concurrency, dedupCacheSize, dedupCacheBytes } = options;
    this.concurrency = concurrency;
    this.sleeps = options.retrySleeps;
    this.attempts = options.httpAttempts;
    this.answers = options.answers;
    this.lookups =
      options.answers === undefined
        ? undefined
        : new Lookups(options.answers, {
            answered: (flights, found) => this.looked(flights, found),
            stopped: () => this.controller.signal.aborted,
          });
    this.shared = options.shared;
    const memory = () => new Lru(dedupCacheSize, dedupCacheBytes, entryBytes);
    this.cache = this.shared?.memory(memory) ?? memory();
    // Every request in flight may listen to the one signal; that is expected, not a leak. So may
    // every request asleep before a retry, which frees its slot: as many as the window's rows
    // (a service resetting 97% of connections drew Node's leak warning at 65 with 16 in flight).
    setMaxListeners(Math.max(10, concurrency * 4 + (options.window ?? 0)), this.controller.signal);
    this.serial = job.batching?.serial === true;
    this.batcher = new Batcher<Flight>(
      job.batching,
      (members, group) => {
        this.ready.push({ group, members });
        this.dispatch();
      },
      options.linger,
      options.awaitingInput,
      options.stepWaitMs,
    );
  }

  /** Finds an item's answer: remembered, in flight, local, or (new) queued for a request. */
  request(slot: Slot, position: number, item: unknown, key: string): void {
    const c = this.counters;
    const known = this.cache.get(key);
    if (known !== undefined) {
      c.dedupHits++;
      this.hooks.deliver(slot, position, known);
      return;
    }
    const flying = this.inflight.get(key);
    if (flying !== undefined) {
      c.dedupHits++;
      flying.waiters.push(slot, position);
      waitOn(slot, flying);
      return;
    }
    const local = this.local(item);
    if (local !== undefined) {
      this.hooks.deliver(slot, position, local);
      return;
    }
    const flight: Flight = {
      key,
      item,
      row: slot.item.ref.index,
      waiters: [slot, position],
      batch: undefined,
    };
    this.inflight.set(key, flight);
    waitOn(slot, flight);
    this.start(flight);
  }

  /** A new flight: on another step's identical one, else asked of the answer cache or queued. */
  private start(flight: Flight): void {
    const other = this.shared?.inFlight(flight.key);
    if (other !== undefined && other.owner !== this && this.answers?.claimsItems !== true) {
      this.shared?.join(other, this, flight);
      this.awaiting.set(flight, other);
      return;
    }
    // Not in another's place: its waiters wait on that entry (a step whose lookups claim items
    // among a distributed run's chunks asks through them, beside the other step's flight).
    if (other === undefined) this.shared?.claim(this, flight);
    if (this.lookups === undefined) this.enqueue(flight);
    else this.lookups.add(flight);
  }

  /**
   * Another step's flight this one waited on settled: its answer, counted as dedup (an identical
   * item's request answered it), or none to share (a transient failure, a step that stopped), and
   * the item is asked here as a new one would be.
   */
  fromOther(flight: Flight, result: ItemResult<unknown> | undefined): void {
    if (!this.awaiting.delete(flight) || this.controller.signal.aborted) return;
    if (result !== undefined && cacheable(result)) {
      this.counters.dedupHits++;
      this.settle(flight, result, false);
    } else {
      this.start(flight);
      // Past the input's end nothing more joins a partial batch, and nothing else would send it.
      if (this.ended && (this.lookups?.running ?? 0) === 0) this.batcher.closeAll();
    }
    this.hooks.settled();
  }

  flushOwn(flight: Flight): void {
    if (flight.batch !== undefined) this.batcher.close(flight.batch);
  }

  /** Sends now the other step's partial batch this flight waits on. */
  private flushOther(flight: Flight): void {
    const owned = this.awaiting.get(flight);
    owned?.owner.flushOwn(owned.flight);
  }

  /** Into a batch; a job whose batching throws fails the item (and its waiters) as INTERNAL. */
  private enqueue(flight: Flight): void {
    let placement: ReturnType<Batcher<Flight>['place']>;
    try {
      placement = this.batcher.place(flight.item);
    } catch (error) {
      this.settle(flight, failed(internal(`Batching the item failed: ${String(error)}`)));
      return;
    }
    this.batcher.add(flight, placement);
  }

  /** The answer cache's reply: hits settle their rows, misses go into batches. */
  private looked(flights: readonly Flight[], found: ReadonlyMap<string, ItemResult<unknown>>): void {
    for (const flight of flights) {
      const hit = found.get(flight.key);
      if (hit === undefined) this.enqueue(flight);
      else this.settle(flight, hit, false);
    }
    if (this.ended && this.lookups?.running === 0) this.batcher.closeAll();
    this.hooks.settled();
  }

  /**
   * As many requests wait for a slot as there are slots: rows read now would only wait in memory.
   * Never for serial jobs: their queue holds the batches of groups that have a request in flight,
   * which more rows of other groups need not wait for.
   */
  get backlogged(): boolean {
    return !this.serial && this.ready.length - this.readyHead >= this.concurrency;
  }

  /** Sends now the partial batches holding these flights (the head row must not wait for linger). */
  flush(flights: readonly Flight[]): void {
    for (const flight of flights) {
      if (flight.batch !== undefined) this.batcher.close(flight.batch);
      else this.flushOther(flight);
    }
  }

  /** The input ended: nothing more will join a partial batch. */
  flushAll(): void {
    this.ended = true;
    this.lookups?.flush();
    // Misses of lookups still running join the partial batches first: one request, not two.
    if ((this.lookups?.running ?? 0) === 0) this.batcher.closeAll();
    // Nor does this step's input wait any more for the other steps' batches it waits on.
    for (const flight of this.awaiting.keys()) this.flushOther(flight);
  }

  /**
   * Sends nothing more: a stop waits for the requests in flight (ProcessOptions.drain). Second
   * passes waiting to start are dropped; their rows stay unfinished, as every row not yet sent.
   */
  hold(): void {
    this.held = true;
    for (const timer of this.waiting) clearTimeout(timer);
    this.waiting.clear();
    // The other steps' items waiting on those it will not send now ask on their own.
    this.shared?.letGo(this, (flight) => this.sending.has(flight));
  }

  /**
   * Requests handed to the job and not settled (asleep before a retry too), cache lookups, and
   * items waiting on another step's request.
   */
  get inFlight(): number {
    return this.running + (this.lookups?.running ?? 0) + this.awaiting.size;
  }

  /** Aborts requests in flight and drops unsent batches and waiting second passes. */
  stop(): void {
    this.unlisten?.();
    this.controller.abort();
    this.batcher.dispose();
    for (const timer of this.waiting) clearTimeout(timer);
    this.waiting.clear();
    this.awaiting.clear();
    this.shared?.letGo(this);
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

  /** `remember: false` for answers from the answer cache: asking it again is cheap, memory is not. */
  private settle(flight: Flight, result: ItemResult<unknown>, remember = true): void {
    this.inflight.delete(flight.key);
    if (remember && cacheable(result)) this.cache.set(flight.key, result);
    const w = flight.waiters;
    for (let i = 0; i < w.length; i += 2) this.hooks.deliver(w[i] as Slot, w[i + 1] as number, result);
    // The other steps waiting on it take the answer; fromOther leaves a failure they should not.
    this.shared?.settled(flight, result);
  }

  /**
   * Fewer than `concurrency` requests are being worked on by the client: those asleep before a
   * retry do not count (as many as this engine has running at most: a pipeline's steps share one
   * client, and another step's sleepers must not let this one send without bound).
   */
  private hasSlot(): boolean {
    return this.working() < this.concurrency;
  }

  /** Requests of this engine's the client is working on: running, less those asleep (hasSlot). */
  private working(): number {
    return this.running - (this.sleeps === undefined ? 0 : Math.min(this.sleeps.sleeping, this.running));
  }

  private dispatch(): void {
    if (this.held) return;
    if (!this.serial) {
      this.dispatchInOrder();
      return;
    }
    let i = 0;
    while (this.hasSlot() && i < this.ready.length && !this.controller.signal.aborted) {
      const entry = this.ready[i] as { group: string; members: Flight[] };
      if (this.busy.has(entry.group)) {
        i++;
        continue;
      }
      const batch = this.repack(i, entry.group);
      if (batch.length > 0) this.send(batch, entry.group);
    }
  }

  /** Batches leave in the order they were cut, as request slots free up. */
  private dispatchInOrder(): void {
    const ready = this.ready;
    while (this.hasSlot() && this.readyHead < ready.length && !this.controller.signal.aborted) {
      const entry = ready[this.readyHead] as { group: string; members: Flight[] };
      ready[this.readyHead++] = undefined;
      const unanswered = this.unansweredOf(entry.members);
      if (unanswered.length > 0) this.send(unanswered, entry.group);
    }
    if (this.readyHead === ready.length) {
      ready.length = 0;
      this.readyHead = 0;
    } else if (this.readyHead >= 1024 && this.readyHead * 2 >= ready.length) {
      ready.splice(0, this.readyHead);
      this.readyHead = 0;
    }
  }

  /** Asked again just before sending: an earlier answer may now cover the item. */
  private unansweredOf(members: Flight[]): Flight[] {
    // Most jobs answer nothing locally: the batch goes as it is, without a copy.
    if (this.job.resolveLocally === undefined) return members;
    return members.filter((flight) => {
      const local = this.local(flight.item);
      if (local !== undefined) this.settle(flight, local);
      return local === undefined;
    });
  }

  /**
   * Serial groups: every queued batch of the group from position `at` on, re-asked locally and
   * repacked; one request's worth leaves, the rest stays queued at `at` as one entry.
   */
  private repack(at: number, group: string): Flight[] {
    const queued: Flight[] = [];
    for (let j = at; j < this.ready.length; ) {
      const entry = this.ready[j] as { group: string; members: Flight[] };
      if (entry.group !== group) {
        j++;
        continue;
      }
      queued.push(...entry.members);
      this.ready.splice(j, 1);
    }
    const { batch, rest } = this.batcher.take(this.unansweredOf(queued));
    if (rest.length > 0) this.ready.splice(at, 0, { group, members: rest });
    return batch;
  }

  private send(batch: Flight[], group: string): void {
    const c = this.counters;
    this.running++;
    if (this.serial) this.busy.add(group);
    // Those asleep before a retry are not in flight; this one is, whatever another step's sleep.
    c.maxRequestsInFlight = Math.max(c.maxRequestsInFlight, this.working(), 1);
    // A request falling asleep frees its slot: another is sent, and more rows may be read.
    this.unlisten ??= this.sleeps?.listen(() => {
      if (this.controller.signal.aborted) return;
      this.dispatch();
      this.hooks.settled();
    });
    const items = new Array<unknown>(batch.length);
    const keys = new Array<string>(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const flight = batch[i] as Flight;
      items[i] = flight.item;
      keys[i] = flight.key;
      if (this.shared !== undefined) this.sending.add(flight);
    }
    let answer: Promise<ReadonlyMap<string, ItemResult<unknown>>>;
    const trace: RequestTrace = { items: batch.length, kept: 0, asked: 0 };
    if (this.job.tracesRequests === true) trace.rows = batch.map((flight) => flight.row);
    const send = () =>
      this.job.tracesRequests === true
        ? requestTraces.run(trace, () => this.job.execute(items, this.controller.signal, keys))
        : this.job.execute(items, this.controller.signal, keys);
    try {
      answer = this.attempts === undefined ? send() : countingHttpAttempts(this.attempts, send);
    } catch (error) {
      answer = Promise.reject(error);
    }
    answer.then(
      (results) => {
        this.busy.delete(group);
        this.doneSending(batch);
        this.answered(batch, results, trace);
      },
      (error: unknown) => {
        this.busy.delete(group);
        this.doneSending(batch);
        this.failed(batch, group, error, trace);
      },
    );
  }

  private answered(
    batch: Flight[],
    results: ReadonlyMap<string, ItemResult<unknown>>,
    trace: RequestTrace,
  ): void {
    this.running--;
    if (this.controller.signal.aborted) return;
    this.sent(batch, trace);
    // The freed slot sends its next request before this answer's rows are rendered, so rendering
    // never stands between an answer and the next request (it measured within noise, but costs
    // nothing).
    this.dispatch();
    const usable = results !== null && typeof results?.get === 'function';
    for (const flight of batch) {
      const result = usable ? results.get(flight.key) : undefined;
      if (result !== undefined) this.answers?.remember(flight.key, flight.item, result);
      this.settle(
        flight,
        result ?? failed(internal(`The ${this.job.kind} job gave no answer for an item`, 'response')),
      );
    }
    this.hooks.settled();
  }

  private failed(batch: Flight[], group: string, error: unknown, trace: RequestTrace): void {
    this.running--;
    if (this.controller.signal.aborted) return;
    this.sent(batch, trace);
    // Usage codes stop the run too: a configuration problem fails every request the same way.
    if (isGeobatchError(error) && (isFatalCode(error.code) || isUsageCode(error.code))) {
      this.stop();
      this.hooks.fatal(error);
      return;
    }
    const passing = isGeobatchError(error) && PASSING.has(error.code);
    const final = passing ? batch.filter((flight) => this.passed.has(flight)) : batch;
    if (passing && !this.held)
      this.secondPass(
        batch.filter((flight) => !this.passed.has(flight)),
        group,
        isGeobatchError(error) ? (error.context.attempts ?? 0) : 0,
      );
    this.dispatch();
    if (final.length === 0) return;
    this.counters.requestsFailed++;
    const failure = failureFromError(error);
    // Serial groups repack a second pass's flights with fresh ones: each flight its own count.
    const byFirst = new Map<number, ItemResult<never>>();
    for (const flight of final) {
      const first = this.passed.get(flight) ?? 0;
      let result = byFirst.get(first);
      if (result === undefined) {
        result = failed(bothPasses(failure, first));
        byFirst.set(first, result);
      }
      this.settle(flight, result);
    }
    this.hooks.settled();
  }

  /**
   * Counted when the request settles, not when it is handed to the job: a request that a stop
   * abandoned (waiting for a rate slot, or failed fast after another request's fatal error) never
   * reached the service, and the summary's `sent` must not exceed its HTTP requests.
   */
  /** A request came back: its flights are no longer on the wire (kept only when steps share). */
  private doneSending(batch: readonly Flight[]): void {
    if (this.shared === undefined) return;
    for (const flight of batch) this.sending.delete(flight);
  }

  private sent(batch: readonly Flight[], trace: RequestTrace): void {
    trace.settled?.(trace);
    // Serial groups repack a second pass's flights with fresh ones: count each flight.
    let again = 0;
    for (const flight of batch) if (this.passed.has(flight)) again++;
    // Answered whole by the cache around the client: no request went, its items are the cache's hits.
    if (answeredFromCache(trace)) return;
    if (trace.local !== undefined && trace.asked === 0 && trace.kept === 0) {
      if (trace.local === 'saved') this.counters.localHits += batch.length;
      return;
    }
    this.counters.requestsSent++;
    this.counters.itemsSent += batch.length;
    // The answer cache's misses: items it did not answer that a request took to the service.
    this.answers?.asked?.(again === 0 ? batch : batch.filter((flight) => !this.passed.has(flight)));
    // Unique once sent, not once queued: a queued item may yet be answered by areas learnt
    // meanwhile or by the cache around the client (a fully cached boundaries run gave 336 unique
    // items beside 401 local answers and 200 hits, for 601 items), or never be sent at all (read
    // ahead of a stop: a run stopped at row 202 gave 302).
    this.counters.uniqueItems += batch.length - again;
    this.counters.itemsResent += again;
    if (again === batch.length) this.counters.requestsResent++;
  }

  /** Queues `again` (flights of `group` on their first failure) once more, after the delay. */
  private secondPass(again: Flight[], group: string, attempts: number): void {
    if (again.length === 0) return;
    for (const flight of again) this.passed.set(flight, attempts);
    const timer = setTimeout(() => {
      this.waiting.delete(timer);
      if (this.controller.signal.aborted) return;
      this.ready.push({ group, members: again });
      this.dispatch();
    }, SECOND_PASS_DELAY_MS);
    this.waiting.add(timer);
  }
}

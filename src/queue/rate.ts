/**
 * One rate limit for all the workers of a distributed run: the client's SharedGate, kept in
 * PostgreSQL rows (see _rate-sql.ts for the schedule itself).
 *
 * Per process, the takes for one interface queue in a lane; one UPDATE at a time reserves slots
 * for up to a tenth of a second's worth of the queued ones, and each waiter sleeps until its own
 * slot. So 150/s costs a few round trips per second per worker, not 150, and a request is never
 * sent before its slot: a slot is PostgreSQL's time, and its local due time is the moment the
 * answer arrived plus the slot's distance from the server's "now" (late by at most a round trip,
 * never early, whatever the machines' clocks say).
 *
 * While every scope of a lane is unlimited, takes pass at once and are only counted; the count
 * goes to the row every FLUSH_MS, which is also when the lane learns that another worker's 429
 * gave the scope a rate. The worker that met the 429 learns it at once.
 *
 * AIMD across processes: a 429 cuts the interface's row to `decrease` times its rate (for an
 * unlimited scope: the grants per second the row measured), at most once per round (a 429 for a
 * request sent before the last cut says nothing about the new rate), never below `minRate`; the
 * rate then grows back by `increase` times the configured rate per second (unlimited: that share
 * of the rate before the first cut, at least `minRate`/s, with no ceiling).
 */
import type pg from 'pg';
import { maskPassword, safeUrl } from '../cache/_pg-url.js';
import type { InterfaceName, SharedGate } from '../client/index.js';
import { INTERFACE_NAMES } from '../client/index.js';
import { IoError, RunError } from '../errors.js';
import { registerSecret, scrub } from '../secrets.js';
import type { TakeRow } from './_rate-sql.js';
import { ensureRateTable, rateStatements } from './_rate-sql.js';

export { ensureRateTable } from './_rate-sql.js';

export interface SharedLimits {
  /** Requests/s of the whole run; null = unlimited (until a 429). */
  readonly global: number | null;
  readonly interfaces: Partial<Record<InterfaceName, number | null>>;
}

export interface SharedAimd {
  /** Factor of a cut. @default 0.5 */
  readonly decrease?: number;
  /** Share of the configured rate (unlimited: of the rate before the cut) added back per second. @default 0.05 */
  readonly increase?: number;
  /** The rate never falls below this, requests/s. @default 1 */
  readonly minRate?: number;
}

export interface SharedGateOptions {
  readonly pool: pg.Pool;
  /** The schema of the queue's tables; created when missing. */
  readonly schema: string;
  /** The run id: the rows of one run are shared by its processes and by nobody else. */
  readonly run: string;
  /** The configured rates. The first process of a run sets them; later ones join what is there. */
  readonly limits: SharedLimits;
  readonly aimd?: SharedAimd;
  /** The local clock, epoch ms. @default Date.now */
  readonly now?: () => number;
  /** A statement that takes longer means the database is gone. @default 10000 */
  readonly timeoutMs?: number;
  /** The database as messages name it. @default from the pool's connection settings */
  readonly location?: string;
}

export interface OpenSharedGate extends SharedGate {
  /** Rejects waiting takes and waits for the statements in flight; the pool stays open. */
  close(): Promise<void>;
}

/**
 * Slots that may start at once after an idle spell, as a share of the rate (at least 1): 1.5 at
 * 150/s, so that no second holds more than rate + 1% by the schedule, which leaves the rest of a
 * 5% margin to timer lateness and network jitter. A larger burst would buy nothing: slots are
 * reserved at fixed times, so a late timer never loses one, and the burst only shortens the first
 * waits after a pause.
 */
const BURST_SHARE = 0.01;
/** Slots one UPDATE reserves: up to this many seconds of the rate (between 1 and MAX_BATCH). */
const BATCH_SECONDS = 0.1;
const MAX_BATCH = 64;
/** How often an unlimited lane counts its grants into the row and looks for a rate. */
const FLUSH_MS = 200;
/** A spare slot (its waiter gave up) this late is dropped: sending on it now would bunch. */
const SPARE_GRACE_MS = 10;
/**
 * A lane whose slots reach into the future reserves its next batch this long (plus two round
 * trips) before the last of them: takes queue up meanwhile and go in one statement, rather than
 * one statement per take, and the next slots are still reserved before the schedule runs dry.
 */
const LEAD_MS = 20;
/** Clock samples kept; the largest offset is the one least inflated by latency. */
const OFFSET_SAMPLES = 16;

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  due: number;
  done: boolean;
}

interface Lane {
  readonly name: InterfaceName;
  readonly scopes: readonly string[];
  queue: Waiter[];
  readonly held: Set<Waiter>;
  spare: number[];
  busy: boolean;
  /** Every scope unlimited: takes pass and are counted. */
  free: boolean;
  unsent: number;
  flushTimer: ReturnType<typeof setTimeout> | undefined;
  flushedAt: number;
  /** The lowest known rate of its scopes, for the batch size. */
  rate: number | null;
  /** The latest slot handed out: the next reservation waits until shortly before it. */
  lastDue: number;
  pumpTimer: ReturnType<typeof setTimeout> | undefined;
}

/** Joins (or starts) the run's shared rate. Throws QUEUE_UNUSABLE when the database cannot be used. */
export async function openSharedGate(options: SharedGateOptions): Promise<OpenSharedGate> {
  const location = options.location ?? poolLocation(options.pool);
  const sql = rateStatements(options.schema);
  const increase = options.aimd?.increase ?? 0.05;
  try {
    const client = await options.pool.connect();
    try {
      await ensureRateTable(client, options.schema);
      const scopes = ['global', ...INTERFACE_NAMES];
      const ceilings = scopes.map((s) =>
        s === 'global' ? options.limits.global : (options.limits.interfaces[s as InterfaceName] ?? null),
      );
      await client.query(sql.join, [options.run, scopes, ceilings, increase]);
    } finally {
      client.release();
    }
  } catch (error) {
    throw queueUnusable(location, error);
  }
  const gate = new PostgresGate(options, location);
  await gate.refresh();
  return gate;
}

/** Deletes a finished run's rows. */
export async function dropRates(pool: pg.Pool, schema: string, run: string): Promise<void> {
  await pool.query(rateStatements(schema).drop, [run]);
}

/** The one error of a gate whose database is gone; the location has no password. */
export function queueUnusable(location: string, error: unknown): IoError {
  if (error instanceof IoError && error.code === 'QUEUE_UNUSABLE') return error;
  const reason = scrub(error instanceof Error ? error.message || String(error) : String(error));
  return new IoError(
    'QUEUE_UNUSABLE',
    `The queue database ${location} cannot be used for the run's shared rate limit: ${reason}`,
    {
      file: location,
      hint: 'check that this PostgreSQL is up and reachable from this machine, then start the run again with --resume (and the workers again); done chunks are kept',
      cause: error,
    },
  );
}

class PostgresGate implements OpenSharedGate {
  readonly #pool: pg.Pool;
  readonly #run: string;
  readonly #sql: ReturnType<typeof rateStatements>;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #location: string;
  readonly #decrease: number;
  readonly #minRate: number;
  readonly #increase: number;
  readonly #lanes = new Map<InterfaceName, Lane>();
  /** Last cut seen per scope, server ms: a 429 for a request sent before it is the old round. */
  readonly #cutAt = new Map<string, number>();
  readonly #cutting = new Set<string>();
  readonly #offsets: number[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Round trip of a statement, smoothed, ms. */
  #rtt = 0;
  /** Set when a statement failed; free takes (which send none) reject with it until one succeeds. */
  #failure: IoError | undefined;
  #closed = false;

  constructor(options: SharedGateOptions, location: string) {
    this.#pool = options.pool;
    this.#run = options.run;
    this.#sql = rateStatements(options.schema);
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#location = location;
    this.#decrease = options.aimd?.decrease ?? 0.5;
    this.#minRate = options.aimd?.minRate ?? 1;
    this.#increase = options.aimd?.increase ?? 0.05;
    for (const name of INTERFACE_NAMES) {
      this.#lanes.set(name, {
        name,
        scopes: ['global', name],
        queue: [],
        held: new Set(),
        spare: [],
        busy: false,
        free: false,
        unsent: 0,
        flushTimer: undefined,
        flushedAt: 0,
        rate: null,
        lastDue: 0,
        pumpTimer: undefined,
      });
    }
  }

  /** Reads every scope once (reserving nothing), so that lanes know whether they are free. */
  async refresh(): Promise<void> {
    const { rows } = await this.#take(['global', ...INTERFACE_NAMES], 0, 0);
    for (const lane of this.#lanes.values()) this.#learn(lane, rows);
  }

  take(name: InterfaceName, signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    const lane = this.#lanes.get(name) as Lane;
    if (lane.free) {
      if (this.#failure !== undefined) return Promise.reject(this.#failure);
      lane.unsent++;
      if (lane.flushTimer === undefined) {
        // After a quiet spell the lane may not know of a cut made meanwhile: it asks at once.
        const wait = lane.flushedAt + FLUSH_MS - this.#now();
        if (wait <= 0) void this.#flush(lane);
        else lane.flushTimer = setTimeout(() => void this.#flush(lane), wait);
      }
      return Promise.resolve();
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
        waiter.onAbort = () => this.#abandon(lane, waiter, signal.reason);
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      const spare = this.#spare(lane);
      if (spare !== undefined) this.#hold(lane, waiter, spare);
      else {
        lane.queue.push(waiter);
        this.#pump(lane);
      }
    });
  }

  throttled(name: InterfaceName, sentAt: number): void {
    if (this.#closed || this.#cutting.has(name)) return;
    const sentAtServer = sentAt + this.#offset();
    if (sentAtServer <= (this.#cutAt.get(name) ?? 0)) return;
    this.#cutting.add(name);
    const lane = this.#lanes.get(name) as Lane;
    const values = [this.#run, name, sentAtServer, this.#decrease, this.#minRate, this.#increase];
    void this.#query<{ rate: number; cut_at: number }>(this.#sql.cut, values)
      .then(({ rows }) => {
        const row = rows[0];
        // Another worker cut first: this lane learns the rate it left right away.
        if (row === undefined) {
          void this.#flush(lane);
          return;
        }
        this.#cutAt.set(name, row.cut_at);
        lane.free = false;
        lane.rate = Math.min(lane.rate ?? Number.POSITIVE_INFINITY, row.rate);
      })
      .catch(() => {
        // Recorded in #failure by #query; the next take reports it.
      })
      .finally(() => this.#cutting.delete(name));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const error = closedError();
    for (const lane of this.#lanes.values()) {
      clearTimeout(lane.flushTimer);
      clearTimeout(lane.pumpTimer);
      for (const waiter of [...lane.queue, ...lane.held]) this.#settle(waiter, error);
      lane.queue = [];
      lane.held.clear();
    }
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Reserves slots for the head of the lane's queue, one statement at a time per lane. */
  #pump(lane: Lane): void {
    if (lane.busy || this.#closed || lane.pumpTimer !== undefined) return;
    lane.queue = lane.queue.filter((w) => !w.done);
    if (lane.queue.length === 0) return;
    const early = lane.lastDue - LEAD_MS - 2 * this.#rtt - this.#now();
    if (early > 0 && !lane.free) {
      lane.pumpTimer = setTimeout(() => {
        lane.pumpTimer = undefined;
        this.#pump(lane);
      }, Math.ceil(early));
      return;
    }
    if (lane.free) {
      // A flush found the lane unlimited meanwhile: let the queue through.
      for (const waiter of lane.queue.splice(0)) this.#settle(waiter, undefined);
      return;
    }
    const cap =
      lane.rate === null
        ? MAX_BATCH
        : Math.min(MAX_BATCH, Math.max(1, Math.floor(lane.rate * BATCH_SECONDS)));
    const k = Math.min(lane.queue.length, cap);
    const unsent = lane.unsent;
    lane.unsent = 0;
    lane.busy = true;
    this.#take(lane.scopes, k, k + unsent).then(
      ({ rows, received }) => {
        lane.busy = false;
        this.#learn(lane, rows);
        for (const due of slotTimes(rows, k, received)) this.#offer(lane, due);
        this.#pump(lane);
      },
      (error: unknown) => {
        lane.busy = false;
        for (const waiter of lane.queue.splice(0)) this.#settle(waiter, error);
      },
    );
  }

  /** A reserved slot: to the first waiter still queued, else kept for the next take. */
  #offer(lane: Lane, due: number): void {
    while (lane.queue.length > 0) {
      const waiter = lane.queue.shift() as Waiter;
      if (!waiter.done) {
        this.#hold(lane, waiter, due);
        return;
      }
    }
    lane.spare.push(due);
    lane.spare.sort((a, b) => a - b);
  }

  #spare(lane: Lane): number | undefined {
    const oldest = this.#now() - SPARE_GRACE_MS;
    while (lane.spare.length > 0 && (lane.spare[0] as number) < oldest) lane.spare.shift();
    return lane.spare.shift();
  }

  /** The waiter sleeps until `due`; timers may fire a little early, so it checks and sleeps again. */
  #hold(lane: Lane, waiter: Waiter, due: number): void {
    waiter.due = due;
    lane.lastDue = Math.max(lane.lastDue, due);
    lane.held.add(waiter);
    const wake = (): void => {
      const left = waiter.due - this.#now();
      if (left > 0) {
        waiter.timer = setTimeout(wake, Math.ceil(left));
        return;
      }
      waiter.timer = undefined;
      lane.held.delete(waiter);
      this.#settle(waiter, undefined);
    };
    wake();
  }

  /** An aborted take: its slot, when it had one, goes to the next waiter. */
  #abandon(lane: Lane, waiter: Waiter, reason: unknown): void {
    if (waiter.done) return;
    if (lane.held.delete(waiter)) {
      clearTimeout(waiter.timer);
      this.#offer(lane, waiter.due);
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

  /** Counts an unlimited lane's grants into its rows, and learns whether it still is unlimited. */
  async #flush(lane: Lane): Promise<void> {
    clearTimeout(lane.flushTimer);
    lane.flushTimer = undefined;
    if (this.#closed) return;
    const unsent = lane.unsent;
    lane.unsent = 0;
    lane.flushedAt = this.#now();
    try {
      const { rows } = await this.#take(lane.scopes, 0, unsent);
      this.#learn(lane, rows);
      this.#pump(lane);
    } catch {
      // In #failure: the next take of a free lane rejects with it.
    }
  }

  #learn(lane: Lane, rows: readonly TakeRow[]): void {
    let rate: number | null = null;
    for (const row of rows) {
      if (!lane.scopes.includes(row.scope)) continue;
      if (row.rate !== null) rate = Math.min(rate ?? Number.POSITIVE_INFINITY, row.rate);
      this.#cutAt.set(row.scope, Math.max(this.#cutAt.get(row.scope) ?? 0, row.cut_at));
    }
    lane.rate = rate;
    lane.free = rate === null;
  }

  async #take(scopes: readonly string[], slots: number, count: number) {
    const sent = this.#now();
    const result = await this.#query<TakeRow>(this.#sql.take, [this.#run, scopes, slots, count, BURST_SHARE]);
    const received = this.#now();
    this.#rtt = this.#rtt === 0 ? received - sent : 0.8 * this.#rtt + 0.2 * (received - sent);
    const first = result.rows[0];
    if (first === undefined) {
      this.#failure = queueUnusable(this.#location, new Error(`the rate rows of run ${this.#run} are gone`));
      throw this.#failure;
    }
    this.#offsets.push(first.now - received);
    if (this.#offsets.length > OFFSET_SAMPLES) this.#offsets.shift();
    return { rows: result.rows, received };
  }

  /** Server ms minus local ms, underestimated by up to the one-way latency (never over). */
  #offset(): number {
    return this.#offsets.length === 0 ? 0 : Math.max(...this.#offsets);
  }

  /** One statement under a deadline; any failure is QUEUE_UNUSABLE (and remembered). */
  async #query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
    });
    const query = this.#pool.query<R>(text, values);
    this.#inFlight.add(query);
    try {
      const result = await Promise.race([query, deadline]);
      this.#failure = undefined;
      return result;
    } catch (error) {
      this.#failure = queueUnusable(this.#location, error);
      throw this.#failure;
    } finally {
      clearTimeout(timer);
      this.#inFlight.delete(query);
      query.catch(() => {});
    }
  }
}

/**
 * Local due times of k slots reserved in every row: each row's GCRA slots (k intervals from its
 * `base`, less the burst tolerance, never before its `now`), the latest of the rows per slot,
 * moved to the local clock from the moment the answer came. The same arithmetic as the statement.
 */
export function slotTimes(rows: readonly TakeRow[], k: number, received: number): number[] {
  const due: number[] = new Array<number>(k).fill(received);
  for (const row of rows) {
    if (row.rate === null) continue;
    const interval = 1000 / row.rate;
    const tolerance = (Math.max(1, BURST_SHARE * row.rate) - 1) * interval;
    const base = row.base;
    for (let j = 0; j < k; j++) {
      const slot = Math.max(row.now, base + j * interval - tolerance);
      due[j] = Math.max(due[j] as number, received + (slot - row.now));
    }
  }
  return due;
}

function closedError(): RunError {
  return new RunError('ABORTED', 'the shared rate limit was closed');
}

/** The pool's database as `postgres://user:***@host:port/db`, its password registered as a secret. */
function poolLocation(pool: pg.Pool): string {
  const o = pool.options;
  if (typeof o.connectionString === 'string') {
    const password = safeUrl(o.connectionString)?.password;
    if (password) registerSecret(decodeURIComponent(password));
    return maskPassword(o.connectionString);
  }
  if (typeof o.password === 'string' && o.password !== '') registerSecret(o.password);
  const user = o.user === undefined ? '' : `${o.user}${o.password ? ':***' : ''}@`;
  return `postgres://${user}${o.host ?? 'localhost'}:${o.port ?? 5432}/${o.database ?? ''}`;
}

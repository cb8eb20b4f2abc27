/**
 * One rate limit for all the workers of a distributed run: the client's SharedGate, kept in
 * PostgreSQL rows, one per scope (`global` and each interface) of a run. See _rate-sql.ts for the
 * schedule (GCRA on PostgreSQL's clock) and _rate-lane.ts for how one process batches its takes.
 *
 * A take waits for a slot of its interface, then for a global slot, like the client's own
 * throttle. A scope without a rate costs no round trip: its takes pass and are counted.
 *
 * A request is never sent before its slot: a slot is PostgreSQL's time, and its local due time is
 * the moment the answer arrived plus the slot's distance from the server's "now" (late by at most
 * a round trip, never early, whatever the machines' clocks say).
 *
 * AIMD across processes: a 429 cuts the interface's row to `decrease` times its rate (for an
 * unlimited scope: the grants per second the row measured, at most the global rate), at most once
 * per round (a 429 for a request sent before the last cut says nothing about the new rate), never
 * below `minRate`; the rate then grows back by `increase` times the configured rate per second
 * (unlimited: that share of the rate before the first cut, at least `minRate`/s, with no ceiling).
 * The worker that met the 429 limits itself at once; the others when their next statement returns
 * (a limited scope: within a tenth of a second; an unlimited one: within FLUSH_MS).
 */
import type pg from 'pg';
import type { InterfaceName, SharedGate } from '../client/index.js';
import { INTERFACE_NAMES } from '../client/index.js';
import type { IoError } from '../errors.js';
import { RunError } from '../errors.js';
import { poolLocation, queueUnusable } from './_rate-errors.js';
import { Lane } from './_rate-lane.js';
import type { TakeRow } from './_rate-sql.js';
import { ensureRateTable, rateStatements } from './_rate-sql.js';

export { queueUnusable } from './_rate-errors.js';
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
  /**
   * The configured rates, for rows not there yet. Those there stay: the run's coordinator sets
   * them when it starts or resumes the run (setRates), and every worker joins what it set.
   */
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
/** Clock samples kept; the largest offset is the one least inflated by latency. */
const OFFSET_SAMPLES = 16;

const SCOPES: readonly string[] = ['global', ...INTERFACE_NAMES];
/** SharedAimd.increase's default. */
const INCREASE = 0.05;

/** Joins (or starts) the run's shared rate. Throws QUEUE_UNUSABLE when the database cannot be used. */
export async function openSharedGate(options: SharedGateOptions): Promise<OpenSharedGate> {
  const location = options.location ?? poolLocation(options.pool);
  const sql = rateStatements(options.schema);
  const increase = options.aimd?.increase ?? INCREASE;
  try {
    const client = await options.pool.connect();
    try {
      await ensureRateTable(client, options.schema);
      await client.query(sql.join, [options.run, SCOPES, ceilingsOf(options.limits), increase]);
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

/**
 * Makes `limits` the run's rates for all its workers, those at work already included (each learns
 * the new rate with its next statement). The coordinator does so whenever it starts or resumes the
 * run: the rates are those of the command line and job file that run it now, as for a run without
 * a queue, not those of whichever session first made the rows. A cut by 429s is forgotten, as a
 * single run resumed starts again at its configured rate. Throws QUEUE_UNUSABLE when the database
 * cannot be used.
 */
export async function setRates(
  pool: pg.Pool,
  schema: string,
  run: string,
  limits: SharedLimits,
  aimd: Pick<SharedAimd, 'increase'> = {},
): Promise<void> {
  try {
    await pool.query(rateStatements(schema).set, [
      run,
      SCOPES,
      ceilingsOf(limits),
      aimd.increase ?? INCREASE,
    ]);
  } catch (error) {
    throw queueUnusable(poolLocation(pool), error);
  }
}

/** Each scope's configured rate, in the order of SCOPES. */
function ceilingsOf(limits: SharedLimits): (number | null)[] {
  return SCOPES.map((s) =>
    s === 'global' ? limits.global : (limits.interfaces[s as InterfaceName] ?? null),
  );
}

/** Deletes a finished run's rows. Throws QUEUE_UNUSABLE when the database cannot be used. */
export async function dropRates(pool: pg.Pool, schema: string, run: string): Promise<void> {
  try {
    await pool.query(rateStatements(schema).drop, [run]);
  } catch (error) {
    throw queueUnusable(poolLocation(pool), error);
  }
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
  readonly #lanes = new Map<string, Lane>();
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
    this.#increase = options.aimd?.increase ?? INCREASE;
    for (const scope of SCOPES) {
      this.#lanes.set(
        scope,
        new Lane({
          now: this.#now,
          reserve: (slots, count) => this.#reserve(scope, slots, count),
          rtt: () => this.#rtt,
          failure: () => this.#failure,
        }),
      );
    }
  }

  /** Reads every scope once (reserving nothing), so that each lane knows its rate. */
  async refresh(): Promise<void> {
    const { rows } = await this.#take(SCOPES, 0, 0);
    for (const row of rows) this.#lanes.get(row.scope)?.learn(row.rate);
  }

  /**
   * The interface slot first, then the global slot once the interface's is due, like the client's
   * own throttle: a global slot reserved while the request still waited for its interface would be
   * spent at another time than the schedule gave it (and a slow interface would hold the global
   * schedule back for every other one).
   */
  take(name: InterfaceName, signal?: AbortSignal): Promise<void> {
    if (this.#closed) return Promise.reject(closedError());
    if (signal?.aborted) return Promise.reject(signal.reason);
    const global = this.#lanes.get('global') as Lane;
    const first = (this.#lanes.get(name) as Lane).take(signal);
    if (first === undefined) return global.take(signal) ?? Promise.resolve();
    return first.then(() => global.take(signal));
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
        // Another worker cut first: the lane asks for the rate that cut left, right away.
        if (row === undefined) void lane.flush();
        else {
          this.#cutAt.set(name, row.cut_at);
          lane.learn(row.rate);
        }
      })
      .catch(() => {
        // Kept in #failure by #query: the next take reports it.
      })
      .finally(() => this.#cutting.delete(name));
  }

  async close(): Promise<void> {
    this.#closed = true;
    const error = closedError();
    for (const lane of this.#lanes.values()) lane.close(error);
    await Promise.allSettled([...this.#inFlight]);
  }

  async #reserve(scope: string, slots: number, count: number) {
    const { rows, received } = await this.#take([scope], slots, count);
    const row = rows[0] as TakeRow;
    return { dues: slotTimes(row, slots, received), rate: row.rate };
  }

  async #take(scopes: readonly string[], slots: number, count: number) {
    const sent = this.#now();
    const result = await this.#query<TakeRow>(this.#sql.take, [this.#run, scopes, slots, count]);
    const received = this.#now();
    this.#rtt = this.#rtt === 0 ? received - sent : 0.8 * this.#rtt + 0.2 * (received - sent);
    const first = result.rows[0];
    if (result.rows.length < scopes.length || first === undefined) {
      this.#failure = queueUnusable(
        this.#location,
        new Error(`the rate rows of run ${this.#run} are gone (the run was dropped)`),
      );
      throw this.#failure;
    }
    for (const row of result.rows) {
      this.#cutAt.set(row.scope, Math.max(this.#cutAt.get(row.scope) ?? 0, row.cut_at));
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
 * Local due times of k slots reserved in a row: its GCRA slots (k intervals from its `base`, less
 * the burst tolerance, never before its `now`), moved to the local clock from the moment the
 * answer came: late by at most a round trip, never early, whatever the machines' clocks say.
 */
export function slotTimes(row: TakeRow, k: number, received: number): number[] {
  const due: number[] = [];
  if (row.rate === null) return new Array<number>(k).fill(received);
  const interval = 1000 / row.rate;
  const tolerance = (Math.max(1, BURST_SHARE * row.rate) - 1) * interval;
  for (let j = 0; j < k; j++) {
    const slot = Math.max(row.now, row.base + j * interval - tolerance);
    due.push(received + (slot - row.now));
  }
  return due;
}

function closedError(): RunError {
  return new RunError('ABORTED', 'the shared rate limit was closed');
}

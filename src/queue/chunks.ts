/**
 * A run's chunks in the queue database: a contiguous range of input items each, stored whole
 * (so that a worker needs nothing but the database), then the outcomes a worker made of them.
 * Items and outcomes are kept as JSON lines: a chunk is read and written in one piece.
 *
 * States: `queued` (stored, a pg-boss job sent or to be sent), `active` (a worker took it),
 * `done` (outcomes stored; the first worker to finish wins, a late duplicate changes nothing),
 * `failed` (a worker met an error that would fail it anywhere: a rejected key, a bad job).
 */
import type pg from 'pg';
import type { EngineCounters } from '../engine/counters.js';
import type { SwappedCount } from '../jobs/_swapped.js';
import { markNumberTexts, numberTextKeys } from '../number-texts.js';
import type { Fields, Outcome, ReadItem } from '../types.js';
import { addMetrics, type Metrics } from './_metrics.js';
import { SCHEMA } from './_schema.js';

export type ChunkState = 'queued' | 'active' | 'done' | 'failed';

export interface ChunkRow {
  readonly seq: number;
  readonly firstRow: number;
  readonly rows: number;
  readonly state: ChunkState;
  readonly jobId: string | null;
}

/** What a worker counted for one chunk: the engine's counters and each step's. */
export interface ChunkCounts {
  readonly counters: EngineCounters;
  readonly steps?: readonly {
    readonly counters: EngineCounters;
    readonly passedThrough: number;
    /** Absent in counts written before it was kept: then as passedThrough (a run that ended). */
    readonly passedIn?: number;
    /** The step's HTTP attempts (StepCounters.http); absent in counts written before it was kept. */
    readonly http?: number;
  }[];
  /**
   * Per step, the rows whose points were read and how many looked swapped (src/jobs/_swapped.ts),
   * for the run's warning. Absent in counts written before it was kept.
   */
  readonly points?: readonly SwappedCount[];
}

/**
 * Where an item or outcome holds a row's fields. A field kept as its number text (an id past
 * 2^53, see src/number-texts.ts) is marked on its fields object by a symbol, which JSON drops:
 * the marks travel beside the line so that a distributed run writes such a number as a plain
 * run does, not as a string.
 */
const FIELDS_AT = ['fields', 'row.fields', 'issue.fields'] as const;

function fieldsAt(value: unknown, path: string): Fields | undefined {
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (typeof at !== 'object' || at === null) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'object' && at !== null ? (at as Fields) : undefined;
}

/** One JSON line; `\t` and the marks follow when a fields object has number texts (JSON text never holds a raw tab). */
function toLine(value: unknown): string {
  const line = JSON.stringify(value);
  let marks: Record<string, readonly string[]> | undefined;
  for (const path of FIELDS_AT) {
    const fields = fieldsAt(value, path);
    const keys = fields === undefined ? undefined : numberTextKeys(fields);
    if (keys === undefined) continue;
    marks ??= {};
    marks[path] = keys;
  }
  return marks === undefined ? line : `${line}\t${JSON.stringify(marks)}`;
}

function fromLine<T>(line: string): T {
  const tab = line.indexOf('\t');
  if (tab < 0) return JSON.parse(line) as T;
  const value = JSON.parse(line.slice(0, tab)) as T;
  const marks = JSON.parse(line.slice(tab + 1)) as Record<string, string[]>;
  for (const [path, keys] of Object.entries(marks)) {
    const fields = fieldsAt(value, path);
    if (fields !== undefined) markNumberTexts(fields, keys);
  }
  return value;
}

export function toLines(values: readonly unknown[]): string {
  return values.map(toLine).join('\n');
}

export function fromLines<T>(text: string): T[] {
  return text === '' ? [] : text.split('\n').map((line) => fromLine<T>(line));
}

/**
 * What a worker must know beyond the chunk's rows to answer them as one pass would: the groups
 * (trips, tracks) named in the chunk that ended before it, with their 1-based rows.
 */
export interface ChunkContext {
  readonly endedGroups?: Readonly<Record<string, { readonly first: number; readonly last: number }>>;
}

export async function insertChunk(
  db: pg.Pool | pg.PoolClient,
  run: string,
  seq: number,
  items: readonly ReadItem[],
  context: ChunkContext = {},
): Promise<void> {
  const first = items[0]?.ref.index ?? 0;
  await db.query(
    `INSERT INTO ${SCHEMA}.chunks (run, seq, first_row, rows, items, context) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (run, seq) DO NOTHING`,
    [run, seq, first, items.length, toLines(items), JSON.stringify(context)],
  );
}

export async function setJobId(db: pg.Pool, run: string, seq: number, jobId: string): Promise<void> {
  await db.query(`UPDATE ${SCHEMA}.chunks SET job_id = $3 WHERE run = $1 AND seq = $2`, [run, seq, jobId]);
}

export async function listChunks(db: pg.Pool, run: string): Promise<ChunkRow[]> {
  const result = await db.query<{
    seq: number;
    first_row: string;
    rows: number;
    state: ChunkState;
    job_id: string | null;
  }>(`SELECT seq, first_row, rows, state, job_id FROM ${SCHEMA}.chunks WHERE run = $1 ORDER BY seq`, [run]);
  return result.rows.map((r) => ({
    seq: r.seq,
    firstRow: Number(r.first_row),
    rows: r.rows,
    state: r.state,
    jobId: r.job_id,
  }));
}

/**
 * The chunk's state, and once done its outcomes, counts and what the workers' clients and caches
 * spent on it (every attempt's, added up; `counted`: in a stopped session's totals already, see
 * settleChunks); a failed one's error.
 */
export async function readChunk(
  db: pg.Pool,
  run: string,
  seq: number,
): Promise<
  | { state: 'queued' | 'active'; jobId: string | null; error: unknown }
  | {
      state: 'done';
      outcomes: Outcome[];
      counts: ChunkCounts;
      spent: Metrics;
      counted: boolean;
      /** Attempts that ended without an entry in `spent` (a worker killed, cut off from the database). */
      unreported: number;
    }
  | { state: 'failed'; error: unknown }
  | undefined
> {
  const result = await db.query<{
    state: ChunkState;
    job_id: string | null;
    outcomes: string | null;
    counters: ChunkCounts | null;
    spent: Metrics[];
    error: unknown;
    counted: boolean;
    spent_counted: number;
    attempts: number;
  }>(
    `SELECT state, job_id, CASE WHEN state = 'done' THEN outcomes END AS outcomes, counters, spent, error,
       counted, spent_counted, attempts
     FROM ${SCHEMA}.chunks WHERE run = $1 AND seq = $2`,
    [run, seq],
  );
  const row = result.rows[0];
  if (row === undefined) return undefined;
  if (row.state === 'done')
    return {
      state: 'done',
      outcomes: fromLines<Outcome>(row.outcomes ?? ''),
      counts: row.counters ?? { counters: {} as EngineCounters },
      spent: row.spent.slice(row.spent_counted).reduce<Metrics>(addMetrics, {}),
      counted: row.counted,
      unreported: Math.max(0, row.attempts - row.spent.length),
    };
  if (row.state === 'failed') return { state: 'failed', error: row.error };
  return { state: row.state, jobId: row.job_id, error: row.error };
}

/** Takes the chunk for `worker`: its items and context, or undefined when it is done or failed already. */
/**
 * A chunk write's condition that the run is still the session the worker's job was sent for
 * (`since`: the run's created_at, to the millisecond, as the job carries it). A run started afresh
 * under the same id (a coordinator that crashed, then ran again without --resume) has new chunks
 * under the same numbers, perhaps of other rows: a late write from the dropped session's worker
 * must not land in them.
 */
function sameSession(run: string, since: string): string {
  return `EXISTS (SELECT 1 FROM ${SCHEMA}.runs r WHERE r.id = ${run} AND r.created_at >= ${since}::timestamptz
    AND r.created_at < ${since}::timestamptz + interval '1 millisecond')`;
}

export async function takeChunk(
  db: pg.Pool,
  run: string,
  seq: number,
  worker: string,
  since: string,
): Promise<{ items: ReadItem[]; context: ChunkContext } | undefined> {
  const result = await db.query<{ items: string; context: ChunkContext | null }>(
    `UPDATE ${SCHEMA}.chunks SET state = 'active', attempts = attempts + 1, worker = $3,
       started_at = clock_timestamp()
     WHERE run = $1 AND seq = $2 AND state IN ('queued', 'active') AND ${sameSession('$1', '$4')}
     RETURNING items, context`,
    [run, seq, worker, since],
  );
  const row = result.rows[0];
  return row === undefined
    ? undefined
    : { items: fromLines<ReadItem>(row.items), context: row.context ?? {} };
}

/**
 * Stores the outcomes and counts, and adds `spent` to the chunk's; false when the chunk was done
 * already (by a worker that was thought dead), which leaves it as it was, `spent` not added. One
 * statement: `spent` is either recorded or not, never in doubt, so that it can be handed on.
 */
export async function finishChunk(
  db: pg.Pool,
  chunk: { readonly run: string; readonly seq: number; readonly since: string },
  outcomes: readonly Outcome[],
  counts: ChunkCounts,
  spent: Metrics,
): Promise<boolean> {
  const { run, seq, since } = chunk;
  const result = await db.query<{ n: number }>(
    `WITH u AS (
       UPDATE ${SCHEMA}.chunks SET state = 'done', outcomes = $3, counters = $4, error = NULL,
         ended_at = clock_timestamp(), spent = spent || jsonb_build_array($5::jsonb)
       WHERE run = $1 AND seq = $2 AND state <> 'done' AND ${sameSession('$1', '$7')} RETURNING 1)
     SELECT (SELECT count(*) FROM u)::int AS n, pg_notify($6, $1) AS notified`,
    [run, seq, toLines(outcomes), JSON.stringify(counts), JSON.stringify(spent), CHUNK_CHANNEL, since],
  );
  return result.rows[0]?.n === 1;
}

/**
 * A worker met `error` on the chunk: `failed` ends it (reported to the coordinator); else queued
 * again. What the attempt spent is added to the chunk's (its requests were sent and paid for
 * whatever became of them); false when the chunk was done already and `spent` was not added.
 */
export async function chunkError(
  db: pg.Pool,
  chunk: { readonly run: string; readonly seq: number; readonly since: string },
  error: unknown,
  final: boolean,
  spent: Metrics = {},
): Promise<boolean> {
  const { run, seq, since } = chunk;
  const result = await db.query<{ n: number }>(
    `WITH u AS (
       UPDATE ${SCHEMA}.chunks SET state = $3, error = $4, ended_at = clock_timestamp(),
         spent = spent || jsonb_build_array($5::jsonb)
       WHERE run = $1 AND seq = $2 AND state <> 'done' AND ${sameSession('$1', '$7')} RETURNING 1)
     SELECT (SELECT count(*) FROM u)::int AS n,
       CASE WHEN $3 = 'failed' THEN pg_notify($6, $1) END AS notified`,
    [
      run,
      seq,
      final ? 'failed' : 'queued',
      JSON.stringify(error),
      JSON.stringify(spent),
      CHUNK_CHANNEL,
      since,
    ],
  );
  return result.rows[0]?.n === 1;
}

/**
 * The first chunk of a run that a worker failed for good (a bad key, a quota): the run stops on it,
 * whichever chunk the coordinator is waiting for, and the workers take no more of the run's chunks.
 * The workers were otherwise left to fail every chunk still queued, each on the service's answer
 * (205 answers of 402 for one quota, against 14 in one process).
 */
export async function failedChunk(
  db: pg.Pool,
  run: string,
): Promise<{ seq: number; firstRow: number; rows: number; error: unknown } | undefined> {
  const result = await db.query<{ seq: number; first_row: string; rows: number; error: unknown }>(
    `SELECT seq, first_row, rows, error FROM ${SCHEMA}.chunks WHERE run = $1 AND state = 'failed' ORDER BY seq LIMIT 1`,
    [run],
  );
  const row = result.rows[0];
  return row === undefined
    ? undefined
    : { seq: row.seq, firstRow: Number(row.first_row), rows: row.rows, error: row.error };
}

/**
 * A stopped session's account of the chunks of rows it did not write, from `fromRow` on, but for
 * those it counted (`except`): what workers spent on each and no session counted yet (the spent
 * entries past `spent_counted`, which then covers them) and a done chunk's counts (the chunk then
 * marked counted). The session that writes their rows later counts neither again; `status` still
 * adds up every entry. Without it a stop said nothing of the requests of the chunks workers had
 * done or handed back (a bad key's stop: 279 requests, "0" in the summary).
 */
export async function settleChunks(
  db: pg.Pool,
  run: string,
  fromRow: number,
  except: readonly number[],
): Promise<{ counts: ChunkCounts | null; spent: Metrics }[]> {
  const result = await db.query<{
    state: ChunkState;
    counted: boolean;
    counters: ChunkCounts | null;
    spent: Metrics[];
    spent_counted: number;
  }>(
    `WITH old AS (
       SELECT seq, state, counted, counters, spent, spent_counted FROM ${SCHEMA}.chunks
       WHERE run = $1 AND first_row >= $2 AND NOT (seq = ANY($3::int[]))
         AND ((state = 'done' AND NOT counted) OR jsonb_array_length(spent) > spent_counted)
       FOR UPDATE),
     u AS (
       UPDATE ${SCHEMA}.chunks c SET spent_counted = jsonb_array_length(old.spent),
         counted = old.counted OR old.state = 'done'
       FROM old WHERE c.run = $1 AND c.seq = old.seq)
     SELECT state, counted, counters, spent, spent_counted FROM old`,
    [run, fromRow, except],
  );
  return result.rows.map((row) => ({
    counts: row.state === 'done' && !row.counted ? row.counters : null,
    spent: row.spent.slice(row.spent_counted).reduce<Metrics>(addMetrics, {}),
  }));
}

/** The chunks of the run a worker holds now. */
export async function activeChunks(db: pg.Pool, run: string): Promise<number> {
  const result = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${SCHEMA}.chunks WHERE run = $1 AND state = 'active'`,
    [run],
  );
  return result.rows[0]?.n ?? 0;
}

/** The channel a worker notifies when it ended a chunk: the coordinator waits on it. */
export const CHUNK_CHANNEL = 'geobatch_queue_chunk';

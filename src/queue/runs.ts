/**
 * Runs in the queue database: what each is (its recipe and files), where it stands, and which
 * workers work on it. A run's id is derived from the job, its input and its
 * output, so that a coordinator resumed with `--resume` finds its own run and the chunks done.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { canonical } from '../run/_canonical-path.js';
import { dropClaims } from './_item-claims.js';
import { SCHEMA } from './_schema.js';
import { inTransaction } from './_transaction.js';
import type { Recipe, RecipeFile } from './recipe.js';

export type RunState = 'running' | 'done' | 'stopped';

export interface RunRow {
  readonly id: string;
  readonly job: string;
  readonly kind: string;
  readonly state: RunState;
  readonly chunkRows: number;
  /** Known once the coordinator has read the whole input. */
  readonly chunks: number | null;
  readonly rows: number;
  readonly coordinator: string;
  readonly createdAt: Date;
  /** When its last session began: created, or taken back by --resume. */
  readonly sessionAt: Date;
  readonly seenAt: Date;
  readonly endedAt: Date | null;
  readonly error: { code?: string; message?: string } | null;
}

/** How this process names itself in the tables: host and pid. */
export function processName(): string {
  return `${hostname()}:${process.pid}`;
}

export function runIdOf(parts: {
  readonly jobFingerprint: string;
  readonly input: string;
  readonly output: string;
}): string {
  return createHash('sha256')
    .update(`${parts.jobFingerprint}\0${parts.input}\0${parts.output}`)
    .digest('hex')
    .slice(0, 16);
}

/**
 * What a run writes, one value per file: this machine's name and the file's absolute path, for its
 * outputs, error report and run report. A coordinator that starts a run writing any of the same
 * files (the input changed overnight, a checkpoint that could not be resumed, an output added or
 * left out) replaces any earlier run that wrote one of them: two runs buying rows for one file
 * spend twice the rate, and only one of them can write it. Null for a run writing to standard
 * output, which two runs on a machine may do at once.
 */
export function targetsOf(files: {
  readonly outputs: readonly string[];
  readonly others?: readonly string[];
}): string[] | null {
  const { outputs } = files;
  if (outputs.length === 0 || outputs.includes('-')) return null;
  // As the file system knows them: the same files named through a link are the same run's.
  const paths = new Set([...outputs, ...(files.others ?? [])].filter((path) => path !== '-').map(canonical));
  return [...paths].map((path) =>
    createHash('sha256').update(`${hostname()}\0${path}`).digest('hex').slice(0, 32),
  );
}

interface DbRun {
  id: string;
  job: string;
  kind: string;
  state: RunState;
  chunk_rows: number;
  chunks: number | null;
  rows: string;
  coordinator: string;
  created_at: Date;
  session_at: Date;
  seen_at: Date;
  ended_at: Date | null;
  error: RunRow['error'];
}

function toRun(r: DbRun): RunRow {
  return {
    id: r.id,
    job: r.job,
    kind: r.kind,
    state: r.state,
    chunkRows: r.chunk_rows,
    chunks: r.chunks,
    rows: Number(r.rows),
    coordinator: r.coordinator,
    createdAt: r.created_at,
    sessionAt: r.session_at,
    seenAt: r.seen_at,
    endedAt: r.ended_at,
    error: r.error,
  };
}

const COLUMNS =
  'id, job, kind, state, chunk_rows, chunks, rows, coordinator, created_at, session_at, seen_at, ended_at, error';

export async function findRun(db: pg.Pool, id: string): Promise<RunRow | undefined> {
  const result = await db.query<DbRun>(`SELECT ${COLUMNS} FROM ${SCHEMA}.runs WHERE id = $1`, [id]);
  const row = result.rows[0];
  return row === undefined ? undefined : toRun(row);
}

export async function listRuns(db: pg.Pool): Promise<RunRow[]> {
  const result = await db.query<DbRun>(`SELECT ${COLUMNS} FROM ${SCHEMA}.runs ORDER BY created_at`);
  return result.rows.map(toRun);
}

export async function createRun(
  db: pg.Pool,
  run: {
    readonly id: string;
    readonly job: string;
    readonly kind: string;
    readonly recipe: Recipe;
    readonly files: readonly RecipeFile[];
    readonly chunkRows: number;
    /** targetsOf the run's files. @default null */
    readonly targets?: readonly string[] | null;
  },
): Promise<void> {
  await inTransaction(db, async (client) => {
    await client.query(
      `INSERT INTO ${SCHEMA}.runs (id, job, kind, recipe, state, chunk_rows, coordinator, targets)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, $7)`,
      [
        run.id,
        run.job,
        run.kind,
        JSON.stringify(run.recipe),
        run.chunkRows,
        processName(),
        run.targets ?? null,
      ],
    );
    for (const file of run.files) {
      await client.query(`INSERT INTO ${SCHEMA}.files (run, path, content) VALUES ($1, $2, $3)`, [
        run.id,
        file.path,
        file.content,
      ]);
    }
  });
}

/** A resumed coordinator takes its run back. */
export async function reopenRun(
  db: pg.Pool,
  id: string,
  recipe: Recipe,
  targets: readonly string[] | null = null,
): Promise<void> {
  await db.query(
    `UPDATE ${SCHEMA}.runs SET state = 'running', coordinator = $2, recipe = $3, seen_at = clock_timestamp(), session_at = clock_timestamp(),
       ended_at = NULL, error = NULL, targets = coalesce($4, targets) WHERE id = $1`,
    [id, processName(), JSON.stringify(recipe), targets],
  );
}

/**
 * The other runs, not done, that write any of the files `targets` names: runs a new one writing
 * one of them replaces. Each with how many of `targets` it writes.
 */
export async function runsWriting(
  db: pg.Pool,
  targets: readonly string[],
  except: string,
): Promise<(RunRow & { readonly shared: number })[]> {
  const result = await db.query<DbRun & { shared: number }>(
    `SELECT ${COLUMNS}, cardinality(ARRAY(SELECT unnest(targets) INTERSECT SELECT unnest($1::text[]))) AS shared
     FROM ${SCHEMA}.runs WHERE targets && $1::text[] AND id <> $2 AND state <> 'done' ORDER BY created_at`,
    [targets, except],
  );
  return result.rows.map((row) => ({ ...toRun(row), shared: row.shared }));
}

export async function deleteRun(db: pg.Pool, id: string): Promise<void> {
  await db.query(`DELETE FROM ${SCHEMA}.runs WHERE id = $1`, [id]);
  await db.query(dropClaims, [id]);
}

/** The coordinator is alive: workers and `status` tell a live run from an abandoned one by this. */
export async function touchRun(db: pg.Pool, id: string): Promise<void> {
  await db.query(`UPDATE ${SCHEMA}.runs SET seen_at = clock_timestamp() WHERE id = $1`, [id]);
}

/**
 * The input is read whole: the run's chunks and rows are those stored, by this session and the
 * earlier ones of a resumed run (which this session did not read again).
 */
export async function inputRead(db: pg.Pool, id: string): Promise<void> {
  await db.query(
    `UPDATE ${SCHEMA}.runs r SET chunks = c.chunks, rows = c.rows
     FROM (SELECT count(*) AS chunks, coalesce(sum(rows), 0) AS rows FROM ${SCHEMA}.chunks WHERE run = $1) c
     WHERE r.id = $1`,
    [id],
  );
}

export async function endRun(
  db: pg.Pool,
  id: string,
  state: 'done' | 'stopped',
  error?: unknown,
): Promise<void> {
  await db.query(
    `UPDATE ${SCHEMA}.runs SET state = $2, ended_at = clock_timestamp(), error = $3 WHERE id = $1`,
    [id, state, error === undefined ? null : JSON.stringify(error)],
  );
  // Nothing of an ended run is being bought; a worker killed with -9 left its claims behind.
  await db.query(dropClaims, [id]);
}

export async function recipeOfRun(
  db: pg.Pool,
  id: string,
): Promise<{ since: string; recipe: Recipe; files: RecipeFile[] } | undefined> {
  const run = await db.query<{ created_at: Date; recipe: Recipe }>(
    `SELECT created_at, recipe FROM ${SCHEMA}.runs WHERE id = $1`,
    [id],
  );
  const row = run.rows[0];
  if (row === undefined) return undefined;
  const files = await db.query<{ path: string; content: Buffer }>(
    `SELECT path, content FROM ${SCHEMA}.files WHERE run = $1`,
    [id],
  );
  return { since: row.created_at.toISOString(), recipe: row.recipe, files: files.rows };
}

/**
 * A worker is at work on the run, for `status`; its client's metrics as of now, for a look at the
 * database (a run's counts are the chunks', see chunks.ts: `spent`).
 */
export async function reportMetrics(
  db: pg.Pool,
  run: string,
  worker: string,
  metrics: Record<string, unknown>,
): Promise<void> {
  await db.query(
    `INSERT INTO ${SCHEMA}.workers (run, worker, metrics) VALUES ($1, $2, $3)
     ON CONFLICT (run, worker) DO UPDATE SET metrics = EXCLUDED.metrics, seen_at = clock_timestamp()`,
    [run, worker, JSON.stringify(metrics)],
  );
}

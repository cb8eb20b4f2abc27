/**
 * Where the runs of a queue database stand (`geobatch status`), and removing finished runs'
 * data (`geobatch queue prune`): their chunks (input rows and outcomes), files, pg-boss queue
 * and shared rate.
 */
import type pg from 'pg';
import { COORDINATOR_TIMEOUT_MS, chunkQueue } from './_claim.js';
import { SCHEMA } from './_schema.js';
import type { QueueDatabase } from './database.js';
import { dropRates } from './rate.js';
import { listRuns, type RunRow, runMetrics } from './runs.js';

export interface RunStatus {
  readonly run: RunRow;
  /** `running` whose coordinator has not been seen lately: it died; `--resume` takes it over. */
  readonly abandoned: boolean;
  readonly chunks: {
    readonly total: number | null;
    readonly stored: number;
    readonly done: number;
    readonly inFlight: number;
    readonly queued: number;
    readonly failed: number;
  };
  readonly rows: { readonly total: number | null; readonly stored: number; readonly done: number };
  /** HTTP requests the workers sent (retries included). */
  readonly requests: number;
  /** Rows done per second: over the last minute for a live run, over the whole run for an ended one. */
  readonly rowsPerSecond: number | null;
  /** Seconds until every row is done at that pace; null when unknown. */
  readonly etaSeconds: number | null;
  readonly workers: readonly { readonly worker: string; readonly seenAt: Date }[];
}

const WINDOW_S = 60;

export async function runStatuses(pool: pg.Pool, only?: string): Promise<RunStatus[]> {
  const runs = (await listRuns(pool)).filter((run) => only === undefined || run.id.startsWith(only));
  const statuses: RunStatus[] = [];
  for (const run of runs) {
    const counts = await pool.query<{ state: string; chunks: string; rows: string; recent: string }>(
      `SELECT state, count(*) AS chunks, coalesce(sum(rows), 0) AS rows,
         coalesce(sum(rows) FILTER (WHERE ended_at > clock_timestamp() - $2 * interval '1 second'), 0) AS recent
       FROM ${SCHEMA}.chunks WHERE run = $1 GROUP BY state`,
      [run.id, WINDOW_S],
    );
    const by = new Map(counts.rows.map((r) => [r.state, r]));
    const n = (state: string, key: 'chunks' | 'rows' | 'recent') => Number(by.get(state)?.[key] ?? 0);
    const stored = counts.rows.reduce((sum, r) => sum + Number(r.chunks), 0);
    const storedRows = counts.rows.reduce((sum, r) => sum + Number(r.rows), 0);
    const recent = n('done', 'recent');
    // A live run's pace is the last minute's; an ended run's is its whole run's.
    const took = run.endedAt === null ? 0 : (run.endedAt.getTime() - run.createdAt.getTime()) / 1000;
    const rowsPerSecond =
      run.state === 'running'
        ? recent > 0
          ? recent / WINDOW_S
          : null
        : took > 0
          ? n('done', 'rows') / took
          : null;
    const total = run.chunks === null ? null : run.rows;
    const left = (total ?? storedRows) - n('done', 'rows');
    const metrics = await runMetrics(pool, run.id);
    const requests = (metrics.requests as { total?: number } | undefined)?.total ?? 0;
    const workers = await pool.query<{ worker: string; seen_at: Date }>(
      `SELECT worker, seen_at FROM ${SCHEMA}.workers WHERE run = $1 ORDER BY worker`,
      [run.id],
    );
    statuses.push({
      run,
      abandoned: run.state === 'running' && Date.now() - run.seenAt.getTime() > COORDINATOR_TIMEOUT_MS,
      chunks: {
        total: run.chunks,
        stored,
        done: n('done', 'chunks'),
        inFlight: n('active', 'chunks'),
        queued: n('queued', 'chunks'),
        failed: n('failed', 'chunks'),
      },
      rows: { total, stored: storedRows, done: n('done', 'rows') },
      requests,
      rowsPerSecond,
      etaSeconds: run.state === 'running' && rowsPerSecond !== null ? Math.ceil(left / rowsPerSecond) : null,
      workers: workers.rows.map((w) => ({ worker: w.worker, seenAt: w.seen_at })),
    });
  }
  return statuses;
}

/**
 * Removes the data of runs that ended (done or stopped) `olderThanMs` ago or more, and of runs
 * whose coordinator has not been seen for that long (at least the takeover timeout). Returns
 * the ids removed.
 */
export async function pruneRuns(db: QueueDatabase, olderThanMs: number): Promise<string[]> {
  const age = Math.max(0, olderThanMs);
  const gone = await db.pool.query<{ id: string }>(
    `SELECT id FROM ${SCHEMA}.runs
     WHERE (state <> 'running' AND ended_at <= clock_timestamp() - $1 * interval '1 millisecond')
        OR (state = 'running' AND seen_at <= clock_timestamp() - $2 * interval '1 millisecond')`,
    [age, Math.max(age, COORDINATOR_TIMEOUT_MS)],
  );
  const removed: string[] = [];
  for (const { id } of gone.rows) {
    await db.boss.deleteQueue(chunkQueue(id)).catch(() => {});
    await dropRates(db.pool, SCHEMA, id);
    await db.pool.query(`DELETE FROM ${SCHEMA}.runs WHERE id = $1`, [id]);
    removed.push(id);
  }
  return removed;
}

/**
 * Where the runs of a queue database stand (`geobatch status`), and removing finished runs'
 * data (`geobatch queue prune`): their chunks (input rows and outcomes), files, pg-boss queue
 * and shared rate.
 */
import type pg from 'pg';
import { COORDINATOR_TIMEOUT_MS, chunkQueue } from './_claim.js';
import { dropClaims } from './_item-claims.js';
import { diedHere, onThisHost } from './_liveness.js';
import { poolLocation } from './_rate-errors.js';
import { rateStatements } from './_rate-sql.js';
import { SCHEMA } from './_schema.js';
import { inTransaction } from './_transaction.js';
import { guarded, type QueueDatabase, queueError } from './database.js';
import { listRuns, type RunRow } from './runs.js';

export interface RunStatus {
  readonly run: RunRow;
  /**
   * `running` whose coordinator is gone: its process of this machine runs no more, or it has not
   * been seen for the takeover timeout. `--resume` takes it over, as it would (queue/_claim.ts).
   */
  readonly abandoned: boolean;
  readonly coordinator: {
    /**
     * A process of this machine, whose pid tells at once whether it still runs; another machine's
     * is known only by when it was last seen.
     */
    readonly here: boolean;
    /** Of this machine, and its process is gone (kill -9, a crash): no need to wait for the timeout. */
    readonly gone: boolean;
    /** Seconds since it was last seen, by the database's clock: a live one is seen every 5 s. */
    readonly seenSecondsAgo: number;
  };
  readonly chunks: {
    readonly total: number | null;
    readonly stored: number;
    readonly done: number;
    readonly inFlight: number;
    readonly queued: number;
    readonly failed: number;
  };
  readonly rows: { readonly total: number | null; readonly stored: number; readonly done: number };
  /** HTTP requests the workers sent (retries included), as reported by the chunks they ended. */
  readonly requests: number;
  /**
   * Rows done per second, over the run's last session: over the last minute for a live run (or the
   * time since its first chunk done in that minute was taken, at least 5 s), over the whole session
   * for an ended one.
   */
  readonly rowsPerSecond: number | null;
  /** Seconds until every row is done at that pace; null when unknown. */
  readonly etaSeconds: number | null;
  /**
   * The workers that took or ended a chunk of the run, and when they last did (by the database's
   * clock): one that died stays listed, its time growing.
   */
  readonly workers: readonly {
    readonly worker: string;
    readonly seenAt: Date;
    readonly seenSecondsAgo: number;
  }[];
}

/** A live run's pace is over the last minute at most... */
const WINDOW_S = 60;
/**
 * ...and at least over this long: a run a second old with one chunk done would otherwise show a
 * pace (and an ETA) that the next seconds take back.
 */
const MIN_WINDOW_S = 5;

interface ChunkTally {
  state: string;
  chunks: string;
  rows: string;
  /** Rows of chunks done within the window. */
  recent: string;
  /** Seconds since the earliest of those chunks was taken, or the session began (null: none done in the window). */
  span: number | null;
  /** Rows of chunks ended in the run's last session. */
  session: string;
}

/** The runs whose id begins with `only` (every run without), as `geobatch status` shows them. */
export async function runStatuses(pool: pg.Pool, only?: string): Promise<RunStatus[]> {
  try {
    return await statusesOf(pool, only);
  } catch (error) {
    throw queueError(poolLocation(pool), 'reading the runs', error);
  }
}

async function statusesOf(pool: pg.Pool, only: string | undefined): Promise<RunStatus[]> {
  const runs = (await listRuns(pool)).filter((run) => only === undefined || run.id.startsWith(only));
  const statuses: RunStatus[] = [];
  for (const run of runs) {
    // The window begins no earlier than this session: a resumed run's chunks of the session
    // before, and the idle time between, are no part of its pace (36.7 rows/s shown 9 s into a
    // session that went at 110).
    const counts = await pool.query<ChunkTally>(
      `WITH w AS (SELECT greatest(clock_timestamp() - $2 * interval '1 second', $3::timestamptz) AS since)
       SELECT state, count(*) AS chunks, coalesce(sum(rows), 0) AS rows,
         coalesce(sum(rows) FILTER (WHERE ended_at > w.since), 0) AS recent,
         extract(epoch FROM clock_timestamp() - greatest(min(started_at) FILTER (WHERE ended_at > w.since), $3))::float8 AS span,
         coalesce(sum(rows) FILTER (WHERE ended_at >= $3), 0) AS session
       FROM ${SCHEMA}.chunks, w WHERE run = $1 GROUP BY state`,
      [run.id, WINDOW_S, run.sessionAt],
    );
    const by = new Map(counts.rows.map((r) => [r.state, r]));
    const n = (state: string, key: 'chunks' | 'rows' | 'recent' | 'session') =>
      Number(by.get(state)?.[key] ?? 0);
    const stored = counts.rows.reduce((sum, r) => sum + Number(r.chunks), 0);
    const storedRows = counts.rows.reduce((sum, r) => sum + Number(r.rows), 0);
    const rowsPerSecond = pace(run, n('done', 'recent'), by.get('done')?.span ?? null, n('done', 'session'));
    const total = run.chunks === null ? null : run.rows;
    // Never below zero: a total the run has not recorded yet is no reason for a negative ETA.
    const left = Math.max(0, (total ?? storedRows) - n('done', 'rows'));
    const seen = await pool.query<{ ago: number }>(
      `SELECT extract(epoch FROM clock_timestamp() - seen_at)::float8 AS ago FROM ${SCHEMA}.runs WHERE id = $1`,
      [run.id],
    );
    const seenSecondsAgo = Math.max(0, seen.rows[0]?.ago ?? 0);
    const here = onThisHost(run.coordinator);
    const gone = run.state === 'running' && diedHere(run.coordinator, run.seenAt);
    const workers = await pool.query<{ worker: string; seen_at: Date; ago: number }>(
      `SELECT worker, seen_at, extract(epoch FROM clock_timestamp() - seen_at)::float8 AS ago
         FROM ${SCHEMA}.workers WHERE run = $1 ORDER BY worker`,
      [run.id],
    );
    statuses.push({
      run,
      abandoned: run.state === 'running' && (gone || seenSecondsAgo * 1000 > COORDINATOR_TIMEOUT_MS),
      coordinator: { here, gone, seenSecondsAgo },
      chunks: {
        total: run.chunks,
        stored,
        done: n('done', 'chunks'),
        inFlight: n('active', 'chunks'),
        queued: n('queued', 'chunks'),
        failed: n('failed', 'chunks'),
      },
      rows: { total, stored: storedRows, done: n('done', 'rows') },
      requests: await requestsOf(pool, run.id),
      rowsPerSecond,
      etaSeconds: run.state === 'running' && rowsPerSecond !== null ? Math.ceil(left / rowsPerSecond) : null,
      workers: workers.rows.map((w) => ({
        worker: w.worker,
        seenAt: w.seen_at,
        seenSecondsAgo: Math.max(0, w.ago),
      })),
    });
  }
  return statuses;
}

/**
 * Rows done per second, over the run's last session (a resumed run's earlier sessions, and the
 * idle time between, left out). A live run's: the rows of the chunks done in the last minute over
 * the time they took, the minute or, when the first of them was taken later (a run, or a session
 * of it, younger than that), the time since, never less than MIN_WINDOW_S. An ended run's: the
 * rows its last session did over that session's time.
 */
function pace(run: RunRow, recent: number, span: number | null, session: number): number | null {
  if (run.state === 'running') {
    if (recent === 0 || span === null) return null;
    return recent / Math.min(WINDOW_S, Math.max(MIN_WINDOW_S, span));
  }
  const took = run.endedAt === null ? 0 : (run.endedAt.getTime() - run.sessionAt.getTime()) / 1000;
  return took > 0 ? session / took : null;
}

/** HTTP requests the workers reported for the run's chunks (retries included), all sessions. */
async function requestsOf(pool: pg.Pool, run: string): Promise<number> {
  const result = await pool.query<{ n: string }>(
    `SELECT coalesce(sum((e -> 'requests' ->> 'total')::bigint), 0) AS n
     FROM ${SCHEMA}.chunks c CROSS JOIN LATERAL jsonb_array_elements(c.spent) e WHERE c.run = $1`,
    [run],
  );
  return Number(result.rows[0]?.n ?? 0);
}

/** What a prune removed, and what it left for `--resume`. */
export interface Pruned {
  readonly removed: readonly string[];
  /** Stopped or abandoned runs holding finished chunks, which `--resume` takes up: left alone. */
  readonly resumable: readonly string[];
}

/**
 * Removes the data of runs that ended (done or stopped) `olderThanMs` ago or more, and of runs
 * whose coordinator has not been seen for that long (at least the takeover timeout). A stopped or
 * abandoned run holding finished chunks is one `--resume` takes up: removed, it would have them
 * bought again, so it stays unless `resumable` says to remove those too. A run's rows go in one
 * transaction: a prune that fails leaves it whole.
 */
export async function pruneRuns(
  db: QueueDatabase,
  olderThanMs: number,
  options: { readonly resumable?: boolean } = {},
): Promise<Pruned> {
  const guard = guarded(db);
  const age = Math.max(0, olderThanMs);
  const gone = await guard('looking for runs to remove', () =>
    db.pool.query<{ id: string; resumable: boolean }>(
      `SELECT r.id,
              r.state <> 'done' AND EXISTS (
                SELECT 1 FROM ${SCHEMA}.chunks c WHERE c.run = r.id AND c.state = 'done'
              ) AS resumable
       FROM ${SCHEMA}.runs r
       WHERE (r.state <> 'running' AND r.ended_at <= clock_timestamp() - $1 * interval '1 millisecond')
          OR (r.state = 'running' AND r.seen_at <= clock_timestamp() - $2 * interval '1 millisecond')
       ORDER BY r.id`,
      [age, Math.max(age, COORDINATOR_TIMEOUT_MS)],
    ),
  );
  const removed: string[] = [];
  const resumable: string[] = [];
  for (const { id, resumable: held } of gone.rows) {
    if (held && options.resumable !== true) {
      resumable.push(id);
      continue;
    }
    await db.boss.deleteQueue(chunkQueue(id)).catch(() => {});
    await guard(`removing run ${id}`, () => removeRun(db.pool, id));
    removed.push(id);
  }
  return { removed, resumable };
}

async function removeRun(pool: pg.Pool, id: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    await client.query(rateStatements(SCHEMA).drop, [id]);
    await client.query(dropClaims, [id]);
    await client.query(`DELETE FROM ${SCHEMA}.runs WHERE id = $1`, [id]);
  });
}

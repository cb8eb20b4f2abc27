/**
 * A coordinator taking hold of its run in the queue database: refused (LOCKED) while another live
 * coordinator holds it; made afresh (the earlier run's chunks dropped and their jobs cancelled)
 * unless resuming; on a resume, taken back with its chunks, a failed one queued again. Either way
 * the run's shared rates become this coordinator's, and an earlier run that wrote any of the same
 * files under another id (another input, other outputs) is dropped with its jobs: its coordinator is gone, and no
 * session could ever write its rows.
 */
import { IoError } from '../errors.js';
import { diedHere } from './_liveness.js';
import { SCHEMA } from './_schema.js';
import { type ChunkRow, listChunks } from './chunks.js';
import { CHUNK_QUEUE_OPTIONS, guarded, type QueueDatabase } from './database.js';
import { type SharedLimits, setRates } from './rate.js';
import type { Recipe, RecipeFile } from './recipe.js';
import {
  createRun,
  deleteRun,
  findRun,
  processName,
  type RunRow,
  type RunState,
  reopenRun,
  runsWriting,
} from './runs.js';

/** A coordinator not seen for this long is gone: its run may be taken over. */
export const COORDINATOR_TIMEOUT_MS = 30_000;

/** Each run's chunks go through a pg-boss queue of its own. */
export function chunkQueue(run: string): string {
  return `geobatch-chunks-${run}`;
}

/** An earlier run of the same files, replaced by the run claimed. */
export interface Replaced {
  readonly id: string;
  readonly state: RunState;
  readonly createdAt: Date;
  readonly chunks: number;
  readonly done: number;
  /** How many of the claimed run's files it wrote. */
  readonly shared: number;
}

export interface Claimed {
  /** The run's start (its jobs carry it, so that an earlier run's jobs are told apart). */
  readonly since: string;
  /** The chunks a resumed run has. */
  readonly existing: ChunkRow[];
  readonly replaced: readonly Replaced[];
}

export interface Claim {
  readonly id: string;
  readonly resume: boolean;
  readonly job: string;
  readonly kind: string;
  readonly recipe: Recipe;
  readonly files: readonly RecipeFile[];
  readonly chunkRows: number;
  /** What the run writes (runs.ts, targetsOf): earlier runs writing any of these files are replaced. */
  readonly targets: readonly string[] | null;
  /** The rates this session's command line and job file give, for all the run's workers. */
  readonly limits: SharedLimits;
}

export async function claimRun(db: QueueDatabase, claim: Claim): Promise<Claimed> {
  // Two coordinators started at the same moment both found no run, and the second's INSERT failed
  // as a database error: the claim is made under a lock on the run's id, so the second finds the
  // first's run and is refused as LOCKED.
  const guard = guarded(db);
  const client = await guard('setting up the run', () => db.pool.connect());
  try {
    await guard('setting up the run', () =>
      client.query('SELECT pg_advisory_lock($1, hashtext($2))', [RUN_CLAIM_LOCK, claim.id]),
    );
    return await claimLocked(db, claim);
  } finally {
    await client
      .query('SELECT pg_advisory_unlock($1, hashtext($2))', [RUN_CLAIM_LOCK, claim.id])
      .catch(() => {});
    client.release();
  }
}

/** An arbitrary constant naming run claims among the database's advisory locks (with the run's hash). */
const RUN_CLAIM_LOCK = 4_711_017;

async function claimLocked(db: QueueDatabase, claim: Claim): Promise<Claimed> {
  const { id } = claim;
  const guard = guarded(db);
  const found = await guard('looking up the run', () => findRun(db.pool, id));
  if (found !== undefined && liveElsewhere(found)) throw locked(db, found, 'is running this job');
  // Runs that wrote any of these files before (a coordinator that crashed, and the input or the
  // outputs changed since): nothing can finish them now, and their queued chunks would be bought
  // beside this run's, at twice the rate the service allows.
  const targets = claim.targets;
  const earlier =
    targets === null || targets.length === 0
      ? []
      : await guard('looking up the run', () => runsWriting(db.pool, targets, id));
  const live = earlier.find(liveElsewhere);
  if (live !== undefined) throw locked(db, live, 'is writing these files');
  const replaced: Replaced[] = [];
  await guard('setting up the run', async () => {
    for (const run of earlier) {
      const chunks = await listChunks(db.pool, run.id);
      await cancelChunkJobs(db, run.id, chunks);
      await deleteRun(db.pool, run.id);
      replaced.push({
        id: run.id,
        state: run.state,
        createdAt: run.createdAt,
        chunks: chunks.length,
        done: chunks.filter((chunk) => chunk.state === 'done').length,
        shared: run.shared,
      });
    }
    if (found !== undefined && !claim.resume) {
      await cancelChunkJobs(db, id, await listChunks(db.pool, id));
      await deleteRun(db.pool, id);
    }
    // Before the run is running again: no worker takes a chunk of it at an earlier session's rate.
    await setRates(db.pool, SCHEMA, id, claim.limits);
    if (found === undefined || !claim.resume) {
      await createRun(db.pool, {
        id,
        job: claim.job,
        kind: claim.kind,
        recipe: claim.recipe,
        files: claim.files,
        chunkRows: claim.chunkRows,
        targets: claim.targets,
      });
    } else {
      await reopenRun(db.pool, id, claim.recipe, claim.targets);
      // A chunk that failed stopped the last session; this one tries it again.
      await db.pool.query(
        `UPDATE ${SCHEMA}.chunks SET state = 'queued', error = NULL WHERE run = $1 AND state = 'failed'`,
        [id],
      );
    }
    await db.boss.createQueue(chunkQueue(id), CHUNK_QUEUE_OPTIONS);
  });
  const run = await guard('looking up the run', () => findRun(db.pool, id));
  const existing =
    claim.resume && found !== undefined
      ? await guard('reading the chunks', () => listChunks(db.pool, id))
      : [];
  return { since: run?.createdAt.toISOString() ?? '', existing, replaced };
}

/** A run whose coordinator is another process, seen lately and not known to have died. */
function liveElsewhere(run: RunRow): boolean {
  return (
    run.state === 'running' &&
    run.coordinator !== processName() &&
    Date.now() - run.seenAt.getTime() < COORDINATOR_TIMEOUT_MS &&
    !diedHere(run.coordinator, run.seenAt)
  );
}

function locked(db: QueueDatabase, run: RunRow, doing: string): IoError {
  return new IoError('LOCKED', `Another coordinator (${run.coordinator}) ${doing} on ${db.shown}`, {
    path: db.shown,
    hint: `wait for it to end; a coordinator that died is taken over ${COORDINATOR_TIMEOUT_MS / 1000} s after it was last seen`,
  });
}

/** Cancels the pg-boss jobs of the chunks not done (a stopped or replaced run). */
export async function cancelChunkJobs(
  db: QueueDatabase,
  id: string,
  chunks: readonly ChunkRow[],
): Promise<void> {
  const ids = chunks.filter((c) => c.state !== 'done' && c.jobId !== null).map((c) => c.jobId as string);
  if (ids.length > 0) await db.boss.cancel(chunkQueue(id), ids).catch(() => {});
}

/**
 * A coordinator taking hold of its run in the queue database: refused (LOCKED) while another live
 * coordinator holds it; made afresh (the earlier run's chunks dropped and their jobs cancelled)
 * unless resuming; on a resume, taken back with its chunks, a failed one queued again. Either way
 * the run's shared rates become this coordinator's.
 */
import { IoError } from '../errors.js';
import { diedHere } from './_liveness.js';
import { SCHEMA } from './_schema.js';
import { type ChunkRow, listChunks } from './chunks.js';
import { CHUNK_QUEUE_OPTIONS, guarded, type QueueDatabase } from './database.js';
import { type SharedLimits, setRates } from './rate.js';
import type { Recipe, RecipeFile } from './recipe.js';
import { createRun, deleteRun, findRun, processName, reopenRun } from './runs.js';

/** A coordinator not seen for this long is gone: its run may be taken over. */
export const COORDINATOR_TIMEOUT_MS = 30_000;

/** Each run's chunks go through a pg-boss queue of its own. */
export function chunkQueue(run: string): string {
  return `geobatch-chunks-${run}`;
}

export interface Claim {
  readonly id: string;
  readonly resume: boolean;
  readonly job: string;
  readonly kind: string;
  readonly recipe: Recipe;
  readonly files: readonly RecipeFile[];
  readonly chunkRows: number;
  /** The rates this session's command line and job file give, for all the run's workers. */
  readonly limits: SharedLimits;
}

/** The run's start (its jobs carry it, so that an earlier run's jobs are told apart) and the chunks it has. */
export async function claimRun(
  db: QueueDatabase,
  claim: Claim,
): Promise<{ since: string; existing: ChunkRow[] }> {
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

async function claimLocked(
  db: QueueDatabase,
  claim: Claim,
): Promise<{ since: string; existing: ChunkRow[] }> {
  const { id } = claim;
  const guard = guarded(db);
  const found = await guard('looking up the run', () => findRun(db.pool, id));
  if (
    found?.state === 'running' &&
    found.coordinator !== processName() &&
    Date.now() - found.seenAt.getTime() < COORDINATOR_TIMEOUT_MS &&
    !diedHere(found.coordinator, found.seenAt)
  ) {
    throw new IoError(
      'LOCKED',
      `Another coordinator (${found.coordinator}) is running this job on ${db.shown}`,
      {
        path: db.shown,
        hint: `wait for it to end; a coordinator that died is taken over ${COORDINATOR_TIMEOUT_MS / 1000} s after it was last seen`,
      },
    );
  }
  await guard('setting up the run', async () => {
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
      });
    } else {
      await reopenRun(db.pool, id, claim.recipe);
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
  return { since: run?.createdAt.toISOString() ?? '', existing };
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

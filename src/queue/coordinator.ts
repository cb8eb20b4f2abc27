/**
 * The coordinator's side of a distributed run: the rows of the session go into the queue
 * database as chunks, a pg-boss job each, and come back as outcomes, in input order, as workers
 * finish them. It is a RowProcessor: the run around it (outputs, error report, checkpoint,
 * summary) is the single-process run's, so the files are byte for byte what that run writes.
 *
 * Reading and waiting go on side by side: chunks are stored as the input is read (one chunk in
 * memory), while outcomes are taken in order from the chunks done. A resumed coordinator finds
 * its run by its id: chunks already stored are not stored again, done ones are not worked again,
 * and a chunk whose job was lost (cancelled, or its attempts used up) is sent again.
 */
import type { Client as PgClient } from 'pg';
import pg from 'pg';
import type { Logger } from 'pino';
import { unanswered } from '../cache/_pg-unanswered.js';
import { safeUrl, withoutPassword } from '../cache/_pg-url.js';
import type { EngineCounters } from '../engine/counters.js';
import type { AnyJob } from '../engine/job.js';
import type { StepCounters } from '../engine/pipeline.js';
import { IoError, interrupted, isGeobatchError, RunError } from '../errors.js';
import type { SwappedPoints } from '../jobs/_swapped.js';
import type { RowProcessor } from '../run/spec.js';
import { scrub } from '../secrets.js';
import { shellWord } from '../shell-word.js';
import type { Outcome, ReadItem } from '../types.js';
import { cancelChunkJobs, chunkQueue, claimRun } from './_claim.js';
import { addCounts, addWork, count, WORK } from './_counts.js';
import { GroupTracker } from './_groups.js';
import { addMetrics, type Metrics } from './_metrics.js';
import { workersError } from './_worker-error.js';
import {
  activeChunks,
  CHUNK_CHANNEL,
  type ChunkCounts,
  type ChunkRow,
  failedChunk,
  insertChunk,
  listChunks,
  readChunk,
  setJobId,
  settleChunks,
} from './chunks.js';
import { guarded, type QueueDatabase } from './database.js';
import type { SharedLimits } from './rate.js';
import type { Recipe, RecipeFile } from './recipe.js';
import { endRun, inputRead, touchRun } from './runs.js';

/** Rows per chunk: big enough that a chunk's bookkeeping is noise, small enough to redo cheaply. */
export const DEFAULT_CHUNK_ROWS = 2000;
const HEARTBEAT_MS = 5000;
/** How long a stop waits for workers to hand back the chunks they hold, with what they spent. */
const SETTLE_MS = 3000;
/** How often a chunk's pg-boss job is looked at while waiting for it. */
const JOB_CHECK_MS = 5000;
/** How long without any chunk done before the log says that no worker seems to be there. */
const NO_WORKER_MS = 60_000;

export interface CoordinatorOptions {
  readonly db: QueueDatabase;
  /** The queue URL (password included), for the LISTEN connection. */
  readonly url: string;
  readonly id: string;
  readonly job: AnyJob;
  readonly jobName: string;
  readonly recipe: Recipe;
  readonly files: readonly RecipeFile[];
  readonly chunkRows: number;
  /** What the run writes (runs.ts, targetsOf): an earlier run writing any of these files is replaced. */
  readonly targets: readonly string[] | null;
  readonly resume: boolean;
  /** The run's rates for all its workers, as this session's command line and job file give them. */
  readonly limits: SharedLimits;
  readonly logger: Logger;
  /**
   * Called once the run is this coordinator's (claimed, or taken up to resume): its own worker
   * starts only then, so that a coordinator refused as LOCKED never touches another's chunks.
   */
  readonly onClaimed?: () => void;
  /**
   * How long without any chunk done before the log says that no worker seems to be there, and
   * says it again after twice as long, and so on, for each chunk waited on. @default 60000
   */
  readonly noWorkerMs?: number;
  /**
   * Per step, the run's watch on the points its rows read (src/run/_swapped-points.ts): the
   * workers' counts are added to it as their chunks are taken, so that the run warns of a file
   * mapped the wrong way round as a run in one process does.
   */
  readonly points?: readonly SwappedPoints[];
}

export interface Coordinator {
  readonly process: RowProcessor;
  /**
   * What the workers' clients and caches spent on the chunks this session counted, added up:
   * like a single run's client metrics, this session's; the run adds the earlier sessions' HTTP
   * requests from its checkpoint.
   */
  metrics(): Record<string, unknown>;
  /**
   * After a stop: whether workers had taken or finished chunks of the run, which the queue
   * database keeps and `--resume` takes up (a plain run again would drop them, and with no cache
   * pay for them again), even when this process had written no row of them yet.
   */
  holdsWork(): boolean;
  close(): Promise<void>;
}

interface Planned {
  readonly seq: number;
  readonly firstRow: number;
  readonly rows: number;
}

export function openCoordinator(options: CoordinatorOptions): Coordinator {
  const { db, id, logger } = options;
  const noWorkerMs = options.noWorkerMs ?? NO_WORKER_MS;
  const queue = chunkQueue(id);
  let metrics: Metrics = {};
  let heartbeat: NodeJS.Timeout | undefined;
  let listener: PgClient | undefined;
  let wake: (() => void) | undefined;
  let since = '';
  let holdsWork = false;

  const guard = guarded(db);
  /** How a worker for this run is started (the password stays in PGPASSWORD or ~/.pgpass). */
  const workerCommand = runnableWorkerCommand(options.url, db.shown, options.recipe.emulator);

  async function setUp(): Promise<ChunkRow[]> {
    const claimed = await claimRun(db, {
      id,
      resume: options.resume,
      job: options.jobName,
      kind: options.job.kind,
      recipe: options.recipe,
      files: options.files,
      chunkRows: options.chunkRows,
      targets: options.targets,
      limits: options.limits,
    });
    since = claimed.since;
    for (const run of claimed.replaced) {
      const how = run.state === 'running' ? 'its coordinator gone' : 'stopped';
      const total = options.targets?.length ?? 0;
      const which = run.shared < total ? `${run.shared} of these ${total} files` : 'these files';
      logger.warn(
        { replaced: run.id, chunks: run.chunks, done: run.done },
        `Run ${run.id} wrote ${which} before (started ${run.createdAt.toISOString()}, ${how}, ${run.done} of ${run.chunks} chunks done): no session can finish it now, so its chunks still queued are cancelled and the run is dropped`,
      );
    }
    heartbeat = setInterval(() => {
      touchRun(db.pool, id).catch((error) => logger.warn({ err: String(error) }, 'Queue heartbeat failed'));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    listener = new pg.Client({
      connectionString: options.url,
      application_name: 'geobatch-listen',
      // Its goodbye to a frozen database is not waited for beyond a few seconds.
      ...unanswered(),
    });
    listener.on('notification', (message) => {
      if (message.payload === id) wake?.();
    });
    listener.on('error', () => {});
    await guard('listening for chunks', async () => {
      await listener?.connect();
      await listener?.query(`LISTEN ${CHUNK_CHANNEL}`);
    });
    return claimed.existing;
  }

  async function send(seq: number): Promise<void> {
    const jobId = await db.boss.send(queue, { run: id, seq, since });
    if (jobId !== null) await setJobId(db.pool, id, seq, jobId);
  }

  async function jobState(jobId: string | null): Promise<string | undefined> {
    if (jobId === null) return undefined;
    const job = await db.boss.getJobById(queue, jobId);
    return job?.state;
  }

  async function cancelJobs(chunks: readonly ChunkRow[]): Promise<void> {
    await cancelChunkJobs(db, id, chunks);
  }

  const process: RowProcessor = (items, context) => run(items, context);

  async function* run(
    items: AsyncIterable<ReadItem>,
    context: {
      readonly counters: EngineCounters;
      readonly stepCounters: readonly StepCounters[] | undefined;
      readonly signal: AbortSignal | undefined;
    },
  ): AsyncGenerator<Outcome> {
    const existing = await setUp();
    options.onClaimed?.();
    const planned: Planned[] = [];
    const state: { done: boolean; error: unknown; stop: boolean } = {
      done: false,
      error: undefined,
      stop: false,
    };
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const producer = produce(items, existing, planned, context, state, notify).then(
      () => {
        state.done = true;
        notify();
      },
      (error: unknown) => {
        state.error = error;
        notify();
      },
    );
    let ended = false;
    let stopped: unknown;
    try {
      let lastDone = Date.now();
      for (let next = 0; ; next++) {
        while (planned.length <= next) {
          if (state.error !== undefined) throw state.error;
          if (state.done) break;
          // Not only when the producer says so: it may be waiting on the database.
          if (context.signal?.aborted === true) throw interrupted(context.signal);
          await sleep(1000, context.signal);
        }
        if (planned.length <= next) break;
        const chunk = planned[next] as Planned;
        const {
          outcomes,
          counts,
          spent,
          counted,
          unreported: lost,
        } = await waitDone(chunk, context.signal, state, () => lastDone);
        lastDone = Date.now();
        // A chunk that begins before the session's first row was taken by an earlier session,
        // whose checkpoint holds its work: counted again, a resumed run's totals would have it
        // twice. Its work is counted here, with no await before its first outcome is yielded,
        // so that a checkpoint past its first row always holds it, and one before never does.
        if (chunk.firstRow >= (firstRead ?? 0)) {
          // One a stopped session counted (settle) is in the checkpoint's totals already: its
          // rows are written here, its work and spending not counted again.
          addCounts(context.counters, context.stepCounters, counts, { work: !counted });
          counts.points?.forEach((points, step) => {
            options.points?.[step]?.add(points);
          });
          take(spent, context.counters);
          countedHere.push(chunk.seq);
          unreported += lost;
        }
        for (const outcome of outcomes) {
          if (outcome.ref.index < (firstRead ?? 0)) continue;
          count(context.counters, outcome);
          yield outcome;
        }
      }
      ended = true;
      await guard('ending the run', () => endRun(db.pool, id, 'done'));
    } catch (error) {
      stopped = error;
      throw error;
    } finally {
      state.stop = true;
      if (unreported > 0)
        logger.warn(
          { unreported },
          `${unreported} attempt(s) at the chunks this session wrote ended without saying what they spent (a worker killed, or cut off from the queue database): the service counted more requests than this summary, by what those attempts sent`,
        );
      if (!ended) {
        // A database that does not answer would keep each of these waiting for its timeout.
        const chunks =
          db.lost() === undefined ? await listChunks(db.pool, id).catch(() => undefined) : undefined;
        // The database gone: what workers finished cannot be seen, and may well be there. A run
        // this session claimed keeps its checkpoint and says --resume, rather than have a plain
        // run drop chunks done (and, without the cache, pay for them again).
        holdsWork =
          chunks === undefined
            ? since !== ''
            : chunks.some((chunk) => chunk.state === 'done' || chunk.state === 'active');
        if (db.lost() === undefined) {
          await cancelJobs(chunks ?? []).catch(() => {});
          await endRun(db.pool, id, 'stopped', stopJson(stopped ?? state.error)).catch(() => {});
          await settle(context.counters).catch((error: unknown) => {
            logger.warn(
              { err: String(error) },
              "The requests of the chunks this session did not write could not be counted: the summary's counts are too low",
            );
          });
        }
      }
      await producer;
    }
  }

  /** The first item's index the session gave: rows below it were written by an earlier session. */
  let firstRead: number | undefined;
  /** The chunks whose work and spending this session counted. */
  const countedHere: number[] = [];
  /** Attempts at those chunks that never said what they spent (chunks.ts, readChunk). */
  let unreported = 0;

  /** What workers spent, into this session's metrics; an attempt's work (_counts.ts) into `counters`. */
  function take(spent: Metrics, counters: EngineCounters): void {
    const { [WORK]: work, ...client } = spent;
    metrics = addMetrics(metrics, client);
    if (typeof work === 'object' && work !== null) addWork(counters, work);
  }

  /**
   * A stop's account of the work on rows it did not write (chunks.ts, settleChunks): the run
   * stopped, workers hand their chunks back within a moment (worker.ts) and record what they
   * spent, which is waited for a few seconds; then the spending of every chunk not counted, and a
   * done chunk's work, go into this session's counts, as a single run counts the requests of rows
   * a stop left unwritten. The session that writes those rows counts them no second time.
   */
  async function settle(counters: EngineCounters): Promise<void> {
    if (firstRead === undefined) return;
    for (const end = Date.now() + SETTLE_MS; Date.now() < end; ) {
      if ((await activeChunks(db.pool, id)) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const chunk of await settleChunks(db.pool, id, firstRead, countedHere)) {
      if (chunk.counts !== null) addWork(counters, chunk.counts.counters);
      take(chunk.spent, counters);
    }
  }

  async function produce(
    items: AsyncIterable<ReadItem>,
    existing: readonly ChunkRow[],
    planned: Planned[],
    { counters, signal }: { readonly counters: EngineCounters; readonly signal: AbortSignal | undefined },
    state: { readonly stop: boolean },
    notify: () => void,
  ): Promise<void> {
    let cursor = 0;
    let seq = existing.reduce((max, c) => Math.max(max, c.seq + 1), 0);
    let buffer: ReadItem[] = [];
    const groups = options.job.groupOf === undefined ? undefined : new GroupTracker(options.job);
    const flush = async () => {
      if (buffer.length === 0) return;
      const chunk = buffer;
      buffer = [];
      const mine = seq++;
      const endedGroups = groups?.endedBefore(chunk);
      await guard('storing a chunk', async () => {
        await insertChunk(db.pool, id, mine, chunk, endedGroups === undefined ? {} : { endedGroups });
        await send(mine);
      });
      planned.push({ seq: mine, firstRow: chunk[0]?.ref.index ?? 0, rows: chunk.length });
      notify();
    };
    for await (const item of items) {
      if (state.stop) break;
      counters.rowsRead++;
      const index = item.ref.index;
      firstRead ??= index;
      while (cursor < existing.length && end(existing[cursor] as ChunkRow) <= index) cursor++;
      const old = existing[cursor];
      if (old !== undefined && old.firstRow <= index) {
        groups?.see(item);
        if (planned[planned.length - 1]?.seq !== old.seq) {
          if (old.state !== 'done') {
            const alive = await guard('looking at a chunk', () => jobState(old.jobId));
            if (alive !== 'created' && alive !== 'retry' && alive !== 'active')
              await guard('sending a chunk again', () => send(old.seq));
          }
          planned.push({ seq: old.seq, firstRow: old.firstRow, rows: old.rows });
          notify();
        }
        continue;
      }
      // A chunk ends only where a group begins (a trip's stops stay with one worker).
      const boundary = groups === undefined ? true : groups.see(item);
      if (buffer.length >= options.chunkRows && boundary) await flush();
      buffer.push(item);
    }
    // The reader ends quietly when the signal stops it (input/_source.ts), as at the input's end:
    // taken for the end, a stop before the session's first row made the run an empty one, and a
    // resumed session still reading its committed rows ended complete, its checkpoint dropped.
    if (signal?.aborted === true) throw interrupted(signal);
    // Stopped, the input was not read whole: the rows in hand are no chunk (they may end inside a
    // trip), and the run's size stays unknown.
    if (state.stop) return;
    await flush();
    await guard('recording the input read', () => inputRead(db.pool, id));
  }

  async function waitDone(
    chunk: Planned,
    signal: AbortSignal | undefined,
    state: { error: unknown },
    lastDone: () => number,
  ): Promise<{
    outcomes: Outcome[];
    counts: ChunkCounts;
    spent: Metrics;
    counted: boolean;
    unreported: number;
  }> {
    let checked = Date.now();
    // Said again at twice the wait each time: a coordinator left waiting overnight says it still is.
    let warnAt = noWorkerMs;
    for (;;) {
      if (signal?.aborted === true) throw interrupted(signal);
      if (state.error !== undefined) throw state.error;
      const found = await guard('reading a chunk', () => readChunk(db.pool, id, chunk.seq));
      if (found === undefined)
        throw new IoError('QUEUE_UNUSABLE', `Chunk ${chunk.seq} of the run is gone from ${db.shown}`, {
          path: db.shown,
          hint: 'was the run pruned while it ran? Run the coordinator again without --resume',
        });
      if (found.state === 'done') return found;
      if (found.state === 'failed') throw workersError(found.error, chunk);
      // A later chunk failed for good: the run stops now, not once it reaches that chunk.
      const failed = await guard('reading the chunks', () => failedChunk(db.pool, id));
      if (failed !== undefined) throw workersError(failed.error, failed);
      if (Date.now() - checked > JOB_CHECK_MS) {
        checked = Date.now();
        const job = await guard('looking at a chunk', () => jobState(found.jobId));
        if (job === 'failed') {
          const last = (found.error as { message?: string } | null)?.message;
          throw new RunError(
            'INTERNAL',
            `Chunk ${chunk.seq} (rows ${chunk.firstRow + 1}-${chunk.firstRow + chunk.rows}) failed on every attempt${last === undefined ? '' : `: ${last}`}`,
            { hint: 'see the workers logs; run the coordinator again with --resume to try it once more' },
          );
        }
        // Completed with the chunk not done: a worker that handed it back as it stopped, and
        // whose fresh job was lost (or a late write of a dropped session, which was refused).
        if (job === 'cancelled' || job === 'completed' || job === undefined)
          await guard('sending a chunk again', () => send(chunk.seq));
      }
      // Looked at every pass, not with the job: the job's 5 s would stretch a shorter wait.
      if (Date.now() - lastDone() > warnAt) {
        const waited = `${warnAt / 1000} s`;
        warnAt *= 2;
        // A chunk a worker has taken says a worker runs: it is slow, or retrying what fails.
        logger.warn(
          { chunk: chunk.seq, state: found.state },
          found.state === 'active'
            ? `No chunk done for ${waited}, though a worker has taken chunk ${chunk.seq}: it may be retrying requests that fail (a service its address or network cannot reach, say); see that worker's log`
            : `No worker has taken chunk ${chunk.seq} in ${waited}; still waiting. Start one where the database and the service can be reached: ${workerCommand}`,
        );
      }
      await sleep(1000, signal);
    }
  }

  function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  return {
    process,
    metrics: () => metrics,
    holdsWork: () => holdsWork,
    async close() {
      if (heartbeat !== undefined) clearInterval(heartbeat);
      await listener?.end().catch(() => {});
    },
  };
}

function end(chunk: ChunkRow): number {
  return chunk.firstRow + chunk.rows;
}

/** Why a run stopped, as its row keeps it for `status`. */
function stopJson(error: unknown): { code?: string; message: string } | undefined {
  if (isGeobatchError(error)) return { code: error.code, message: error.message };
  return error instanceof Error ? { message: error.message } : undefined;
}

/**
 * How a worker for the run is started, as a command that runs as printed: the URL without its
 * password (in its user info or its query), which goes in PGPASSWORD or ~/.pgpass, and quoted for
 * a POSIX shell. Shown with `***` in its place, pasted as it was, the command failed on a password
 * of three asterisks; unquoted, a query's `&` sent a worker without it to the background.
 */
function runnableWorkerCommand(url: string, shown: string, emulator: boolean): string {
  const bare = safeUrl(url) === undefined ? { url: shown, had: false } : withoutPassword(url);
  const command = `\`geobatch worker --queue ${shellWord(scrub(bare.url))}${emulator ? ' --emulator' : ''}\``;
  return bare.had ? `${command}, with the password in PGPASSWORD or ~/.pgpass` : command;
}

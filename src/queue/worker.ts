/**
 * A worker of distributed runs: it takes chunks from the queue database, answers their rows
 * with the same engine a single run uses, and stores the outcomes for the coordinator.
 *
 * Everything about a run comes from the database (its recipe); credentials and the service's
 * address come from this process's environment. The job is built afresh for every chunk, on one
 * client per run, whose requests start at the rate shared by all workers of the run.
 *
 * A chunk ends in one of three ways: done (outcomes stored); failed for good, when the error
 * would fail it anywhere (a rejected key, a bad job: the coordinator stops the run with it); or
 * handed back (SIGTERM, a bug), which pg-boss retries, at most CHUNK_ATTEMPTS times in all.
 * A worker killed with -9 stops sending heartbeats, and pg-boss hands its chunk to another.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Job as BossJob } from 'pg-boss';
import type { Logger } from 'pino';
import { bounded } from '../cache/_pg-unanswered.js';
import { openRunCache, type RunCache } from '../cache/run-cache.js';
import { resolveCacheSettings } from '../cache/settings.js';
import type { GeoClient } from '../client/index.js';
import type { Env } from '../config/env.js';
import { emulatorEndpoints, type JobConfig } from '../config/load.js';
import { applyOverrides } from '../config/overrides.js';
import type { EmulatorHandle } from '../emulator/index.js';
import { createCounters, type EngineCounters } from '../engine/counters.js';
import { processRows } from '../engine/engine.js';
import { createStepCounters, processSteps } from '../engine/pipeline.js';
import {
  ConfigError,
  type GeobatchError,
  IoError,
  isFatalCode,
  isGeobatchError,
  isUsageCode,
  RunError,
  withContext,
} from '../errors.js';
import type { Mapping } from '../jobs/_fields.js';
import { portableCount, SwappedPoints } from '../jobs/_swapped.js';
import { withoutResume } from '../run/_summary-facts.js';
import { buildSteps, checkService, clientOf, engineOf, jobOf } from '../run/assemble.js';
import { scrub } from '../secrets.js';
import type { Outcome, ReadItem } from '../types.js';
import { COORDINATOR_TIMEOUT_MS, chunkQueue } from './_claim.js';
import { WORK, workOf } from './_counts.js';
import { itemClaims } from './_item-claims.js';
import { type Metrics, Spending } from './_metrics.js';
import { pause } from './_pause.js';
import { SCHEMA } from './_schema.js';
import { SharedFlights } from './_shared-flights.js';
import { workerDir } from './_worker-dir.js';
import { type ChunkContext, chunkError, failedChunk, finishChunk, setJobId, takeChunk } from './chunks.js';
import {
  guarded,
  isDatabaseGone,
  isUnanswered,
  ONCE_FIXED,
  openQueueDatabase,
  type QueueDatabase,
  queueError,
} from './database.js';
import { rateLimits, withoutRates } from './limits.js';
import { openSharedGate } from './rate.js';
import { configFromRecipe, workerCacheFlags } from './recipe.js';
import { processName, recipeOfRun, reportMetrics } from './runs.js';

export interface WorkerOptions {
  readonly url: string;
  /** Chunks worked on at once, per run. @default 2 (one is fetched while another ends) */
  readonly concurrency?: number;
  /** Exit once no live run has a chunk left to do. @default false */
  readonly exitWhenIdle?: boolean;
  /** False: neither read nor write the run's shared cache. @default the run's setting */
  readonly cache?: boolean;
  /** This worker's own embedded emulator (`--emulator`), for runs started with one. */
  readonly emulator?: EmulatorHandle;
  /** Only these runs (the coordinator's own worker). @default every run */
  readonly runs?: readonly string[];
  readonly env?: Env;
  readonly logger: Logger;
  /** SIGTERM: chunks in hand are handed back, and the worker ends. */
  readonly signal?: AbortSignal;
  /** An open queue database to use (the coordinator's); else one is opened and closed. */
  readonly db?: QueueDatabase;
}

export interface WorkerEnd {
  readonly chunksDone: number;
  readonly chunksFailed: number;
  readonly chunksHandedBack: number;
}

interface RunContext {
  readonly config: JobConfig;
  readonly client: GeoClient;
  readonly cache: RunCache | undefined;
  readonly since: string;
  /** The client's and the cache's counts since this context began, handed to chunks as they end. */
  readonly spending: Spending;
  /** Items the run's chunks in this worker are asking for, shared among them. */
  readonly flights: SharedFlights;
  close(): Promise<void>;
}

interface ChunkData {
  readonly run: string;
  readonly seq: number;
  readonly since: string;
}

/**
 * Codes a chunk fails with for good whose cause is the worker's own environment (its key, its
 * service address): the worker stops, rather than stop every run it takes, --resume included.
 * Not a quota: the account's, and the next run's workers meet it alike.
 */
const OWN_CODES: ReadonlySet<string> = new Set([
  'AUTH_REJECTED',
  'AUTH_MISSING',
  'ENDPOINT_NOT_FOUND',
  'SERVICE_UNREACHABLE',
]);

// A new run is found within this; the query is one index scan of a small table.
const DISCOVER_MS = 250;

export async function runWorker(options: WorkerOptions): Promise<WorkerEnd> {
  const { logger } = options;
  const env = options.env ?? process.env;
  const me = processName();
  const db = options.db ?? (await openQueueDatabase(options.url, { logger, onceFixed: ONCE_FIXED.worker }));
  const { path: root, removed } = await workerDir();
  if (removed > 0) logger.info({ removed }, `Removed the directories of ${removed} worker(s) that died`);
  const contexts = new Map<string, Promise<RunContext>>();
  const working = new Map<string, string>();
  const active = new Set<AbortController>();
  /** The run each chunk in work belongs to, by its controller. */
  const runOf = new Map<AbortController, string>();
  /** Runs a chunk of which this worker failed for good: its other chunks of them are handed back. */
  const failedRuns = new Set<string>();
  /** Runs no longer running (stopped, dropped) whose chunks in hand were stopped and handed back. */
  const ended = new Set<string>();
  /** The chunks being worked on, until they end: logged and counted, whatever pg-boss does then. */
  const running = new Set<Promise<void>>();
  const tally = { chunksDone: 0, chunksFailed: 0, chunksHandedBack: 0 };
  let idleChecks = 0;
  /** Failures of setting up a run that this worker's environment made (checkService). */
  const ownEnvironment = new WeakSet<GeobatchError>();
  /** The service refused this worker's key, or its address reached no service: it stops with that. */
  let refused: GeobatchError | undefined;
  const quit = new AbortController();
  function refuse(failure: GeobatchError): void {
    // The run this worker stopped needs its coordinator's --resume: a "--resume" in the check's
    // hint, made a worker's (cli/_worker-hint.ts), said the run's chunks stayed in the queue.
    const check = withoutResume(failure.context.hint ?? '').replace(/[.;,:\s]+$/, '');
    refused ??= withContext(failure, {
      ...failure.context,
      hint: `${check === '' ? '' : `${check}; `}this worker stops, as every chunk it took would fail the same way: once its environment is fixed, start it again, and resume the run it stopped from its coordinator`,
    });
    quit.abort(refused);
  }
  /** The failure that ended the search for work (the database down, refusing, not answering). */
  let searchFailed: GeobatchError | undefined;

  async function contextOf(run: string): Promise<RunContext> {
    const found = await guarded(db)('reading the run', () => recipeOfRun(db.pool, run));
    if (found === undefined) throw new ConfigError(`Run ${run} is not in ${db.shown}`);
    const { recipe, files } = found;
    let config = await configFromRecipe(recipe, files, join(root, run), env);
    const embedded = options.emulator !== undefined;
    if (recipe.emulator) {
      if (options.emulator !== undefined) {
        config = applyOverrides(config, {
          service: {
            endpoints: emulatorEndpoints(options.emulator.urls.origin),
            credentials: options.emulator.credentials,
          },
        });
      } else if (!env.GEOBATCH_EMULATOR_URL) {
        throw new ConfigError(`Run ${run} was started with --emulator, and worker ${me} has no emulator`, {
          hint: 'start the worker with --emulator, or export GEOBATCH_EMULATOR_URL',
        });
      }
    }
    try {
      checkService(config, env, { file: recipe.file, name: me });
    } catch (error) {
      // Credentials or a service address this worker's environment lacks: its own to fix.
      if (isGeobatchError(error)) ownEnvironment.add(error);
      throw error;
    }
    const gate = await openSharedGate({ pool: db.pool, schema: SCHEMA, run, limits: rateLimits(config) });
    const client = clientOf(withoutRates(config), logger, { sharedGate: gate });
    let cache: RunCache | undefined;
    try {
      const block = 'cache' in config.document ? config.document.cache : undefined;
      const flags =
        options.cache === false
          ? { location: false as const }
          : workerCacheFlags(recipe, options.url, env, block);
      const settings = resolveCacheSettings(block, config.dir, flags, env);
      cache =
        settings === undefined
          ? undefined
          : await openRunCache(config, { settings, logger, embeddedEmulator: embedded && recipe.emulator });
    } catch (error) {
      await client.close();
      await gate.close();
      throw error;
    }
    return {
      config,
      client,
      cache,
      since: found.since,
      flights: sharedFlights(cache?.writes === true ? cache : undefined, db, run),
      spending: new Spending(() => ({
        ...(client.metrics() as unknown as Metrics),
        ...(cache === undefined ? {} : { cache: cache.summary() as unknown as Metrics }),
      })),
      async close() {
        try {
          await cache?.close();
        } finally {
          await client.close();
          await gate.close();
        }
      },
    };
  }

  function contextFor(run: string): Promise<RunContext> {
    let context = contexts.get(run);
    if (context === undefined) {
      context = contextOf(run);
      contexts.set(run, context);
      // A run that could not be set up is tried again with its next chunk.
      context.catch(() => contexts.delete(run));
    }
    return context;
  }

  async function work(job: BossJob<ChunkData>): Promise<void> {
    const { run, seq, since } = job.data;
    // Stopping already: pg-boss can hand over a job between the stop and offWork (the chunk this
    // worker has just given back, sent again, under load). Its abort listener would never fire
    // on a signal aborted before, so it was worked on and handed back a second time. It goes
    // back to the queue untouched, as a fresh job, and counts nowhere.
    if (options.signal?.aborted === true && job.signal?.aborted !== true) {
      const again = await db.boss.send(chunkQueue(run), { run, seq, since }).catch(() => null);
      if (again === null) throw new RunError('ABORTED', 'the worker is stopping');
      await setJobId(db.pool, run, seq, again).catch(() => {});
      return;
    }
    const controller = new AbortController();
    /** What this attempt at the chunk counted (requests sent, items), kept if it is handed back. */
    const attempt = createCounters();
    const stop = () => controller.abort();
    options.signal?.addEventListener('abort', stop, { once: true });
    job.signal?.addEventListener('abort', stop, { once: true });
    active.add(controller);
    runOf.set(controller, run);
    let context: RunContext | undefined;
    try {
      try {
        context = await contextFor(run);
      } catch (error) {
        const failure = classified(error, `setting up run ${run}`);
        if (failure.code === 'QUEUE_UNUSABLE') throw failure;
        logger.error({ run, err: errorJson(failure) }, 'This worker cannot work on the run');
        await chunkError(db.pool, { run, seq, since }, errorJson(failure, me), true);
        tally.chunksFailed++;
        // Its credentials or service address missing, its cache not to be opened (a password it
        // lacks): every run it took would stop on it, every --resume included.
        if (options.runs === undefined && (ownEnvironment.has(failure) || failure.code === 'CACHE_UNUSABLE'))
          refuse(failure);
        return;
      }
      if (context.since !== since) {
        // A job of an earlier run of the same id (a run started afresh) is left alone...
        if (since < context.since) return;
        // ...and one of a run started afresh since this worker set it up gets the new run's job.
        const current = contexts.get(run);
        if (current !== undefined && (await current.catch(() => undefined)) === context) {
          contexts.delete(run);
          await context.close().catch(() => {});
        }
        context = await contextFor(run);
        if (context.since !== since) return;
      }
      stillThere();
      // Another chunk of the run failed for good: the run stops on it, and this chunk would only
      // ask the service for the same answer (a quota's 402) again. It stays queued: the
      // coordinator sends a chunk whose job ended undone again, on --resume too.
      if ((await failedChunk(db.pool, run)) !== undefined) return;
      const chunk = await takeChunk(db.pool, run, seq, me, since);
      if (chunk === undefined) return;
      // Listed by `status` from its first chunk taken, not only once it ends one: at a low rate
      // a chunk takes minutes, and workers at work read as none.
      await reportMetrics(db.pool, run, me, context.spending.read());
      const outcomes = await answer(context, chunk, controller.signal, attempt);
      await context.cache?.flush();
      stillThere();
      await reportMetrics(db.pool, run, me, context.spending.read());
      const spent = context.spending.take();
      let kept = false;
      try {
        kept = await finishChunk(db.pool, { run, seq, since }, outcomes.outcomes, outcomes.counts, spent);
      } finally {
        // Done by another worker already (or not stored): the next chunk this worker ends carries it.
        if (!kept) context.spending.giveBack(spent);
      }
      tally.chunksDone++;
    } catch (error) {
      let failure = classified(error, `working on chunk ${seq} of run ${run}`);
      // Stopped because the database went away (another chunk's query, or the search for work,
      // met it first): that is the cause to name, not the stop nor what the stop made fail.
      if (controller.signal.aborted || failure.code === 'ABORTED') failure = stoppedBy() ?? failure;
      const lost = db.lost();
      const final =
        !controller.signal.aborted &&
        (isFatalCode(failure.code) || isUsageCode(failure.code)) &&
        failure.code !== 'ABORTED' &&
        failure.code !== 'QUEUE_UNUSABLE';
      const spent = context?.spending.take() ?? {};
      // With the requests the attempt made (their HTTP count is in `spent`): the run's count of
      // requests sent must take them in as its count of HTTP requests does, or a run that handed
      // chunks back said "2408 HTTP attempts, retries included" of 1806 requests with no retry.
      const recorded = { ...spent, [WORK]: workOf(attempt) };
      // A database that does not answer takes no hand-back: waiting for it would hold the worker's
      // stop up by a timeout per chunk. The chunk stays active, which the next takeChunk accepts.
      const kept =
        lost === undefined &&
        (await chunkError(db.pool, { run, seq, since }, errorJson(failure, me), final, recorded).catch(
          () => false,
        ));
      if (!kept) context?.spending.giveBack(spent);
      if (final) {
        logger.error({ run, seq, err: errorJson(failure) }, 'Chunk failed: the run stops');
        tally.chunksFailed++;
        // The other chunks of the run this worker holds would only ask for the same answer (a
        // quota's 402) with every request waiting in the throttle: they stop and are handed back.
        failedRuns.add(run);
        for (const [other, ofRun] of runOf) if (ofRun === run && other !== controller) other.abort();
        // The key is this worker's own (its environment's): every chunk it took of any run would
        // fail on it, and stop that run. It stops, saying so, rather than wait for the next run.
        // The coordinator's own worker has the coordinator's key, whose run stops on it anyway.
        if (options.runs === undefined && OWN_CODES.has(failure.code)) refuse(failure);
        return;
      }
      tally.chunksHandedBack++;
      // Without the run's hint ("run again with --resume"): it is the coordinator's to give.
      const { hint: _hint, ...handedBack } = errorJson(failure);
      if (ended.has(run)) logger.info({ run, seq }, 'Chunk handed back: the run stopped or was dropped');
      else logger.warn({ run, seq, err: handedBack }, 'Chunk handed back');
      // A hand-back is not a failed attempt: pg-boss counts a thrown error against the chunk's
      // four, and a rolling restart of workers (SIGTERM each) would end a healthy run. A job
      // pg-boss cancelled (the coordinator stopped or started afresh) ends quietly; one this
      // worker gives up as it stops goes back to the queue as a fresh job.
      if (
        kept &&
        job.signal?.aborted !== true &&
        (options.signal?.aborted === true || refused !== undefined)
      ) {
        const again = await db.boss.send(chunkQueue(run), { run, seq, since }).catch(() => null);
        if (again !== null) {
          await setJobId(db.pool, run, seq, again).catch(() => {});
          return;
        }
      }
      if (job.signal?.aborted === true) return;
      // Stopped for a failure of the run's, or as the run ended: handed back, no attempt of its four.
      if (failedRuns.has(run) || ended.has(run)) return;
      throw failure;
    } finally {
      active.delete(controller);
      runOf.delete(controller);
      options.signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Requests this worker made for a run that no chunk's count holds: made for chunks whose end the
   * database did not take (it went away), or that another worker had done. The run's summary
   * counts fewer than the service did by these; said, rather than lost without a word. A run
   * dropped while this worker held chunks of it (a run writing the same files replaced it) took
   * its chunks' counts with it: that is the cause, and no summary will count them.
   */
  async function unrecorded(run: string, spent: Metrics): Promise<void> {
    const requests = (spent.requests as { total?: unknown } | undefined)?.total;
    if (typeof requests !== 'number' || requests <= 0) return;
    if (await dropped(run)) {
      logger.info(
        { run, requests },
        `${requests} HTTP request(s) this worker made for run ${run} are counted by no run: the run was dropped (a run writing the same files replaced it) while this worker held chunks of it`,
      );
      return;
    }
    logger.warn(
      { run, requests },
      `${requests} HTTP request(s) this worker made for run ${run} are in no chunk's count (the queue database did not take the chunk's end, or another worker had done the chunk): the run's summary counts that many fewer than the service did`,
    );
  }

  /** Whether the run is gone from the database (dropped); not asked of a database not answering. */
  async function dropped(run: string): Promise<boolean> {
    if (db.lost() !== undefined) return false;
    const found = await db.pool
      .query(`SELECT 1 FROM ${SCHEMA}.runs WHERE id = $1`, [run])
      .catch(() => undefined);
    return found !== undefined && found.rowCount === 0;
  }

  /** A run's context let go: what it spent that no chunk's count holds is said, then it closes. */
  async function closeRun(run: string, context: Promise<RunContext> | undefined): Promise<void> {
    await context
      ?.then(async (c) => {
        await unrecorded(run, c.spending.take());
        return c.close();
      })
      .catch(() => {});
  }

  /** Why the worker stopped, when the database made it stop. */
  function stoppedBy(): GeobatchError | undefined {
    return db.lost() ?? searchFailed;
  }

  /** `work`, or the failure that showed the database not answering, whichever comes first. */
  function untilGone<T>(work: Promise<T>): Promise<T> {
    if (db.gone.aborted) return Promise.reject(db.gone.reason);
    return new Promise<T>((resolve, reject) => {
      const onGone = () => reject(db.gone.reason);
      db.gone.addEventListener('abort', onGone, { once: true });
      work.then(resolve, reject).finally(() => db.gone.removeEventListener('abort', onGone));
    });
  }

  /** Throws the failure that showed the database not answering, if one has: no more writes. */
  function stillThere(): void {
    const lost = db.lost();
    if (lost !== undefined) throw lost;
  }

  /**
   * A failure as this worker reports it: the database down, shutting down or unreachable is
   * QUEUE_UNUSABLE (as the coordinator says), not a bug; an error of geobatch's own stays what
   * it is; anything else is INTERNAL.
   */
  function classified(error: unknown, doing: string): GeobatchError {
    if (isGeobatchError(error)) {
      // The shared rate's query unanswered (rate.ts): the database is not answering for every
      // query of this worker, whose search for work otherwise waited ten seconds more to see it.
      // Said as any query of the worker's that met it (what it did not answer, what to do).
      if (error instanceof IoError && error.code === 'QUEUE_UNUSABLE' && isUnanswered(error.cause)) {
        const failure = queueError(db.shown, "taking the run's shared rate", error.cause, db.onceFixed);
        db.lose(failure);
        return failure;
      }
      return error;
    }
    if (isDatabaseGone(error)) {
      const failure = queueError(db.shown, doing, error, db.onceFixed);
      if (isUnanswered(error)) db.lose(failure);
      return failure;
    }
    return new RunError('INTERNAL', scrub(error instanceof Error ? error.message : String(error)), {
      cause: error,
    });
  }

  async function answer(
    context: RunContext,
    { items, context: known }: { items: readonly ReadItem[]; context: ChunkContext },
    signal: AbortSignal,
    counters: EngineCounters,
  ) {
    const { config, client, cache } = context;
    // Each step's points, counted here and warned of by the coordinator for the whole run.
    const watched: { readonly mapping: Mapping; readonly points: SwappedPoints }[] = [];
    const built = await buildSteps(config, cache?.wrap(client) ?? client, cache, signal, (step) => {
      const points = new SwappedPoints();
      watched.push({ mapping: step.mapping, points });
      return points;
    });
    if (known.endedGroups !== undefined && built.length === 1)
      built[0]?.job.endedBefore?.(new Map(Object.entries(known.endedGroups)));
    const stepCounters = built.length > 1 ? createStepCounters(built) : undefined;
    // The first step's items in flight, a one-step job's or a pipeline's, are shared with the
    // other chunks of the run (see _shared-flights.ts for why a later step's are not): a
    // pipeline's first step bought 944 geocodes of 413 addresses in 10 chunks on 2 workers.
    const [head] = built;
    const first = config.steps[0];
    const shared =
      head?.answers === undefined || first === undefined ? undefined : cache?.answersFor(head.job, first);
    // Counted where the step's own counts are kept: a pipeline's run counts are their sum.
    const firstCounters = stepCounters?.[0]?.counters ?? counters;
    const view = shared === undefined ? undefined : context.flights.view(shared, firstCounters, signal);
    const steps =
      view === undefined ? built : built.map((step, i) => (i === 0 ? { ...step, answers: view } : step));
    const engine = { ...engineOf(config, steps, client), signal, counters };
    const input = (async function* () {
      yield* items;
    })();
    const flow =
      stepCounters === undefined
        ? processRows(input, jobOf(steps), engine)
        : processSteps(input, steps, { ...engine, stepCounters });
    const outcomes: Outcome[] = [];
    try {
      for await (const outcome of flow) outcomes.push(outcome);
    } finally {
      // Not waited for: its local part is done at once, and the database's (letting go of the
      // chunk's claims, whose answers the cache has) need not hold up the chunk's end.
      void view?.release();
    }
    return {
      outcomes,
      counts: {
        counters,
        points: watched.map(({ mapping, points }) => portableCount(points.count(), mapping)),
        ...(stepCounters === undefined
          ? {}
          : {
              steps: stepCounters.map((s) => ({
                counters: s.counters,
                passedThrough: s.passedThrough,
                passedIn: s.passedIn,
                http: s.http.count,
              })),
            }),
      },
    };
  }

  /** Follows the runs: works on each live one's queue, lets go of ended ones. */
  async function discover(): Promise<boolean> {
    const live = await db.pool.query<{ id: string; state: string }>(`SELECT id, state FROM ${SCHEMA}.runs`);
    const wanted = new Set(
      live.rows
        .filter((r) => r.state === 'running' && (options.runs === undefined || options.runs.includes(r.id)))
        .map((r) => r.id),
    );
    for (const run of wanted) {
      ended.delete(run);
      if (working.has(run)) continue;
      const id = await db.boss.work<ChunkData>(
        chunkQueue(run),
        { pollingIntervalSeconds: 0.5, batchSize: 1, localConcurrency: options.concurrency ?? 2 },
        async ([job]) => {
          if (job === undefined) return;
          const chunk = work(job);
          running.add(chunk);
          try {
            await chunk;
          } finally {
            running.delete(chunk);
          }
        },
      );
      working.set(run, id);
      logger.info({ run }, 'Working on run');
    }
    for (const [run] of working) {
      if (wanted.has(run)) continue;
      working.delete(run);
      // The run stopped (a chunk failed for good, its coordinator was stopped) or was dropped (a
      // run for the same files replaced it): the chunks in hand stop now and are handed back,
      // what they spent recorded. Left to end, they went on buying for seconds after the stop
      // (279 requests of a run a bad key had stopped, the last 4.8 s after it).
      ended.add(run);
      for (const [controller, ofRun] of runOf)
        if (ofRun === run) controller.abort(new RunError('ABORTED', `run ${run} ended`));
      await db.boss.offWork(chunkQueue(run)).catch(() => {});
      const context = contexts.get(run);
      contexts.delete(run);
      await closeRun(run, context);
    }
    return wanted.size > 0;
  }

  /** Nothing left for this worker: no live run has a chunk queued or in a worker's hands. */
  async function idle(): Promise<boolean> {
    if (active.size > 0) return false;
    const result = await db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${SCHEMA}.runs r
       WHERE r.state = 'running' AND r.seen_at > clock_timestamp() - $1 * interval '1 millisecond'
         AND ($2::text[] IS NULL OR r.id = ANY($2))
         AND (r.chunks IS NULL OR EXISTS (
           SELECT 1 FROM ${SCHEMA}.chunks c WHERE c.run = r.id AND c.state IN ('queued', 'active')))`,
      [COORDINATOR_TIMEOUT_MS, options.runs ?? null],
    );
    return Number(result.rows[0]?.n ?? 0) === 0;
  }

  try {
    logger.info({ queue: db.shown, worker: me }, 'Worker started');
    // The database known not to answer (a chunk's query met it first) ends the search for work at
    // once: its own query may be waiting on the same frozen database for its whole timeout.
    const stop = AbortSignal.any([
      db.gone,
      quit.signal,
      ...(options.signal === undefined ? [] : [options.signal]),
    ]);
    while (options.signal?.aborted !== true && refused === undefined) {
      stillThere();
      try {
        await untilGone(discover());
        if (options.exitWhenIdle === true) {
          idleChecks = (await idle()) ? idleChecks + 1 : 0;
          // Idle for a second in a row: not a gap between two runs of a script.
          if (idleChecks >= 4) break;
        }
      } catch (error) {
        const failure = queueError(db.shown, 'looking for work', error, db.onceFixed);
        if (isUnanswered(error)) db.lose(failure);
        searchFailed = failure;
        throw failure;
      }
      await pause(DISCOVER_MS, stop);
    }
    if (refused !== undefined) throw refused;
  } finally {
    const lost = db.lost();
    for (const controller of active) controller.abort(stoppedBy());
    const stopWork = () =>
      Promise.all(
        [...working.keys()].map((run) =>
          db.boss.offWork(chunkQueue(run), { wait: lost === undefined }).catch(() => {}),
        ),
      );
    const closeRuns = () => Promise.all([...contexts].map(([run, context]) => closeRun(run, context)));
    const closeDb = async () => {
      if (options.db === undefined) await db.close();
    };
    if (lost === undefined) {
      await stopWork();
      await closeRuns();
      await closeDb();
    } else {
      // Not answering, the database takes none of the writes that stopping makes (the chunks' ends,
      // pg-boss's, the cache's record of the run), each failing only on its timeout: one after
      // the other they held a frozen database's worker up for minutes. At once, the slowest sets
      // the pace. The chunks in hand end once aborted (their writes are not tried), within a few
      // seconds; pg-boss's account of them is not waited for, and closing the database ends it.
      const ended = Promise.allSettled([...running]);
      await Promise.all([stopWork(), closeRuns(), closeDb(), bounded(ended)]);
    }
    await rm(root, { recursive: true, force: true });
    logger.info(tally, 'Worker stopped');
  }
  return tally;
}

/**
 * The run's items in flight: shared among this worker's chunks, and claimed among all workers
 * when this worker writes to the cache they share (the answers are handed over through it).
 */
function sharedFlights(cache: RunCache | undefined, db: QueueDatabase, run: string): SharedFlights {
  if (cache === undefined) return new SharedFlights();
  return new SharedFlights({ remote: itemClaims(db.pool, run), written: () => cache.flush() });
}

/** An error as the chunk row keeps it: its code, scrubbed message and context, and who met it. */
function errorJson(error: unknown, worker?: string): Record<string, unknown> {
  const base = isGeobatchError(error)
    ? error.toJSON()
    : { code: 'INTERNAL', message: scrub(error instanceof Error ? error.message : String(error)) };
  return worker === undefined ? base : { ...base, worker };
}

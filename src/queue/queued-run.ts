/**
 * A run spec turned into a distributed run's: the rows go to the queue database's workers
 * (this process among them unless `--no-work`) instead of this process's engine. Everything
 * else about the run (reading, outputs, error report, checkpoint, summary) stays as it is.
 */
import { readFile, stat } from 'node:fs/promises';
import type { Logger } from 'pino';
import { isPostgresUrl, maskPassword, safeUrl, withoutPassword } from '../cache/_pg-url.js';
import type { CacheFlags } from '../cache/settings.js';
import type { JobConfig } from '../config/load.js';
import type { EmulatorHandle } from '../emulator/index.js';
import { ConfigError, UsageError } from '../errors.js';
import type { CacheSummary } from '../output/summary.js';
import { canonical } from '../run/_canonical-path.js';
import { checkpointOf, runReportOf } from '../run/_checks.js';
import { readJournal } from '../run/checkpoint.js';
import { outputsOf, type RunSpec } from '../run/spec.js';
import { scrub } from '../secrets.js';
import { shellWord } from '../shell-word.js';
import { DEFAULT_CHUNK_ROWS, openCoordinator } from './coordinator.js';
import { guarded, ONCE_FIXED, openQueueDatabase, type QueueDatabase } from './database.js';
import { rateLimits } from './limits.js';
import {
  ownWorkerEnv,
  type Recipe,
  type RecipeOverrides,
  readRecipeFiles,
  sharedCache,
  storedText,
} from './recipe.js';
import { findRun, runIdOf, targetsOf } from './runs.js';
import { runWorker } from './worker.js';

export interface QueueChoice {
  /** postgres:// URL of the queue database. */
  readonly url: string;
  /** This process works on chunks too. @default true */
  readonly work?: boolean;
  /** Rows per chunk. @default 2000 */
  readonly chunkRows?: number;
  /** Chunks this process's worker takes at once. @default 2 */
  readonly concurrency?: number;
}

export interface QueuedRun {
  readonly spec: RunSpec;
  readonly runId: string;
  close(): Promise<void>;
}

export async function queueRun(
  spec: RunSpec,
  config: JobConfig,
  choice: QueueChoice,
  context: {
    readonly overrides: RecipeOverrides;
    readonly cache: CacheFlags | undefined;
    readonly emulator: EmulatorHandle | undefined;
    readonly logger: Logger;
  },
): Promise<QueuedRun> {
  const chunkRows = choice.chunkRows ?? DEFAULT_CHUNK_ROWS;
  if (!Number.isSafeInteger(chunkRows) || chunkRows < 1)
    throw new ConfigError(`--chunk-rows: expected a whole number of rows, 1 or more, got ${chunkRows}`);
  const text = await readFile(config.file, 'utf8');
  refusePasswordInFile(config, text);
  const recipe: Recipe = {
    file: config.file,
    text: storedText(text, config.file),
    overrides: context.overrides,
    emulator: context.emulator !== undefined,
    cache: sharedCache(config, context.cache, process.env, context.logger),
  };
  // Said before anything is spent: without a cache the chunks hand each other no answers, and
  // the same 2,025 rows cost 1,711 requests on 2 workers where one process paid 420.
  if (recipe.cache.location === false)
    context.logger.warn(
      { chunkRows },
      `No request cache: the chunks of a distributed run then share no answers, so an item that several chunks hold is bought once in each (dedup reaches within a chunk of ${chunkRows} rows). For fresh answers bought once per run, use --cache-mode refresh instead of --no-cache`,
    );
  const files = await readRecipeFiles(config);
  // Paths as the file system knows them: a resume through a linked directory finds its run.
  const outputs = outputsOf(spec).map((output) => (output.path === '-' ? '-' : canonical(output.path)));
  const runId = runIdOf({
    jobFingerprint: spec.jobFingerprint,
    input: await inputIdentity(spec.input.path),
    output: outputs.join('\0'),
  });
  const resuming = spec.resume === true ? await resumedMark(spec, runId, choice.url) : undefined;
  const db = await openQueueDatabase(choice.url, {
    logger: context.logger,
    onceFixed: ONCE_FIXED.coordinator,
  });
  if (resuming !== undefined)
    await checkResumed(db, runId, resuming, context.logger).catch(async (error: unknown) => {
      await db.close();
      throw error;
    });
  const stopWorker = new AbortController();
  let worker: Promise<unknown> | undefined;
  const startWorker = () => {
    if (choice.work === false || worker !== undefined) return;
    worker = runWorker({
      url: choice.url,
      db,
      runs: [runId],
      logger: context.logger,
      signal: stopWorker.signal,
      // The cache's password, which the recipe leaves out, from this process's own settings.
      env: ownWorkerEnv(config, context.cache, process.env),
      ...(context.emulator === undefined ? {} : { emulator: context.emulator }),
      ...(choice.concurrency === undefined ? {} : { concurrency: choice.concurrency }),
      ...(recipe.cache.location === false ? { cache: false } : {}),
    }).catch((error: unknown) => {
      context.logger.error({ err: String(error) }, "The coordinator's own worker stopped");
    });
  };
  const coordinator = openCoordinator({
    db,
    url: choice.url,
    id: runId,
    job: spec.job,
    jobName: config.name,
    recipe,
    files,
    chunkRows,
    targets: targetsOf({ outputs, others: filesBesideOutputs(spec) }),
    resume: spec.resume === true,
    limits: rateLimits(config),
    logger: context.logger,
    onClaimed: startWorker,
    ...(spec.points === undefined ? {} : { points: spec.points.map((watched) => watched.points) }),
  });
  context.logger.info({ run: runId, queue: db.shown, chunkRows }, 'Distributed run');
  return {
    spec: {
      ...spec,
      process: coordinator.process,
      workKept: () => coordinator.holdsWork(),
      // Kept in the checkpoint: a resume without --queue is refused, and the advice names the queue.
      distributed: { queue: storedQueueUrl(choice.url), run: runId },
      // The workers' client metrics, added up; their caches' account goes to the summary's cache.
      metrics: () => {
        const { cache: _cache, ...client } = coordinator.metrics();
        return client;
      },
      ...(recipe.cache.location === false
        ? {}
        : {
            cache: {
              flush: async () => {},
              summary: () => cacheSummary(coordinator.metrics().cache, recipe, db.shown),
            },
          }),
    },
    runId,
    async close() {
      stopWorker.abort();
      await worker;
      await coordinator.close();
      await db.close();
    },
  };
}

/**
 * The job file's text goes into the queue database for the workers: a password written into its
 * cache URL would go with it. Refused, as literal keys are, naming the way that keeps it out.
 */
function refusePasswordInFile(config: JobConfig, text: string): void {
  const block = 'cache' in config.document ? config.document.cache : undefined;
  const location =
    typeof block === 'string' ? block : typeof block === 'object' && block !== null ? block.path : undefined;
  const password =
    location !== undefined && isPostgresUrl(location) ? (safeUrl(location)?.password ?? '') : '';
  // From a ${VAR} reference the text holds only the reference: nothing to refuse.
  if (password === '' || !(text.includes(password) || text.includes(decodeURIComponent(password)))) return;
  throw new ConfigError(
    `${config.file}: cache: the URL holds a password, which a distributed run would store in the queue database`,
    {
      file: config.file,
      path: 'cache',
      expected: 'a postgres:// URL without a password',
      hint: "give the password with PGPASSWORD or ~/.pgpass on every machine, or GEOBATCH_CACHE=postgres://... in each worker's environment",
    },
  );
}

/**
 * The queue's URL as the checkpoint keeps it and the advice gives it: without its password (in
 * its user info or its query), which is never stored; `***` for text that is no URL.
 */
export function storedQueueUrl(url: string): string {
  return safeUrl(url) === undefined ? maskPassword(url) : scrub(withoutPassword(url).url);
}

/**
 * The checkpoint a `--resume` takes up, when it is of this very run (the run id holds the job, the
 * input as it is and the outputs): the queue it records and the one given, for the claim to
 * refuse a database that does not hold the run. A checkpoint unreadable or of another run: the
 * session deals with it.
 */
async function resumedMark(
  spec: RunSpec,
  runId: string,
  url: string,
): Promise<{ path: string; queue: string; given: string } | undefined> {
  const path = checkpointOf(spec);
  if (path === undefined) return undefined;
  const mark = await readJournal(path).then(
    (journal) => journal?.distributed,
    () => undefined,
  );
  if (mark === undefined || mark.run !== runId) return undefined;
  return { path, queue: mark.queue, given: storedQueueUrl(url) };
}

/**
 * A checkpoint of this run resumed on a queue that does not hold the run. On another database
 * than the one it records (a typo, another server): refused, as made anew there the run would buy
 * again every row after the checkpoint and leave its chunks in the other for workers to go on
 * with. On the same one, the run was pruned: it is made anew, and said so.
 */
async function checkResumed(
  db: QueueDatabase,
  runId: string,
  resuming: { path: string; queue: string; given: string },
  logger: Logger,
): Promise<void> {
  if ((await guarded(db)('looking up the run', () => findRun(db.pool, runId))) !== undefined) return;
  if (resuming.queue === resuming.given) {
    logger.warn(
      { run: runId },
      `Run ${runId} of this checkpoint is no longer in the queue (pruned?): it is made anew, and the rows after the checkpoint's are answered again (what its workers answered of them, from the cache where it holds them)`,
    );
    return;
  }
  const queue = shellWord(resuming.queue);
  throw new UsageError(
    `Checkpoint ${resuming.path} is of the distributed run ${runId} on the queue ${resuming.queue}, which the queue ${resuming.given} does not hold: its workers' chunks are in the other database`,
    {
      file: resuming.path,
      field: 'queue',
      expected: `--queue ${queue}`,
      received: `--queue ${shellWord(resuming.given)}`,
      hint: `Run the same command with --queue ${queue} instead (the password, if the database needs one, from PGPASSWORD or ~/.pgpass). If the run is gone from there too (\`geobatch status --queue ${queue}\` does not list it), delete ${resuming.path} and the .partial files beside it to start over.`,
    },
  );
}

/** The workers' caches as one: their counts added up (CacheSummary's strings from the first). */
function cacheSummary(reported: unknown, recipe: Recipe, queue: string): CacheSummary {
  const r = (reported ?? {}) as Partial<CacheSummary>;
  const number = (value: unknown) => (typeof value === 'number' ? value : 0);
  return {
    store: 'postgres',
    location: r.location ?? (recipe.cache.location === 'queue' ? queue : String(recipe.cache.location)),
    mode: r.mode ?? (recipe.cache.mode as CacheSummary['mode'] | undefined) ?? 'use',
    hits: number(r.hits),
    misses: number(r.misses),
    expired: number(r.expired),
    writes: number(r.writes),
    requestsSaved: number(r.requestsSaved),
    problem: r.problem ?? null,
    uncached: Array.isArray(r.uncached) ? r.uncached.filter((name) => typeof name === 'string') : [],
  };
}

/** The files a run writes besides its outputs: its error report and run report. */
function filesBesideOutputs(spec: RunSpec): string[] {
  const html = runReportOf(spec);
  return [...(spec.report === null ? [] : [spec.report.path]), ...(html === null ? [] : [html])];
}

/** What tells one input from another for the run's id: the path, its size and modification time. */
async function inputIdentity(path: string): Promise<string> {
  if (path === '-') return '-';
  try {
    const info = await stat(path);
    return `${canonical(path)}\0${info.size}\0${info.mtimeMs}`;
  } catch {
    return path;
  }
}

/**
 * A job file, run: load it, apply the caller's overrides, optionally start the embedded emulator,
 * assemble and run, and close what was opened. The one entry point the CLI and the library share,
 * so that `geobatch run` and `runJobFile()` cannot drift apart.
 */
import { fstatSync, statSync } from 'node:fs';
import type { Logger } from 'pino';
import type { CacheFlags } from '../cache/settings.js';
import { keysOf } from '../client/_checks.js';
import { emulatorEndpoints, loadJobFile } from '../config/load.js';
import { applyOverrides, type Overrides } from '../config/overrides.js';
import type { EmulatorHandle } from '../emulator/index.js';
import type { StopDrain } from '../engine/engine.js';
import { isGeobatchError, UsageError } from '../errors.js';
import { checkSelection, type RowSelection, selectionKey } from '../input/sample.js';
import { createLogger } from '../log.js';
import { nearest } from '../nearest-word.js';
import type { RunSummary } from '../output/summary.js';
import type { QueueChoice } from '../queue/queued-run.js';
import type { RecipeOverrides } from '../queue/recipe.js';
import { resumeFlagsOf } from './_resume-flags.js';
import { assemble, checkLogFileOf } from './assemble.js';
import type { ProgressOptions } from './progress.js';
import { runJob } from './run.js';
import { logRunEnd, logRunRefused, logRunStart } from './run-log.js';
import type { RunSpec } from './spec.js';

export interface RunJobFileOptions extends Overrides {
  /** @default warnings and errors to standard error */
  readonly logger?: Logger;
  /** Run against an emulator: `true` starts the embedded one for this run; a handle uses that one. */
  readonly emulator?: boolean | EmulatorHandle;
  /** Continue from the checkpoint of an interrupted run. @default false */
  readonly resume?: boolean;
  /** With `resume`: start over when the checkpoint is of other input or another job. @default false */
  readonly restartIfChanged?: boolean;
  /** Read and plan only; send and write nothing. @default false */
  readonly dryRun?: boolean;
  /**
   * Show progress on standard error; an object also says where (the terminal's status line
   * shared with the log, the interval of progress records). @default false (a library caller has
   * its own display)
   */
  readonly progress?: boolean | ProgressOptions;
  /** Run only some rows: the first `limit`, or `sample` rows drawn with `seed`. @default every row */
  readonly rows?: RowSelection;
  /** Stops the run as Ctrl-C does: what is complete is kept, the checkpoint stays. */
  readonly signal?: AbortSignal;
  /**
   * Once `signal` aborts, the requests in flight may come back for up to `ms` milliseconds (no
   * row read and no request sent meanwhile) before they are aborted: what they answer is written
   * or cached rather than paid again by the resume. `cut` ends the wait. Not for a `queue` run.
   * @default none: aborted at once (`geobatch run` waits 5 s)
   */
  readonly drain?: StopDrain;
  /**
   * The request cache: `{}` uses GEOBATCH_CACHE, the job file's `cache:` or the default file, as
   * `geobatch run` does; `{ location }` names a file or a postgres:// URL; `{ location: false }`
   * and leaving it out use none. @default no cache (a library caller opts in)
   */
  readonly cache?: CacheFlags;
  /**
   * The file `logger` writes to, if any (`--log-file`): the run refuses it as its input, an output
   * or a report before anything is logged. @default none
   */
  readonly logFile?: string;
  /** Where `${VAR}` references, credentials and GEOBATCH_CACHE are read from. @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * A distributed run: the rows are answered by workers of the queue database in chunks (this
   * process among them unless `work: false`); outputs, report and summary are this run's, as
   * without a queue. @default none: this process answers every row
   */
  readonly queue?: QueueChoice;
}

/** Runs the job file at `path`; resolves to the run's summary however the run ended. */
/** Codes of the resources a run sets up (not of the job as written): refused runs that log run.end. */
const SET_UP_CODES: ReadonlySet<string> = new Set(['CACHE_UNUSABLE', 'QUEUE_UNUSABLE', 'LOCKED']);

/** Every option runJobFile takes: a key added to RunJobFileOptions and not here fails to compile. */
const OPTIONS = keysOf<RunJobFileOptions>()(
  'logger',
  'emulator',
  'resume',
  'restartIfChanged',
  'dryRun',
  'progress',
  'rows',
  'signal',
  'drain',
  'cache',
  'logFile',
  'env',
  'queue',
  'input',
  'inputFormat',
  'output',
  'errors',
  'format',
  'report',
  'concurrency',
  'rate',
  'formulaGuard',
  'service',
);

/**
 * Refuses an option runJobFile does not take, as createClient does: `concurency: 4` from plain
 * JavaScript ran at the default concurrency without a word.
 */
function checkOptionNames(options: object): void {
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || OPTIONS.includes(key)) continue;
    const near = nearest(key, OPTIONS);
    throw new UsageError(
      `Unknown option \`${key}\` of runJobFile${near === undefined ? '' : ` (did you mean \`${near}\`?)`}; it takes ${OPTIONS.join(', ')}`,
      { field: key, expected: `one of ${OPTIONS.join(', ')}`, received: key },
    );
  }
}

export async function runJobFile(path: string, options: RunJobFileOptions = {}): Promise<RunSummary> {
  checkOptionNames(options);
  const logger = options.logger ?? createLogger({ level: 'warn' });
  if (options.rows !== undefined) checkSelection(options.rows);
  if (options.drain !== undefined) checkDrain(options.drain);
  let config = applyOverrides(await loadJobFile(path, options.env), options);
  if (options.logFile !== undefined) checkLogFileOf(config, options.logFile, options.errors !== undefined);
  if (config.input.path === '-' && isStandardInput(path)) throw bothOnStandardInput(path);
  // The emulator and the queue (pg-boss) are loaded only by runs that use them: tens of MB each.
  const own =
    options.emulator === true
      ? await (await import('../emulator/index.js')).startEmulator({ preload: true })
      : undefined;
  const emulator = own ?? (typeof options.emulator === 'object' ? options.emulator : undefined);
  try {
    if (emulator !== undefined) {
      const service = {
        endpoints: emulatorEndpoints(emulator.urls.origin),
        credentials: emulator.credentials,
      };
      config = applyOverrides(config, { service });
      logger.info({ origin: emulator.urls.origin }, 'Running against the embedded emulator');
    }
    const queued = options.queue !== undefined && options.dryRun !== true ? options.queue : undefined;
    const settingUp = Date.now();
    // A run refused while it is set up (a cache or queue database it cannot use) still ends with
    // a run.end record, which a log collector waits for. A job that cannot run as written (a
    // credential not set) ends before any run, with its one plain line, as one that does not load.
    const refused = (error: unknown): never => {
      if (isGeobatchError(error) && SET_UP_CODES.has(error.code))
        logRunRefused(logger, config, error, settingUp, options.dryRun === true);
      throw error;
    };
    const {
      spec: assembled,
      client,
      cache,
    } = await assemble(config, {
      logger,
      resume: options.resume,
      dryRun: options.dryRun,
      progress: showsProgress(options.progress),
      reportNamed: options.errors !== undefined,
      signal: options.signal,
      // A distributed run's workers answer the rows and share the cache; this process may hold no key.
      ...(queued === undefined ? {} : { serviceElsewhere: queued.work === false }),
      ...(options.cache === undefined || queued !== undefined
        ? {}
        : {
            cache: {
              ...options.cache,
              embeddedEmulator: emulator !== undefined,
              ...(options.env === undefined ? {} : { env: options.env }),
            },
          }),
    }).catch(refused);
    let spec = withChoices(assembled, options);
    const distributed =
      queued === undefined
        ? undefined
        : await (await import('../queue/queued-run.js'))
            .queueRun(spec, config, queued, {
              overrides: recipeOverrides(options),
              cache: options.cache,
              emulator,
              logger,
            })
            .catch(async (error: unknown) => {
              await client.close();
              return refused(error);
            });
    if (distributed !== undefined) spec = distributed.spec;
    // A signal while the run was set up ends it before it starts (runJob): no "started" record.
    if (options.signal?.aborted !== true)
      logRunStart(logger, config, spec, { emulator: emulator !== undefined, selection: options.rows });
    const started = Date.now();
    try {
      const summary = await runJob(spec);
      logRunEnd(logger, config, summary);
      return summary;
    } catch (error) {
      logRunRefused(logger, config, error, started, options.dryRun === true);
      throw error;
    } finally {
      try {
        await distributed?.close();
        await cache?.close();
      } finally {
        await client.close();
      }
    }
  } finally {
    await own?.close();
  }
}

/** The command line's settings a worker applies too (never a logger, a signal or the emulator's service). */
function recipeOverrides(options: RunJobFileOptions): RecipeOverrides {
  const { input, inputFormat, output, errors, format, report, concurrency, rate, formulaGuard } = options;
  const picked = { input, inputFormat, output, errors, format, report, concurrency, rate, formulaGuard };
  return Object.fromEntries(
    Object.entries(picked).filter(([, value]) => value !== undefined),
  ) as RecipeOverrides;
}

function showsProgress(progress: RunJobFileOptions['progress']): boolean {
  return typeof progress === 'object' ? progress.enabled !== false : progress === true;
}

/**
 * What the command line adds to the assembled spec: where progress goes, and the row selection,
 * which is part of the fingerprint (a checkpoint of 50 sampled rows resumes only that sample).
 */
function withChoices(spec: RunSpec, options: RunJobFileOptions): RunSpec {
  const flags = resumeFlagsOf(options);
  return {
    ...spec,
    ...(options.restartIfChanged === true ? { restartIfChanged: true } : {}),
    ...(flags.length === 0 ? {} : { resumeFlags: flags }),
    ...(options.drain === undefined ? {} : { drain: options.drain }),
    ...(typeof options.progress === 'object' ? { progress: { ...spec.progress, ...options.progress } } : {}),
    ...(options.rows === undefined
      ? {}
      : {
          rows: options.rows,
          jobFingerprint: `${spec.jobFingerprint}${selectionKey(options.rows)}`,
          earlierFingerprints: (spec.earlierFingerprints ?? []).map(
            (earlier) => `${earlier}${selectionKey(options.rows)}`,
          ),
          jobParts: { ...spec.jobParts, selection: selectionKey(options.rows) },
        }),
  };
}

function checkDrain(drain: StopDrain): StopDrain {
  if (typeof drain.ms === 'number' && Number.isFinite(drain.ms) && drain.ms >= 0) return drain;
  throw new UsageError(
    `Expected \`drain.ms\` to be a number of milliseconds >= 0, got \`${String(drain.ms)}\``,
    {
      field: 'drain.ms',
      expected: 'a number of milliseconds >= 0',
      received: String(drain.ms),
    },
  );
}

/** Whether `path` is this process's standard input by another name (/dev/stdin, /dev/fd/0). */
function isStandardInput(path: string): boolean {
  try {
    const [file, stdin] = [statSync(path), fstatSync(0)];
    return file.dev === stdin.dev && file.ino === stdin.ino;
  } catch {
    return false;
  }
}

/**
 * The job file was read from standard input and the rows are to come from it too: the job file
 * took it all, and the run would read no row and write an empty output over the last one.
 */
function bothOnStandardInput(path: string): UsageError {
  return new UsageError(
    `${path}: the job file was read from standard input, and its input is standard input too`,
    {
      file: path,
      field: 'input',
      expected: 'the job file or the rows on standard input, not both',
      hint: 'save the job file and run it by its path (`geobatch run job.yaml < rows.csv`), or give the input as a file (`-i rows.csv`)',
    },
  );
}

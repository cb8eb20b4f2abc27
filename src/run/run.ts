/**
 * The composition root: lock -> reader -> engine -> writers (the outputs, the error report) ->
 * checkpoint -> summary -> rename -> run report. The one module that knows every stage; each stage
 * knows only its own.
 *
 * Thrown (before any row is read): usage and config problems (a target that is a directory
 * included), LOCKED, CHECKPOINT_MISMATCH, ABORTED (the signal fired before the run began).
 * Returned: a RunSummary for every run that started, however it ended; `exitCode` says how.
 */
import { createCounters, type EngineCounters } from '../engine/counters.js';
import { createStepCounters } from '../engine/pipeline.js';
import { isGeobatchError, isUsageCode, RunError } from '../errors.js';
import { groupsOf, selectionCap, selectsAll } from '../input/sample.js';
import { removeFile } from '../output/_sink.js';
import type { RunSummary } from '../output/summary.js';
import { lockedFiles, makeDirectories, refuseDirectoryTargets, runReportOf, validate } from './_checks.js';
import type { RowDigest } from './_input-digest.js';
import { openSession, type Session, warner } from './_open-session.js';
import { trackRunReport } from './_run-report.js';
import { cacheCounter, httpCounter, sessionSummary } from './_session-summary.js';
import { type EarlierErrors, earlierErrorReports, removeStaleErrorReports } from './_stale-errors.js';
import { removeStaleReports } from './_stale-reports.js';
import { noRows, summaryFileOf, writeSummaryFile } from './_summary-facts.js';
import { logWarnings } from './_swapped-points.js';
import { removeEmptyDirectories } from './_writable.js';
import { checkRunSpec } from './arguments.js';
import { type Committer, createCommitter } from './committer.js';
import { dryRun } from './dry-run.js';
import { acquireLock, type Lock, lockPath } from './lock.js';
import { sampleMemory } from './memory.js';
import { startProgress } from './progress.js';
import { runSession, type Tally } from './session.js';
import { outputsOf, type RunSpec } from './spec.js';

/** How long a stopped run's last cache flush waits for a file another process holds locked. */
const STOP_FLUSH_WAIT_MS = 2000;

export type { RunSummary } from '../output/summary.js';
export type { RunSpec } from './spec.js';

// The most a crash can make a run request again; an fsync every 2 s costs nothing measurable.
const CHECKPOINT_INTERVAL_MS = 2000;

export async function runJob(spec: RunSpec): Promise<RunSummary> {
  // A library caller's spec is not typed at run time: a part missing is named, not a TypeError.
  checkRunSpec(spec);
  // A signal that fired while the run was being set up (Ctrl-C during start-up) stops it here.
  if (spec.signal?.aborted === true)
    throw new RunError('ABORTED', 'The run was interrupted before it started');
  validate(spec);
  await refuseDirectoryTargets(spec);
  if (spec.dryRun === true) return dryRun(spec);
  const made = await makeDirectories(spec);
  // Standard output needs no lock, but an error report beside it is written through a .partial.
  let locks: Lock[] = [];
  // A run refused as it opens (a mapped column the header lacks) leaves no directory it made for
  // nothing; one that stopped keeps them, for the summary its caller writes there.
  let refused = false;
  try {
    locks = await acquireLocks(lockedFiles(spec), warner(spec));
    return await runOpened(spec, await openSession(spec));
  } catch (error) {
    refused = isGeobatchError(error) && isUsageCode(error.code);
    throw error;
  } finally {
    for (const lock of locks) await lock.release();
    if (refused) removeEmptyDirectories(made);
  }
}

/** A lock per file, in order; none is kept when one is refused. */
async function acquireLocks(files: readonly string[], onWarning: (message: string) => void): Promise<Lock[]> {
  const locks: Lock[] = [];
  try {
    for (const file of files) locks.push(await acquireLock(lockPath(file), onWarning));
    return locks;
  } catch (error) {
    for (const lock of locks) await lock.release();
    throw error;
  }
}

async function runOpened(spec: RunSpec, session: Session): Promise<RunSummary> {
  const started = Date.now();
  // What the summaries this run may replace say of their error reports, read before any goes.
  const earlierErrors = await earlierErrorReports(
    outputsOf(spec).map((o) => o.path),
    summaryFileOf(spec),
    session.journal,
  );
  const counters = createCounters();
  const stepCounters = spec.steps === undefined ? undefined : createStepCounters(spec.steps);
  const earlier = session.journal?.counters ?? createCounters();
  const fromRow = session.journal?.committedRows ?? 0;
  const tally: Tally = { committedRows: fromRow, written: 0, reported: 0 };
  const memory = sampleMemory();
  const http = httpCounter(spec, session.journal, counters);
  // A selection of whole groups ends where a group does, which no share of the input tells.
  const unsized = !selectsAll(spec.rows) && groupsOf(spec.job) !== undefined;
  const progress = startProgress(
    () => ({
      rowsDone: tally.committedRows,
      rowsRead: fromRow + counters.rowsRead,
      rowsFailed: earlier.rowsFailed + counters.rowsFailed,
      requests: earlier.requestsSent + counters.requestsSent,
      bytesRead: session.reader.bytesRead(),
      bytesTotal: unsized ? undefined : session.reader.sizeBytes,
      position: unsized ? undefined : session.reader.position?.(),
      rowsCap: selectionCap(spec.rows, groupsOf(spec.job)),
    }),
    spec.logger,
    spec.progress,
  );
  const report = trackRunReport(
    runReportOf(spec),
    session.files,
    () => ({
      rows: tally.written,
      failed: counters.rowsFailed,
      requests: http.session(),
      throttled: throttled(spec),
    }),
    spec.logger,
    spec.job.locate === undefined ? undefined : (row) => spec.job.locate?.(row),
  );
  const ended = await runSession(
    session.reader,
    report.files,
    {
      job: spec.job,
      ...(spec.steps === undefined ? {} : { steps: spec.steps, stepCounters }),
      engine: spec.engine,
      ...(spec.process === undefined ? {} : { process: spec.process }),
      ...(spec.workKept === undefined ? {} : { workKept: spec.workKept }),
      signal: spec.signal,
      ...(spec.drain === undefined ? {} : { drain: spec.drain }),
      counters,
      // A finishing run's journal stays as it is until the files are in place.
      committer:
        session.journal?.finishing === undefined
          ? sessionCommitter(
              spec,
              session,
              earlier,
              counters,
              http,
              cacheCounter(spec, session.journal),
              earlierErrors,
            )
          : undefined,
      fromRow,
      finishing: session.journal?.finishing !== undefined,
      dropCheckpoint: async () => {
        if (session.journalPath !== undefined) await removeFile(session.journalPath);
      },
      logger: spec.logger,
    },
    tally,
  );
  progress.stop();
  memory.stop();
  report.stop();
  // A stop must end within the signal's guard (cli/_signals.ts: the drain's 5 s and 10 s more)
  // with its summary written: it waits less for a cache file another program holds locked.
  await spec.cache?.flush(spec.signal?.aborted === true ? STOP_FLUSH_WAIT_MS : undefined);
  const empty = ended.error === undefined && fromRow + counters.rowsRead === 0;
  const summary = sessionSummary(spec, session, {
    ...ended,
    error: empty ? noRows(spec, session.reader) : ended.error,
    counters,
    earlier,
    httpRequests: http.earlier + http.session(),
    tally,
    fromRow,
    started,
    peakRss: memory.peakRss(),
    stepCounters,
  });
  logWarnings(summary, spec.logger);
  // After the summary: the report shows it, including whether the summary file could be written.
  const written = await report.write(await writeSummaryFile(spec, summary));
  await removeStaleReports(
    written,
    session.journal,
    { runReport: written.runReport, summaryFile: written.summaryFile },
    spec.logger,
  );
  await removeStaleErrorReports(written, earlierErrors, spec.logger);
  return written;
}

/** 429 answers the client has had in this session. */
function throttled(spec: RunSpec): number {
  const count = (spec.metrics?.() as { throttled429?: unknown } | undefined)?.throttled429;
  return typeof count === 'number' ? count : 0;
}

function sessionCommitter(
  spec: RunSpec,
  session: Session,
  earlier: EngineCounters,
  counters: EngineCounters,
  httpRequests: { readonly earlier: number; readonly session: () => number },
  cache: ReturnType<typeof cacheCounter>,
  earlierErrors: readonly EarlierErrors[],
): Committer | undefined {
  if (session.journalPath === undefined) return undefined;
  return createCommitter({
    path: session.journalPath,
    job: spec.jobFingerprint,
    ...(spec.jobParts === undefined ? {} : { jobParts: spec.jobParts }),
    input: session.input,
    sideInputs: session.sideInputs,
    ...(session.digest === undefined
      ? {}
      : { committedDigest: (rows: number) => (session.digest as RowDigest).digest(rows) }),
    outputs: session.files.outputs,
    report: session.files.report,
    stats: () => session.files.stats(),
    earlier,
    session: counters,
    httpRequests,
    cache: cache.committed(),
    endFiles: { runReport: runReportOf(spec), summaryFile: summaryFileOf(spec) },
    earlierErrors,
    startedAt: session.journal?.startedAt ?? new Date().toISOString(),
    earlierElapsedMs: session.journal?.elapsedMs ?? 0,
    intervalMs: spec.checkpoint?.intervalMs ?? CHECKPOINT_INTERVAL_MS,
    ...(spec.distributed === undefined ? {} : { distributed: spec.distributed }),
    ...(spec.resumeFlags === undefined ? {} : { flags: spec.resumeFlags }),
  });
}

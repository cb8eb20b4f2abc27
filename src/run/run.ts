/**
 * The composition root: lock -> reader -> engine -> writers (the outputs, the error report) ->
 * checkpoint -> summary -> rename -> run report. The one module that knows every stage; each stage
 * knows only its own.
 *
 * Thrown (before any row is read): usage and config problems (a target that is a directory
 * included), LOCKED, CHECKPOINT_MISMATCH, ABORTED (the signal fired before the run began).
 * Returned: a RunSummary for every run that started, however it ended; `exitCode` says how.
 */
import { addCounters, createCounters, type EngineCounters } from '../engine/counters.js';
import { createStepCounters, type StepCounters } from '../engine/pipeline.js';
import { IoError, isGeobatchError, RunError } from '../errors.js';
import { openReader } from '../input/open.js';
import type { InputReader } from '../input/reader.js';
import { groupsOf, selectionCap, selectRows, selectsAll } from '../input/sample.js';
import { removeFile } from '../output/_sink.js';
import { openRunFiles, type RunFiles, sealedRunFiles } from '../output/files.js';
import {
  buildSummary,
  type OutputSummary,
  type ResumeNext,
  type RunSummary,
  type StepSummary,
} from '../output/summary.js';
import {
  checkpointOf,
  lockedFiles,
  makeDirectories,
  refuseDirectoryTargets,
  runReportOf,
  validate,
} from './_checks.js';
import { foundCheckpoint } from './_found-checkpoint.js';
import { digested, RowDigest } from './_input-digest.js';
import { checkOutputColumns } from './_output-columns.js';
import { startOver } from './_restart.js';
import { trackRunReport } from './_run-report.js';
import {
  clientRequests,
  common,
  noRows,
  summaryFileOf,
  withoutResumeHint,
  writeSummaryFile,
} from './_summary-facts.js';
import { checkFinishing, unreadInput } from './_unplaced.js';
import {
  type FinishingMark,
  fingerprintInput,
  type InputFingerprint,
  type Journal,
  outputMarks,
  readJournal,
  verifyJournal,
  verifyTargets,
} from './checkpoint.js';
import { type Committer, createCommitter } from './committer.js';
import { dryRun } from './dry-run.js';
import { acquireLock, type Lock, lockPath } from './lock.js';
import { checkMappedColumns } from './mapped-columns.js';
import { sampleMemory } from './memory.js';
import { startProgress } from './progress.js';
import { runSession, type SessionEnd, type Tally } from './session.js';

export type { RunSummary } from '../output/summary.js';
export type { RunSpec } from './spec.js';

import { outputsOf, type RunSpec } from './spec.js';

// The most a crash can make a run request again; an fsync every 2 s costs nothing measurable.
const CHECKPOINT_INTERVAL_MS = 2000;

export async function runJob(spec: RunSpec): Promise<RunSummary> {
  // A signal that fired while the run was being set up (Ctrl-C during start-up) stops it here.
  if (spec.signal?.aborted === true)
    throw new RunError('ABORTED', 'The run was interrupted before it started');
  validate(spec);
  await refuseDirectoryTargets(spec);
  if (spec.dryRun === true) return dryRun(spec);
  await makeDirectories(spec);
  // Standard output needs no lock, but an error report beside it is written through a .partial.
  const locks = await acquireLocks(lockedFiles(spec), warner(spec));
  try {
    return await runOpened(spec, await openSession(spec));
  } finally {
    for (const lock of locks) await lock.release();
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

interface Session {
  readonly reader: InputReader;
  readonly input: InputFingerprint;
  readonly journal: Journal | undefined;
  readonly journalPath: string | undefined;
  readonly files: RunFiles;
  /** Standard input's rows as read, for the journal. */
  readonly digest: RowDigest | undefined;
}

async function openSession(spec: RunSpec): Promise<Session> {
  const path = checkpointOf(spec);
  let journal = path === undefined ? undefined : await readJournal(path);
  const outputs = outputsOf(spec);
  if (path !== undefined && journal !== undefined && spec.resume !== true)
    throw await foundCheckpoint(spec, journal, path);
  if (journal === undefined && spec.resume === true)
    spec.logger.info('No checkpoint found: starting from the first row');
  // A finishing resume needs no row: standard input, whose fingerprint is its rows, is only
  // checked (checkPiped), and not at all from a terminal.
  if (path !== undefined && journal?.finishing !== undefined && spec.input.path === '-') {
    const input = fingerprintInput('-', undefined, undefined);
    if (await stillValid(spec, journal, path, input)) {
      await checkPiped(spec, journal, path);
      return finishingSession(spec, journal, journal.finishing, path, input, unreadInput(spec.input));
    }
    journal = undefined;
  }
  const opened = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: warner(spec),
  });
  if (spec.mapped !== undefined && opened.format === 'csv') checkMappedColumns(spec.mapped, opened.columns());
  const checked = checkOutputColumns(opened, outputs, spec.job.columns);
  const selected = selectRows(checked, spec.rows, groupsOf(spec.job));
  const input = fingerprintInput(spec.input.path, selected.sizeBytes, selected.mtimeMs);
  if (path !== undefined && journal !== undefined && !(await stillValid(spec, journal, path, input))) {
    journal = undefined;
  }
  if (path !== undefined && journal !== undefined) {
    // A journal of an earlier version kept no digest of the rows.
    if (spec.input.path === '-' && journal.committedDigest === undefined)
      spec.logger.warn('Resuming from standard input: the same data must be piped again');
  }
  if (path !== undefined && journal?.finishing !== undefined)
    return finishingSession(spec, journal, journal.finishing, path, input, selected);
  let files: RunFiles;
  try {
    files = await openFiles(spec, selected, journal);
  } catch (error) {
    // Its .partial files changed or removed: a checkpoint that can only be started over.
    if (path === undefined || journal === undefined || !(await restarted(spec, journal, path, error)))
      throw error;
    journal = undefined;
    files = await openFiles(spec, selected, journal);
  }
  // On resume, the rows read again must be the rows the journal committed.
  const committed =
    path !== undefined && journal?.committedDigest !== undefined
      ? {
          rows: journal.committedRows,
          digest: journal.committedDigest,
          journalPath: path,
          stopped: () => spec.signal?.aborted === true,
        }
      : undefined;
  // Standard input is known by its rows: the journal keeps their digest (run/_input-digest.ts).
  const digest = path !== undefined && spec.input.path === '-' ? new RowDigest(committed) : undefined;
  const reader = digest === undefined ? selected : digested(selected, digest, committed);
  return { reader, input, journal, journalPath: path, files, digest };
}

/**
 * What is piped to a resume that only puts a finished run's files in place: nothing (a nightly job
 * that pipes nothing, or a terminal, which is not read) is fine; rows must be the rows that run
 * read, all of them and no more, or that night's data would be dropped without a word
 * (CHECKPOINT_MISMATCH says so instead). Nothing is sent or written for them.
 */
async function checkPiped(spec: RunSpec, journal: Journal, path: string): Promise<void> {
  const stdin = spec.stdin ?? process.stdin;
  if ((stdin as { isTTY?: boolean }).isTTY === true || journal.committedDigest === undefined) return;
  const opened = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: warner(spec),
  });
  const selected = selectRows(opened, spec.rows, groupsOf(spec.job));
  const committed = {
    rows: journal.committedRows,
    digest: journal.committedDigest,
    journalPath: path,
    stopped: () => spec.signal?.aborted === true,
  };
  let read = 0;
  for await (const item of digested(selected, new RowDigest(committed), committed, { emptyOk: true }))
    read = item.ref.index + 1;
  if (read > committed.rows)
    throw new IoError(
      'CHECKPOINT_MISMATCH',
      `Checkpoint ${path} was made from other input: standard input has ${read} rows, and the run being finished read ${committed.rows}`,
      {
        file: path,
        expected: `the ${committed.rows} rows the run read, or nothing`,
        received: `${read} rows`,
        hint: `Resume with nothing on standard input (< /dev/null) to put the finished run's files in place, then run again for the new rows; or delete ${path} and the .partial files to start over.`,
      },
    );
}

/** The run's files: fresh, or continuing `journal`'s. */
function openFiles(spec: RunSpec, reader: InputReader, journal: Journal | undefined): Promise<RunFiles> {
  return openRunFiles({
    outputs: outputsOf(spec),
    report: spec.report,
    jobKind: spec.job.kind,
    jobColumns: spec.job.columns,
    inputColumns: () => reader.columns(),
    onWarning: warner(spec),
    ...(journal === undefined ? {} : { resume: { outputs: outputMarks(journal), report: journal.report } }),
  });
}

/** A session that only renames the files of a run that had written every row (Journal.finishing). */
function finishingSession(
  spec: RunSpec,
  journal: Journal,
  finishing: FinishingMark,
  path: string,
  input: InputFingerprint,
  reader: InputReader,
): Session {
  const unread = spec.input.path === '-' ? '; standard input is not read' : '';
  spec.logger.info(`The run being resumed had written every row: putting its files in place${unread}`);
  const files = sealedRunFiles(outputMarks(journal), journal.report, finishing);
  return { reader, input, journal, journalPath: path, files, digest: undefined };
}

/**
 * Whether the checkpoint is of this job and input (verifyJournal) and of this run's files
 * (verifyTargets), and, for a run told to start over, whether a finishing checkpoint's files are
 * as they were sealed (checkFinishing). When they are not, CHECKPOINT_MISMATCH stops the run,
 * unless the run was told to start over then (`restartIfChanged`): the checkpoint and its .partial
 * files are deleted (run/_restart.ts), a warning says why, and false lets the session start from
 * the first row.
 */
async function stillValid(
  spec: RunSpec,
  journal: Journal,
  path: string,
  input: InputFingerprint,
): Promise<boolean> {
  const outputs = outputsOf(spec).map((output) => output.path);
  try {
    verifyJournal(journal, path, spec.jobFingerprint, input, spec.jobParts);
    verifyTargets(journal, path, outputs, spec.report?.path ?? null);
    // Found here only when it makes the run start over: otherwise the session finds it, after
    // putting in place what it can (run/session.ts).
    if (spec.restartIfChanged === true && journal.finishing !== undefined) await checkFinishing(journal);
    return true;
  } catch (error) {
    if (await restarted(spec, journal, path, error)) return false;
    throw error;
  }
}

/**
 * Whether the run started over from the checkpoint `error` refuses: only with `restartIfChanged`
 * and for CHECKPOINT_MISMATCH; the checkpoint and its .partial files are then deleted.
 */
async function restarted(spec: RunSpec, journal: Journal, path: string, error: unknown): Promise<boolean> {
  if (spec.restartIfChanged !== true || !isGeobatchError(error) || error.code !== 'CHECKPOINT_MISMATCH')
    return false;
  await startOver(spec, journal, path, error);
  // Its start was the set-aside checkpoint's (assemble.ts resumedStart): a refresh starts now.
  spec.cache?.restarted?.();
  return true;
}

async function runOpened(spec: RunSpec, session: Session): Promise<RunSummary> {
  const started = Date.now();
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
      counters,
      // A finishing run's journal stays as it is until the files are in place.
      committer:
        session.journal?.finishing === undefined
          ? sessionCommitter(spec, session, earlier, counters, http)
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
  await spec.cache?.flush();
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
  // After the summary: the report shows it, including whether the summary file could be written.
  return report.write(await writeSummaryFile(spec, summary));
}

/** 429 answers the client has had in this session. */
function throttled(spec: RunSpec): number {
  const count = (spec.metrics?.() as { throttled429?: unknown } | undefined)?.throttled429;
  return typeof count === 'number' ? count : 0;
}

/** HTTP requests: the earlier sessions' (from the journal) and this session's (the client's count). */
function httpCounter(spec: RunSpec, journal: Journal | undefined, counters: EngineCounters) {
  return {
    earlier: journal?.httpRequests ?? journal?.counters.requestsSent ?? 0,
    session: () => clientRequests(spec) ?? counters.requestsSent,
  };
}

interface SessionFacts extends SessionEnd {
  readonly counters: EngineCounters;
  readonly earlier: EngineCounters;
  readonly httpRequests: number;
  readonly tally: Tally;
  readonly fromRow: number;
  readonly started: number;
  readonly peakRss: number;
  readonly stepCounters: readonly StepCounters[] | undefined;
}

function sessionSummary(spec: RunSpec, session: Session, end: SessionFacts): RunSummary {
  const stats = session.files.stats();
  const elapsed = Date.now() - end.started;
  const error = end.checkpointKept ? end.error : withoutResumeHint(end.error);
  return buildSummary({
    ...common(spec, session.reader, error, addCounters(end.earlier, end.counters), end.peakRss),
    outputs: outputsOf(spec).map(
      (output, i): OutputSummary => ({
        path: output.path,
        format: output.format,
        records: stats.outputs[i]?.records ?? 0,
        written: end.filesWritten || end.placed.includes(output.path),
      }),
    ),
    report:
      spec.report === null
        ? null
        : {
            path: spec.report.path,
            format: spec.report.format,
            rows: stats.reportRows,
            written: end.filesWritten || end.placed.includes(spec.report.path),
          },
    summaryFile: summaryFileOf(spec),
    runReport: runReportOf(spec),
    ...(end.stepCounters === undefined ? {} : { steps: end.stepCounters.map(stepSummary) }),
    httpRequests: end.httpRequests,
    rowsWritten: end.tally.committedRows,
    // Each output that has columns of its own (CSV, GeoPackage) counts them; the rows are the same.
    unknownKeyRows: Math.max(0, ...stats.outputs.map((output) => output.unknownKeyRows)),
    startedAt: session.journal?.startedAt ?? new Date(end.started).toISOString(),
    durationMs: (session.journal?.elapsedMs ?? 0) + elapsed,
    session: { ms: elapsed, rows: end.tally.written, requests: end.counters.requestsSent },
    resume: {
      resumed: session.journal !== undefined,
      fromRow: end.fromRow,
      checkpoint: end.checkpointKept ? (session.journalPath ?? null) : null,
      next: nextStep(spec, end),
    },
  });
}

/** How the checkpoint kept, if any, is taken up (RunSummary's `resume.next`). */
function nextStep(spec: RunSpec, end: SessionEnd): ResumeNext | null {
  if (!end.checkpointKept) return null;
  const mismatch = isGeobatchError(end.error) && end.error.code === 'CHECKPOINT_MISMATCH';
  // A finishing checkpoint reads nothing: what it needs is its files, as they were sealed.
  if (end.finishing) return mismatch ? 'start-over' : 'resume';
  return spec.input.path === '-' ? 'resume-same-input' : 'resume';
}

function sessionCommitter(
  spec: RunSpec,
  session: Session,
  earlier: EngineCounters,
  counters: EngineCounters,
  httpRequests: { readonly earlier: number; readonly session: () => number },
): Committer | undefined {
  if (session.journalPath === undefined) return undefined;
  return createCommitter({
    path: session.journalPath,
    job: spec.jobFingerprint,
    ...(spec.jobParts === undefined ? {} : { jobParts: spec.jobParts }),
    input: session.input,
    ...(session.digest === undefined
      ? {}
      : { committedDigest: (rows: number) => (session.digest as RowDigest).digest(rows) }),
    outputs: session.files.outputs,
    report: session.files.report,
    stats: () => session.files.stats(),
    earlier,
    session: counters,
    httpRequests,
    startedAt: session.journal?.startedAt ?? new Date().toISOString(),
    earlierElapsedMs: session.journal?.elapsedMs ?? 0,
    intervalMs: spec.checkpoint?.intervalMs ?? CHECKPOINT_INTERVAL_MS,
  });
}

function warner(spec: RunSpec): (message: string) => void {
  return (message) => spec.logger.warn(message);
}

function stepSummary(step: StepCounters): StepSummary {
  const c = step.counters;
  return {
    name: step.name,
    rows: {
      reached: c.rowsRead - step.passedThrough,
      ok: c.rowsOk,
      failed: c.rowsFailed - step.passedThrough,
    },
    requests: {
      sent: c.requestsSent,
      itemsSent: c.itemsSent,
      savedByDedup: c.dedupHits,
      savedByBatching: c.itemsSent - c.requestsSent,
      savedByLocalAnswers: c.localHits,
    },
  };
}

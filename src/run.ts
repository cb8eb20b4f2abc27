/**
 * The composition root: lock -> reader -> engine -> writers (output, report) -> checkpoint ->
 * summary -> rename. The one module that knows every stage; each stage knows only its own.
 *
 * Thrown (before any row is read): usage and config problems, LOCKED, CHECKPOINT_MISMATCH.
 * Returned: a RunSummary for every run that started, however it ended; `exitCode` says how.
 */
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { checkAccount } from './engine/accounting.js';
import {
  fingerprintInput,
  type InputFingerprint,
  type Journal,
  journalPath,
  readJournal,
  verifyJournal,
} from './engine/checkpoint.js';
import { type Committer, createCommitter } from './engine/committer.js';
import { addCounters, createCounters, type EngineCounters } from './engine/counters.js';
import { dryRunJob } from './engine/dry-run.js';
import { processRows } from './engine/engine.js';
import type { AnyJob } from './engine/job.js';
import { acquireLock, lockPath } from './engine/lock.js';
import { sampleMemory } from './engine/memory.js';
import type { EngineOptions } from './engine/options.js';
import type { ProgressOptions } from './engine/progress.js';
import { startProgress } from './engine/progress.js';
import { GeobatchError, IoError, isGeobatchError, UsageError } from './errors.js';
import { openReader } from './input/open.js';
import type { CsvReadOptions, InputEncoding, InputFormat, InputReader } from './input/reader.js';
import { partialPath, removeFile, type Sink } from './output/_sink.js';
import { createWriter, openSink } from './output/open.js';
import { createReportWriter, type ReportFormat } from './output/report.js';
import { buildSummary, type RunSummary, summaryPath, writeSummary } from './output/summary.js';
import type { OutputFormat, RecordWriter } from './output/writer.js';
import type { ReadItem } from './types.js';

export type { RunSummary } from './output/summary.js';

export interface RunSpec {
  /** The job, built and ready (its client, if any, included). */
  readonly job: AnyJob;
  /** Identifies the job and its settings: a checkpoint made under another fingerprint is refused. */
  readonly jobFingerprint: string;
  readonly input: {
    /** A file path, or `-` for standard input. */
    readonly path: string;
    readonly format: InputFormat;
    /** @default 'utf-8' */
    readonly encoding?: InputEncoding;
    readonly csv?: CsvReadOptions;
  };
  readonly output: {
    /** A file path (written as `<path>.partial`, renamed on success), or `-` for standard output. */
    readonly path: string;
    readonly format: OutputFormat;
    /** Neutralise spreadsheet formulas in CSV text cells. @default true */
    readonly formulaGuard?: boolean;
    /** CSV output delimiter. @default ',' */
    readonly delimiter?: string;
  };
  /** The error report file; null writes none (failed rows are still in the output and counted). */
  readonly report: { readonly path: string; readonly format: ReportFormat } | null;
  /** The summary JSON. @default `<output>.summary.json` for a file output, none for `-` */
  readonly summaryPath?: string | null;
  readonly engine?: EngineOptions;
  readonly checkpoint?: {
    /** @default true (false when the output is `-`, which cannot be resumed) */
    readonly enabled?: boolean;
    /** How often output and report are fsync'd and the journal written. @default 5000 */
    readonly intervalMs?: number;
    /** @default `<output>.checkpoint.json` */
    readonly path?: string;
  };
  /** Continue from the checkpoint; with none, start from the first row. @default false */
  readonly resume?: boolean;
  /** Read, plan, dedup and batch without sending a request or writing output. @default false */
  readonly dryRun?: boolean;
  /** The request rate a dry run estimates its duration with. */
  readonly requestsPerSecond?: number;
  /** Abort: stop pulling, commit what is complete, keep the checkpoint, end as `stopped` with ABORTED. */
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  /** The client's metrics, put into the summary as they are. */
  readonly metrics?: () => Record<string, unknown>;
  readonly progress?: ProgressOptions;
  /** What `-` reads. @default process.stdin */
  readonly stdin?: Readable;
}

const CHECKPOINT_INTERVAL_MS = 5000;

export async function runJob(spec: RunSpec): Promise<RunSummary> {
  validate(spec);
  if (spec.dryRun === true) return dryRun(spec);
  const lock =
    spec.output.path === '-' ? undefined : await acquireLock(lockPath(spec.output.path), warn(spec));
  try {
    const session = await openSession(spec);
    return await runSession(spec, session);
  } finally {
    await lock?.release();
  }
}

/** Everything a session works with, opened and checked. */
interface Session {
  readonly reader: InputReader;
  readonly input: InputFingerprint;
  readonly journal: Journal | undefined;
  readonly journalPath: string | undefined;
  readonly output: { readonly sink: Sink; readonly writer: RecordWriter };
  readonly report: { readonly sink: Sink; readonly writer: RecordWriter } | null;
}

async function openSession(spec: RunSpec): Promise<Session> {
  const checkpointing = spec.output.path !== '-' && spec.checkpoint?.enabled !== false;
  const path = checkpointing ? (spec.checkpoint?.path ?? journalPath(spec.output.path)) : undefined;
  const journal = path === undefined ? undefined : await readJournal(path);
  if (journal !== undefined && spec.resume !== true) throw checkpointExists(spec, path as string);
  if (journal === undefined && spec.resume === true)
    spec.logger.info('No checkpoint found: starting from the first row');
  const reader = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: warn(spec),
  });
  const input = fingerprintInput(spec.input.path, reader.sizeBytes, reader.mtimeMs);
  if (journal !== undefined) verifyResume(journal, path as string, spec, input);
  const outputSink = await openSink(spec.output.path, journal?.output.bytes);
  let reportSink: Sink | null = null;
  try {
    reportSink = spec.report === null ? null : await openSink(spec.report.path, journal?.report?.bytes);
  } catch (error) {
    await outputSink.close();
    throw error;
  }
  const inputColumns = () => reader.columns();
  const writer = createWriter(spec.output.format, outputSink, {
    jobColumns: spec.job.columns,
    inputColumns,
    formulaGuard: spec.output.formulaGuard,
    delimiter: spec.output.delimiter,
    onWarning: warn(spec),
    resume: journal?.output.state,
  });
  const report =
    spec.report === null || reportSink === null
      ? null
      : {
          sink: reportSink,
          writer: createReportWriter(reportSink, {
            format: spec.report.format,
            job: spec.job.kind,
            inputColumns,
            formulaGuard: spec.output.formulaGuard,
            resume: journal?.report?.state,
          }),
        };
  return { reader, input, journal, journalPath: path, output: { sink: outputSink, writer }, report };
}

/** Where a session stands while its rows flow. */
interface Progress {
  committedRows: number;
  written: number;
  reported: number;
}

async function runSession(spec: RunSpec, session: Session): Promise<RunSummary> {
  const started = Date.now();
  const counters = createCounters();
  const earlier = session.journal?.counters ?? createCounters();
  const fromRow = session.journal?.committedRows ?? 0;
  const state: Progress = { committedRows: fromRow, written: 0, reported: 0 };
  const committer = createSessionCommitter(spec, session, earlier, counters);
  const memory = sampleMemory();
  const progress = startProgress(
    () => ({
      rowsDone: state.committedRows,
      rowsFailed: earlier.rowsFailed + counters.rowsFailed,
      requests: earlier.requestsSent + counters.requestsSent,
      bytesRead: session.reader.bytesRead(),
      bytesTotal: session.reader.sizeBytes,
    }),
    spec.logger,
    spec.progress,
  );
  let error: unknown;
  try {
    await pump(spec, session, counters, committer, state);
    await finish(session, counters, state, fromRow);
  } catch (caught) {
    error = caught;
    await keep(spec, session, committer, state, fromRow, caught);
  } finally {
    progress.stop();
    memory.stop();
  }
  const all = addCounters(earlier, counters);
  const summary = buildSummary({
    ...common(spec, session.reader, error, all, memory.peakRss()),
    output: {
      path: spec.output.path,
      format: spec.output.format,
      records: session.output.writer.stats().records,
    },
    report:
      spec.report === null || session.report === null
        ? null
        : { path: spec.report.path, format: spec.report.format, rows: session.report.writer.stats().records },
    rowsWritten: state.committedRows,
    unknownKeyRows: session.output.writer.stats().unknownKeyRows,
    startedAt: session.journal?.startedAt ?? new Date(started).toISOString(),
    durationMs: (session.journal?.elapsedMs ?? 0) + (Date.now() - started),
    session: { ms: Date.now() - started, rows: state.written, requests: counters.requestsSent },
    resume: {
      resumed: session.journal !== undefined,
      fromRow,
      checkpoint: error === undefined ? null : (session.journalPath ?? null),
    },
  });
  await writeSummaryFile(spec, summary);
  return summary;
}

/** The summary fields every run has, dry or not. */
function common(
  spec: RunSpec,
  reader: InputReader,
  error: unknown,
  counts: EngineCounters,
  peakRssBytes: number,
) {
  return {
    job: spec.job.kind,
    dryRun: spec.dryRun === true,
    error,
    input: {
      path: spec.input.path,
      format: spec.input.format,
      bytes: reader.sizeBytes ?? null,
      truncated: reader.truncated(),
    },
    counts,
    client: spec.metrics?.() ?? null,
    peakRssBytes,
    estimate: null,
  };
}

/**
 * Reads, plans, dedups and batches through the engine with a job that sends nothing, then
 * estimates the duration at `requestsPerSecond`. Writes nothing and takes no lock.
 */
async function dryRun(spec: RunSpec): Promise<RunSummary> {
  const started = Date.now();
  const reader = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: warn(spec),
  });
  const counters = createCounters();
  const memory = sampleMemory();
  let error: unknown;
  try {
    for await (const _ of processRows(reader, dryRunJob(spec.job), {
      ...spec.engine,
      signal: spec.signal,
      counters,
    })) {
      // Only the counts matter.
    }
  } catch (caught) {
    error = caught;
  } finally {
    memory.stop();
  }
  const rate = spec.requestsPerSecond;
  return buildSummary({
    ...common(spec, reader, error, counters, memory.peakRss()),
    output: null,
    report: null,
    rowsWritten: 0,
    unknownKeyRows: 0,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    session: { ms: Date.now() - started, rows: counters.rowsEmitted, requests: 0 },
    resume: { resumed: false, fromRow: 0, checkpoint: null },
    estimate: {
      requests: counters.requestsSent,
      requestsPerSecond: rate ?? null,
      seconds: rate === undefined ? null : Math.ceil(counters.requestsSent / rate),
    },
  });
}

function createSessionCommitter(
  spec: RunSpec,
  session: Session,
  earlier: EngineCounters,
  counters: EngineCounters,
): Committer | undefined {
  if (session.journalPath === undefined) return undefined;
  const durable = (file: { sink: Sink; writer: RecordWriter }) => ({
    target: file.sink.target,
    sync: () => file.sink.sync(),
    state: () => file.writer.state(),
  });
  return createCommitter({
    path: session.journalPath,
    job: spec.jobFingerprint,
    input: session.input,
    output: durable(session.output),
    report: session.report === null ? null : durable(session.report),
    earlier,
    session: counters,
    startedAt: session.journal?.startedAt ?? new Date().toISOString(),
    earlierElapsedMs: session.journal?.elapsedMs ?? 0,
    intervalMs: spec.checkpoint?.intervalMs ?? CHECKPOINT_INTERVAL_MS,
  });
}

/** Moves outcomes from the engine to the writers, committing every interval. */
async function pump(
  spec: RunSpec,
  session: Session,
  counters: EngineCounters,
  committer: Committer | undefined,
  state: Progress,
): Promise<void> {
  const items = state.committedRows > 0 ? skipCommitted(session.reader, state.committedRows) : session.reader;
  const { output, report } = session;
  for await (const outcome of processRows(items, spec.job, {
    ...spec.engine,
    signal: spec.signal,
    counters,
  })) {
    if (!output.writer.write(outcome)) await output.sink.drain();
    if (outcome.status === 'failed' && report !== null) {
      state.reported++;
      if (!report.writer.write(outcome)) await report.sink.drain();
    }
    state.written++;
    state.committedRows = outcome.ref.index + 1;
    if (output.sink.broken) throw outputClosed();
    if (committer?.due() === true) await committer.commit(state.committedRows);
  }
}

/** Rows a resumed run already wrote are read again (to find where it stopped) but never planned. */
async function* skipCommitted(items: AsyncIterable<ReadItem>, below: number): AsyncGenerator<ReadItem> {
  for await (const item of items) if (item.ref.index >= below) yield item;
}

/** Closes the files, checks the accounting, renames into place and drops the checkpoint. */
async function finish(
  session: Session,
  counters: EngineCounters,
  state: Progress,
  fromRow: number,
): Promise<void> {
  session.output.writer.end();
  session.report?.writer.end();
  checkAccount({
    read: counters.rowsRead,
    written: state.written,
    ok: counters.rowsOk,
    failed: counters.rowsFailed,
    reported: session.report === null ? undefined : state.reported,
  });
  if (fromRow + state.written !== state.committedRows) {
    throw new GeobatchError(
      'INVARIANT_BROKEN',
      `Rows are missing: ${fromRow} + ${state.written} written, up to row ${state.committedRows}`,
    );
  }
  await session.output.sink.commit();
  await session.report?.sink.commit();
  if (session.journalPath !== undefined) await removeFile(session.journalPath);
}

/** A stopped run keeps what is complete: one last commit (unless writing itself failed), then close. */
async function keep(
  spec: RunSpec,
  session: Session,
  committer: Committer | undefined,
  state: Progress,
  fromRow: number,
  error: unknown,
): Promise<void> {
  const writeFailed = isGeobatchError(error) && error.code === 'IO_ERROR';
  if (committer !== undefined && !writeFailed && state.committedRows > fromRow) {
    try {
      await committer.commit(state.committedRows);
    } catch (failure) {
      spec.logger.error(
        { err: failure },
        'The final checkpoint could not be written; the previous one is kept',
      );
    }
  }
  await session.output.sink.close();
  await session.report?.sink.close();
}

async function writeSummaryFile(spec: RunSpec, summary: RunSummary): Promise<void> {
  const path = spec.summaryPath === undefined ? defaultSummaryPath(spec) : spec.summaryPath;
  if (path === null) return;
  try {
    await writeSummary(path, summary);
  } catch (error) {
    spec.logger.error({ err: error }, 'The run summary could not be written');
  }
}

function defaultSummaryPath(spec: RunSpec): string | null {
  return spec.output.path === '-' ? null : summaryPath(spec.output.path);
}

function verifyResume(journal: Journal, path: string, spec: RunSpec, input: InputFingerprint): void {
  verifyJournal(journal, path, spec.jobFingerprint, input);
  const sameReport = (journal.report?.target ?? null) === (spec.report?.path ?? null);
  if (journal.output.target !== spec.output.path || !sameReport) {
    throw new IoError('CHECKPOINT_MISMATCH', `Checkpoint ${path} was made for other output or report files`, {
      file: path,
      expected: `${journal.output.target}, report ${journal.report?.target ?? 'none'}`,
      received: `${spec.output.path}, report ${spec.report?.path ?? 'none'}`,
      hint: `Resume with the same output and report, or delete ${path} to start over.`,
    });
  }
}

function checkpointExists(spec: RunSpec, path: string): UsageError {
  const files = [
    path,
    partialPath(spec.output.path),
    ...(spec.report === null ? [] : [partialPath(spec.report.path)]),
  ];
  return new UsageError(`An interrupted run of this job left a checkpoint: ${path}`, {
    file: path,
    hint: `Pass --resume to continue it, or delete ${files.join(', ')} to start over.`,
  });
}

function outputClosed(): GeobatchError {
  return new GeobatchError('ABORTED', 'Standard output was closed by the reading program; the run stopped');
}

function validate(spec: RunSpec): void {
  const input = spec.input.path === '-' ? '-' : resolve(spec.input.path);
  const output = spec.output.path === '-' ? '-' : resolve(spec.output.path);
  if (output !== '-' && output === input)
    throw new UsageError('The output would overwrite the input', { file: output });
  if (spec.report !== null) {
    if (spec.report.path === '-') throw new UsageError('The error report needs a file path, not `-`');
    if (resolve(spec.report.path) === output || resolve(spec.report.path) === input) {
      throw new UsageError('The error report must be a file of its own', { file: spec.report.path });
    }
  }
  if (spec.resume === true && spec.output.path === '-') {
    throw new UsageError('A run writing to standard output cannot be resumed', {
      hint: 'Write to a file to use --resume.',
    });
  }
  const interval = spec.checkpoint?.intervalMs;
  if (interval !== undefined && !(Number.isFinite(interval) && interval > 0)) {
    throw new UsageError(`Expected \`checkpoint.intervalMs\` to be a positive number, got \`${interval}\``);
  }
  const rate = spec.requestsPerSecond;
  if (rate !== undefined && !(Number.isFinite(rate) && rate > 0)) {
    throw new UsageError(`Expected \`requestsPerSecond\` to be a positive number, got \`${rate}\``);
  }
}

export function warn(spec: RunSpec): (message: string) => void {
  return (message) => spec.logger.warn(message);
}

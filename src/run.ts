/**
 * The composition root: lock -> reader -> engine -> writers (output, report) -> checkpoint ->
 * summary -> rename. The one module that knows every stage; each stage knows only its own.
 *
 * Thrown (before any row is read): usage and config problems, LOCKED, CHECKPOINT_MISMATCH.
 * Returned: a RunSummary for every run that started, however it ended; `exitCode` says how.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import {
  checkpointExists,
  fingerprintInput,
  type InputFingerprint,
  type Journal,
  journalPath,
  readJournal,
  verifyJournal,
  verifyTargets,
} from './engine/checkpoint.js';
import { type Committer, createCommitter } from './engine/committer.js';
import { addCounters, createCounters, type EngineCounters } from './engine/counters.js';
import { dryRunJob } from './engine/dry-run.js';
import { processRows } from './engine/engine.js';
import type { AnyJob } from './engine/job.js';
import { acquireLock, lockPath } from './engine/lock.js';
import { sampleMemory } from './engine/memory.js';
import { type EngineOptions, resolveEngineOptions } from './engine/options.js';
import { type ProgressOptions, startProgress } from './engine/progress.js';
import { runSession, type Tally } from './engine/session.js';
import { IoError, UsageError } from './errors.js';
import { openReader } from './input/open.js';
import type { CsvReadOptions, InputEncoding, InputFormat, InputReader } from './input/reader.js';
import { partialPath, removeFile } from './output/_sink.js';
import { type OutputSpec, openRunFiles, type ReportSpec, type RunFiles } from './output/files.js';
import {
  buildSummary,
  type CacheSummary,
  type RunSummary,
  type SummaryFacts,
  summaryPath,
  writeSummary,
} from './output/summary.js';

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
  readonly output: OutputSpec;
  /** The error report file; null writes none (failed rows are still in the output and counted). */
  readonly report: ReportSpec | null;
  /** The summary JSON. @default `<output>.summary.json` for a file output, none for `-` */
  readonly summaryPath?: string | null;
  readonly engine?: EngineOptions;
  readonly checkpoint?: {
    /** @default true (and always false when the output is `-`, which cannot be resumed) */
    readonly enabled?: boolean;
    /** How often output and report are fsync'd and the journal written. @default 2000 */
    readonly intervalMs?: number;
    /** @default `<output>.checkpoint.json` */
    readonly path?: string;
  };
  /** Continue from the checkpoint; with none, start from the first row. @default false */
  readonly resume?: boolean;
  /** Read, plan, dedup and batch without sending a request or writing a file. @default false */
  readonly dryRun?: boolean;
  /** The request rate a dry run estimates its duration with. */
  readonly requestsPerSecond?: number;
  /** Abort: stop pulling, commit what is complete, keep the checkpoint, end `stopped` with ABORTED. */
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  /** The client's metrics, put into the summary as they are. */
  readonly metrics?: () => Record<string, unknown>;
  readonly progress?: ProgressOptions;
  /** What `-` reads. @default process.stdin */
  readonly stdin?: Readable;
  /** The request cache's account for the summary (engine.answers is the cache itself). */
  readonly cache?: {
    /** Writes the answers still pending, so that the summary counts them. */
    flush(): Promise<void>;
    summary(): CacheSummary;
  };
}

// The most a crash can make a run request again; an fsync every 2 s costs nothing measurable.
const CHECKPOINT_INTERVAL_MS = 2000;

export async function runJob(spec: RunSpec): Promise<RunSummary> {
  validate(spec);
  if (spec.dryRun === true) return dryRun(spec);
  await makeDirectories(spec);
  const lock =
    spec.output.path === '-' ? undefined : await acquireLock(lockPath(spec.output.path), warner(spec));
  try {
    return await runOpened(spec, await openSession(spec));
  } finally {
    await lock?.release();
  }
}

/** Output and report may go to directories that do not exist yet (a fresh `out/`). */
async function makeDirectories(spec: RunSpec): Promise<void> {
  for (const target of [spec.output.path, spec.report?.path]) {
    if (target === undefined || target === '-') continue;
    try {
      await mkdir(dirname(resolve(target)), { recursive: true });
    } catch (error) {
      throw new IoError(
        'IO_ERROR',
        `Cannot create the directory for ${target}: ${(error as Error).message}`,
        {
          file: target,
          cause: error,
        },
      );
    }
  }
}

/** Everything a session works with, opened and checked. */
interface Session {
  readonly reader: InputReader;
  readonly input: InputFingerprint;
  readonly journal: Journal | undefined;
  readonly journalPath: string | undefined;
  readonly files: RunFiles;
}

async function openSession(spec: RunSpec): Promise<Session> {
  const checkpointing = spec.output.path !== '-' && spec.checkpoint?.enabled !== false;
  const path = checkpointing ? (spec.checkpoint?.path ?? journalPath(spec.output.path)) : undefined;
  const journal = path === undefined ? undefined : await readJournal(path);
  if (path !== undefined && journal !== undefined && spec.resume !== true) {
    const partials = [spec.output.path, ...(spec.report === null ? [] : [spec.report.path])].map(partialPath);
    throw checkpointExists(path, partials);
  }
  if (journal === undefined && spec.resume === true)
    spec.logger.info('No checkpoint found: starting from the first row');
  const reader = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: warner(spec),
  });
  const input = fingerprintInput(spec.input.path, reader.sizeBytes, reader.mtimeMs);
  if (path !== undefined && journal !== undefined) {
    verifyJournal(journal, path, spec.jobFingerprint, input);
    verifyTargets(journal, path, spec.output.path, spec.report?.path ?? null);
    if (spec.input.path === '-')
      spec.logger.warn('Resuming from standard input: the same data must be piped again');
  }
  const files = await openRunFiles({
    output: spec.output,
    report: spec.report,
    jobKind: spec.job.kind,
    jobColumns: spec.job.columns,
    inputColumns: () => reader.columns(),
    onWarning: warner(spec),
    ...(journal === undefined ? {} : { resume: { output: journal.output, report: journal.report } }),
  });
  return { reader, input, journal, journalPath: path, files };
}

async function runOpened(spec: RunSpec, session: Session): Promise<RunSummary> {
  const started = Date.now();
  const counters = createCounters();
  const earlier = session.journal?.counters ?? createCounters();
  const fromRow = session.journal?.committedRows ?? 0;
  const tally: Tally = { committedRows: fromRow, written: 0, reported: 0 };
  const memory = sampleMemory();
  const progress = startProgress(
    () => ({
      rowsDone: tally.committedRows,
      rowsRead: fromRow + counters.rowsRead,
      rowsFailed: earlier.rowsFailed + counters.rowsFailed,
      requests: earlier.requestsSent + counters.requestsSent,
      bytesRead: session.reader.bytesRead(),
      bytesTotal: session.reader.sizeBytes,
    }),
    spec.logger,
    spec.progress,
  );
  const error = await runSession(
    session.reader,
    session.files,
    {
      job: spec.job,
      engine: spec.engine,
      signal: spec.signal,
      counters,
      committer: sessionCommitter(spec, session, earlier, counters),
      fromRow,
      dropCheckpoint: async () => {
        if (session.journalPath !== undefined) await removeFile(session.journalPath);
      },
      logger: spec.logger,
    },
    tally,
  );
  progress.stop();
  memory.stop();
  await spec.cache?.flush();
  const summary = sessionSummary(spec, session, {
    error,
    counters,
    earlier,
    tally,
    fromRow,
    started,
    peakRss: memory.peakRss(),
  });
  await writeSummaryFile(spec, summary);
  return summary;
}

interface SessionEnd {
  readonly error: unknown;
  readonly counters: EngineCounters;
  readonly earlier: EngineCounters;
  readonly tally: Tally;
  readonly fromRow: number;
  readonly started: number;
  readonly peakRss: number;
}

function sessionSummary(spec: RunSpec, session: Session, end: SessionEnd): RunSummary {
  const stats = session.files.stats();
  const elapsed = Date.now() - end.started;
  return buildSummary({
    ...common(spec, session.reader, end.error, addCounters(end.earlier, end.counters), end.peakRss),
    output: { path: spec.output.path, format: spec.output.format, records: stats.outputRecords },
    report:
      spec.report === null
        ? null
        : { path: spec.report.path, format: spec.report.format, rows: stats.reportRows },
    rowsWritten: end.tally.committedRows,
    unknownKeyRows: stats.unknownKeyRows,
    startedAt: session.journal?.startedAt ?? new Date(end.started).toISOString(),
    durationMs: (session.journal?.elapsedMs ?? 0) + elapsed,
    session: { ms: elapsed, rows: end.tally.written, requests: end.counters.requestsSent },
    resume: {
      resumed: session.journal !== undefined,
      fromRow: end.fromRow,
      checkpoint: end.error === undefined ? null : (session.journalPath ?? null),
    },
  });
}

function sessionCommitter(
  spec: RunSpec,
  session: Session,
  earlier: EngineCounters,
  counters: EngineCounters,
): Committer | undefined {
  if (session.journalPath === undefined) return undefined;
  return createCommitter({
    path: session.journalPath,
    job: spec.jobFingerprint,
    input: session.input,
    output: session.files.output,
    report: session.files.report,
    earlier,
    session: counters,
    startedAt: session.journal?.startedAt ?? new Date().toISOString(),
    earlierElapsedMs: session.journal?.elapsedMs ?? 0,
    intervalMs: spec.checkpoint?.intervalMs ?? CHECKPOINT_INTERVAL_MS,
  });
}

/** Reads, plans, dedups and batches with a job that sends nothing; writes nothing, takes no lock. */
async function dryRun(spec: RunSpec): Promise<RunSummary> {
  const started = Date.now();
  const reader = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: warner(spec),
  });
  const counters = createCounters();
  const memory = sampleMemory();
  let error: unknown;
  try {
    const outcomes = processRows(reader, dryRunJob(spec.job), {
      ...spec.engine,
      signal: spec.signal,
      counters,
    });
    for await (const _ of outcomes); // Only the counts matter.
  } catch (caught) {
    error = caught;
  }
  memory.stop();
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

/** The summary facts every run has, dry or not. */
function common(spec: RunSpec, reader: InputReader, error: unknown, counts: EngineCounters, peakRss: number) {
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
    cache: spec.cache?.summary() ?? null,
    peakRssBytes: peakRss,
    estimate: null,
  } satisfies Partial<SummaryFacts>;
}

async function writeSummaryFile(spec: RunSpec, summary: RunSummary): Promise<void> {
  const path =
    spec.summaryPath === undefined
      ? spec.output.path === '-'
        ? null
        : summaryPath(spec.output.path)
      : spec.summaryPath;
  if (path === null) return;
  try {
    await writeSummary(path, summary);
  } catch (error) {
    spec.logger.error({ err: error }, 'The run summary could not be written');
  }
}

function warner(spec: RunSpec): (message: string) => void {
  return (message) => spec.logger.warn(message);
}

function validate(spec: RunSpec): void {
  resolveEngineOptions(spec.engine);
  const input = spec.input.path === '-' ? '-' : resolve(spec.input.path);
  const output = spec.output.path === '-' ? '-' : resolve(spec.output.path);
  if (output !== '-' && output === input)
    throw new UsageError('The output would overwrite the input', { file: output });
  if (spec.report !== null) {
    if (spec.report.path === '-') throw new UsageError('The error report needs a file path, not `-`');
    const report = resolve(spec.report.path);
    if (report === output || report === input) {
      throw new UsageError('The error report must be a file of its own', { file: spec.report.path });
    }
  }
  if (spec.resume === true && spec.output.path === '-') {
    throw new UsageError('A run writing to standard output cannot be resumed', {
      hint: 'Write to a file to use --resume.',
    });
  }
  for (const [name, value] of [
    ['checkpoint.intervalMs', spec.checkpoint?.intervalMs],
    ['requestsPerSecond', spec.requestsPerSecond],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new UsageError(`Expected \`${name}\` to be a positive number, got \`${value}\``);
    }
  }
}

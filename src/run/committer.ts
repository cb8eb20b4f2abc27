/**
 * Commits progress every `intervalMs`, or sooner once COMMIT_AFTER_REQUESTS were made: fsyncs the
 * outputs and the report, then writes the journal. Works on any file that can report its durable
 * length and writer state, so it knows nothing of formats.
 */

import { stat } from 'node:fs/promises';
import type { CacheCounts } from '../cache/tally.js';
import { addCounters, createCounters, type EngineCounters } from '../engine/counters.js';
import type { DurableFile, RunFilesStats } from '../output/files.js';
import {
  type DistributedMark,
  type EarlierErrors,
  type FileMark,
  type FinishingMark,
  type InputFingerprint,
  type Journal,
  type SideInputMark,
  writeJournal,
} from './checkpoint.js';

/**
 * Requests since the last commit that make the next one due before the interval. A run that dies
 * (kill -9, out of memory) pays again for every row written after its last commit: with the
 * interval alone that was seconds of requests (a 5,000-row geocode at 16 in flight, killed
 * halfway with --no-cache, requested 1,050-1,700 rows again; rows in flight account for 100-300).
 */
export const COMMIT_AFTER_REQUESTS = 500;

/**
 * A commit that the requests made due waits this many times as long as commits take (a moving
 * average: one fsync that met a busy disk, 57 ms among 2-10, spaced the next a second out), so
 * that commits take at most about 1/50 of a run on a slow disk or against a fast service.
 */
export const COMMIT_SPACING = 50;
/**
 * And no sooner than this after the last commit: four commits a second at most. Against a fast
 * service (the emulator's 12,000 requests/s) a commit every 500 requests made a run 5% slower
 * (8.36 s against 7.93 s for 100,000 geocoded rows, medians of 6), fsyncs being more than their
 * wall time; a real service, a few hundred requests a second, never meets this bound.
 */
export const COMMIT_MIN_GAP_MS = 250;
/** The weight of the latest commit in that average. */
const COMMIT_WEIGHT = 0.25;

export interface CommitterOptions {
  readonly path: string;
  readonly job: string;
  readonly jobParts?: Readonly<Record<string, string>>;
  readonly input: InputFingerprint;
  /** The side inputs the run reads (Journal.sideInputs). */
  readonly sideInputs?: readonly SideInputMark[];
  /** Standard input: the digest of the rows below a number of rows (Journal.committedDigest). */
  readonly committedDigest?: (committedRows: number) => string;
  /** Every output, in order (at least one). */
  readonly outputs: readonly DurableFile[];
  readonly report: DurableFile | null;
  /** What the files hold, for a finishing journal. */
  readonly stats: () => RunFilesStats;
  /** Counts of earlier sessions (from the journal resumed), zero for a fresh run. */
  readonly earlier: EngineCounters;
  /** This session's counts. */
  readonly session: EngineCounters;
  /** HTTP requests of earlier sessions, and a reader of this session's. */
  readonly httpRequests: { readonly earlier: number; readonly session: () => number };
  /**
   * The request cache's counts of earlier sessions and this one's rows below `committedRows`;
   * undefined without a cache.
   */
  readonly cache?: (committedRows: number) => CacheCounts | undefined;
  /** The run report and summary file this session writes as it ends (Journal.runReport). */
  readonly endFiles?: { readonly runReport: string | null; readonly summaryFile: string | null };
  /** What the summaries found said of their error reports (Journal.earlierErrors). */
  readonly earlierErrors?: readonly EarlierErrors[];
  readonly startedAt: string;
  readonly earlierElapsedMs: number;
  /** Milliseconds between commits at most (the run passes its default, 2000). */
  readonly intervalMs: number;
  /** A distributed run's queue, which the journal records (Journal.distributed). */
  readonly distributed?: DistributedMark;
  /** The command line's settings the journal records (Journal.flags). */
  readonly flags?: readonly string[];
}

/**
 * Where the files stood at a row boundary (the end of a trip's or a track's group), taken as the
 * rows were written, to be committed if the run stops inside the next group (`commitMark`).
 */
export interface RowsMark {
  /** Every row below this index was written when the mark was taken. */
  readonly rows: number;
  readonly outputs: readonly ReturnType<DurableFile['mark']>[];
  readonly report: ReturnType<DurableFile['mark']> | null;
}

/** The rows written since a mark, as the counters counted them: what its commit leaves out. */
export interface RowsAfter {
  ok: number;
  failed: number;
  readonly failuresByCode: Record<string, number>;
}

export interface Committer {
  /** True when the interval has passed since the last commit, or enough requests were made. */
  due(): boolean;
  /** Makes every row below `committedRows` durable and records it. */
  commit(committedRows: number): Promise<void>;
  /** Where every file stands now, every row below `committedRows` written; flushes nothing. */
  mark(committedRows: number): RowsMark;
  /**
   * Commits the rows below `mark.rows` while the files hold more (`after`: the rows written
   * since): everything written is made durable, and the journal records the files' lengths and
   * states at the mark, so that a resume cuts them back there, and the row counts less `after`.
   */
  commitMark(mark: RowsMark, after: RowsAfter): Promise<void>;
  /**
   * Records that every row is written and every file sealed (Journal.finishing): from here a
   * resume only puts the files in place. Call after sealing them, before the first rename.
   */
  finishing(committedRows: number): Promise<void>;
}

export function createCommitter(options: CommitterOptions): Committer {
  const sessionStart = Date.now();
  let last = sessionStart;
  let commitMs = 0;
  let requestsAtLast = 0;
  const write = async (
    committedRows: number,
    marks: readonly FileMark[],
    report: FileMark | null,
    session: EngineCounters,
    finishing?: FinishingMark,
    after?: RowsAfter,
  ) => {
    await writeJournal(
      options.path,
      journalOf(options, session, sessionStart, committedRows, marks, report, finishing, after),
    );
    last = Date.now();
  };
  return {
    due() {
      const since = Date.now() - last;
      if (since >= options.intervalMs) return true;
      return (
        options.session.requestsSent - requestsAtLast >= COMMIT_AFTER_REQUESTS &&
        since >= Math.max(COMMIT_MIN_GAP_MS, COMMIT_SPACING * commitMs)
      );
    },
    async commit(committedRows) {
      const started = Date.now();
      const requests = options.session.requestsSent;
      // The counts as they stand now, with every row below committedRows written and no other: a
      // commit made while the run waits for its next row (TimedCommits) lets the engine emit that
      // row during the syncs below, and counted after them it made the journal one row ahead of
      // its files (a resume then ended with 2,007 rows read of 2,006).
      const session = addCounters(createCounters(), options.session);
      // States first: taking one flushes its writer, so that the byte length synced below matches it.
      const outputStates = options.outputs.map((output) => output.state());
      const reportState = options.report?.state();
      const marks: FileMark[] = [];
      for (const [i, output] of options.outputs.entries())
        marks.push({ target: output.target, bytes: await output.sync(), state: outputStates[i] ?? {} });
      const reportBytes = await options.report?.sync();
      const report =
        options.report === null
          ? null
          : { target: options.report.target, bytes: reportBytes ?? 0, state: reportState ?? {} };
      await write(committedRows, marks, report, session);
      commitMs += COMMIT_WEIGHT * (last - started - commitMs);
      requestsAtLast = requests;
    },
    mark(committedRows) {
      return {
        rows: committedRows,
        outputs: options.outputs.map((output) => output.mark()),
        report: options.report?.mark() ?? null,
      };
    },
    async commitMark(mark, after) {
      // Everything written goes to disk (a GeoPackage's pending rows committed): the bytes past the
      // mark are cut by the resume, as those past any checkpoint are.
      const at = async (file: DurableFile, marked: RowsMark['report']): Promise<FileMark> => {
        const state = file.state();
        const bytes = await file.sync();
        return { target: file.target, bytes: marked?.bytes ?? bytes, state: { ...state, ...marked?.state } };
      };
      const marks: FileMark[] = [];
      for (const [i, output] of options.outputs.entries())
        marks.push(await at(output, mark.outputs[i] ?? null));
      const report = options.report === null ? null : await at(options.report, mark.report);
      await write(mark.rows, marks, report, options.session, undefined, after);
    },
    async finishing(committedRows) {
      // Sealed files are closed: their size is on disk, and no writer state is needed to continue them.
      const sealed = async (file: DurableFile): Promise<FileMark> => ({
        target: file.target,
        bytes: (await stat(file.path)).size,
        state: {},
      });
      const marks: FileMark[] = [];
      for (const output of options.outputs) marks.push(await sealed(output));
      const report = options.report === null ? null : await sealed(options.report);
      const stats = options.stats();
      await write(committedRows, marks, report, options.session, {
        outputs: stats.outputs.map(({ records, unknownKeyRows }) => ({ records, unknownKeyRows })),
        reportRows: stats.reportRows,
      });
    },
  };
}

function journalOf(
  options: CommitterOptions,
  session: EngineCounters,
  sessionStart: number,
  committedRows: number,
  marks: readonly FileMark[],
  report: FileMark | null,
  finishing: FinishingMark | undefined,
  after: RowsAfter | undefined,
): Journal {
  const all = addCounters(options.earlier, after === undefined ? session : less(session, after));
  const more = marks.slice(1);
  return {
    version: 1,
    job: options.job,
    ...(options.jobParts === undefined ? {} : { jobParts: options.jobParts }),
    constantsAsWritten: true,
    input: options.input,
    ...(options.sideInputs === undefined || options.sideInputs.length === 0
      ? {}
      : { sideInputs: options.sideInputs }),
    committedRows,
    ...(options.committedDigest === undefined
      ? {}
      : { committedDigest: options.committedDigest(committedRows) }),
    // A run has at least one output (the run checks it before anything is opened).
    output: marks[0] as FileMark,
    ...(more.length === 0 ? {} : { moreOutputs: more }),
    report,
    // Rows pulled but not yet written will be read again on resume: count only written ones.
    counters: { ...all, rowsRead: all.rowsEmitted },
    httpRequests: options.httpRequests.earlier + options.httpRequests.session(),
    ...cacheOf(options.cache?.(committedRows)),
    ...options.endFiles,
    ...(options.earlierErrors === undefined || options.earlierErrors.length === 0
      ? {}
      : { earlierErrors: options.earlierErrors }),
    startedAt: options.startedAt,
    updatedAt: new Date().toISOString(),
    elapsedMs: options.earlierElapsedMs + (Date.now() - sessionStart),
    ...(finishing === undefined ? {} : { finishing }),
    ...(options.distributed === undefined ? {} : { distributed: options.distributed }),
    ...(options.flags === undefined || options.flags.length === 0 ? {} : { flags: options.flags }),
  };
}

/** The row counts less those of the rows written after a mark; the work done stays counted. */
function less(counters: EngineCounters, after: RowsAfter): EngineCounters {
  const failuresByCode = { ...counters.failuresByCode };
  for (const [code, n] of Object.entries(after.failuresByCode)) {
    const left = (failuresByCode[code] ?? 0) - n;
    if (left > 0) failuresByCode[code] = left;
    else delete failuresByCode[code];
  }
  return {
    ...counters,
    rowsEmitted: counters.rowsEmitted - after.ok - after.failed,
    rowsOk: counters.rowsOk - after.ok,
    rowsFailed: counters.rowsFailed - after.failed,
    failuresByCode,
  };
}

/** Only the counts: a summary's cache also holds its location and mode, which are this session's. */
function cacheOf(counts: CacheCounts | undefined): { cache?: CacheCounts } {
  if (counts === undefined) return {};
  const { hits, misses, expired, writes, requestsSaved } = counts;
  return { cache: { hits, misses, expired, writes, requestsSaved } };
}

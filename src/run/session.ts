/**
 * Drives one session of a run: pulls outcomes from the engine into the run's files, commits
 * every interval, and at the end either finishes (accounting checked, files sealed, the journal
 * marked finishing, files renamed, checkpoint dropped) or keeps what is complete for a resume. The
 * files are anything that can take outcomes.
 *
 * A stop leaves a checkpoint only when it has rows to resume from; otherwise it leaves nothing
 * (no journal, no partial files), so that the next run starts fresh without being told to.
 * A reader closing standard output ends the session like a finished one, for the rows it took.
 */
import type { Logger } from 'pino';
import { type BatchedIterable, batched, batchesOf } from '../batches.js';
import type { EngineCounters } from '../engine/counters.js';
import { processRows, type StopDrain } from '../engine/engine.js';
import type { AnyJob } from '../engine/job.js';
import type { EngineOptions } from '../engine/options.js';
import { processSteps, type Step, type StepCounters } from '../engine/pipeline.js';
import { type GeobatchError, isGeobatchError, RunError } from '../errors.js';
import type { SessionFiles } from '../output/files.js';
import { GroupTracker } from '../queue/_groups.js';
import type { Outcome, ReadItem } from '../types.js';
import { unplacedError } from './_unplaced.js';
import { checkAccount } from './accounting.js';
import type { Committer, RowsAfter, RowsMark } from './committer.js';
import type { RowProcessor } from './spec.js';

export interface SessionOptions {
  readonly job: AnyJob;
  /** Several steps in one pass; `job` then describes them (`pipelineJob`). */
  readonly steps?: readonly Step[];
  /** The steps' own counts, for the summary (created by processSteps when absent). */
  readonly stepCounters?: readonly StepCounters[];
  readonly engine?: EngineOptions;
  /** Answers the rows instead of the engine (see RunSpec.process). */
  readonly process?: RowProcessor;
  /** See RunSpec.workKept. */
  readonly workKept?: () => boolean;
  readonly signal?: AbortSignal;
  /** See RunSpec.drain. */
  readonly drain?: StopDrain;
  /** This session's counters (the engine updates them). */
  readonly counters: EngineCounters;
  readonly committer: Committer | undefined;
  /** Rows below this index were written by earlier sessions: read again, never planned. */
  readonly fromRow: number;
  /**
   * The checkpoint resumed was written as its run put the files in place (Journal.finishing):
   * every row is in them, so no row is read; the session only renames the files still waiting.
   */
  readonly finishing?: boolean;
  /** Deletes the checkpoint once the files are in place. */
  readonly dropCheckpoint: () => Promise<void>;
  readonly logger: Logger;
}

/** Where a session stands while its rows flow. */
export interface Tally {
  /** Every row below this index is in the output (and the report when it failed). */
  committedRows: number;
  written: number;
  reported: number;
}

/** How a session ended. */
export interface SessionEnd {
  /** Why it stopped; undefined when it went through every row. */
  readonly error: unknown;
  /** A checkpoint to resume from is on disk (this session's or an earlier one's). */
  readonly checkpointKept: boolean;
  /**
   * The files were sealed: the checkpoint kept is a finishing one (Journal.finishing), which a
   * resume finishes by renaming, reading nothing.
   */
  readonly finishing: boolean;
  /** Output and report are in place (renamed over their targets). */
  readonly filesWritten: boolean;
  /** The targets in place, all of them when `filesWritten`; some when a rename failed. */
  readonly placed: readonly string[];
  /**
   * The rows the checkpoint kept commits, when fewer may be than were written: a stop after a
   * write failed leaves the last good journal, and one inside a trip's or a track's group keeps
   * the whole groups. Absent when none is kept, or when it is a finishing one (every row).
   */
  readonly keptRows?: number;
}

/** Runs the session; resolves to how it ended, never rejects. */
export async function runSession(
  items: AsyncIterable<ReadItem>,
  files: SessionFiles,
  options: SessionOptions,
  tally: Tally,
): Promise<SessionEnd> {
  // Rows below this are durable: in the files and in a journal on disk.
  const durable = { rows: options.fromRow };
  const groups = groupEnds(options);
  // Once the files are sealed (and the journal says so), a stop leaves them as they are.
  let sealed = options.finishing === true;
  let allPlaced = false;
  try {
    if (options.finishing !== true) {
      await pump(items, files, options, tally, durable, groups);
      await finish(files, options, tally);
      sealed = true;
    }
    await files.place();
    allPlaced = true;
    await options.dropCheckpoint();
    // The reader may leave while the last rows are written: they did not all reach it.
    const error = files.broken ? outputClosed(tally.written) : undefined;
    return { error, checkpointKept: false, finishing: false, filesWritten: true, placed: files.placed() };
  } catch (error) {
    if (isGeobatchError(error) && error.code === 'OUTPUT_CLOSED') return closed(files, options, error);
    if (sealed) {
      // The files are complete: nothing is closed or deleted (run/_unplaced.ts). Also when only
      // the checkpoint could not be deleted: a resume then finds every file in place, and ends.
      const journaled = options.committer !== undefined || options.finishing === true;
      const placed = files.placed();
      return {
        error: unplacedError(error, journaled),
        checkpointKept: journaled,
        finishing: journaled,
        filesWritten: allPlaced,
        placed,
      };
    }
    const checkpointKept = await keep(files, options, tally, durable, groups, error);
    return {
      error,
      checkpointKept,
      finishing: false,
      filesWritten: false,
      placed: [],
      ...(checkpointKept ? { keptRows: durable.rows } : {}),
    };
  }
}

async function pump(
  items: AsyncIterable<ReadItem>,
  files: SessionFiles,
  options: SessionOptions,
  tally: Tally,
  durable: { rows: number },
  groups: GroupEnds | undefined,
) {
  const input = options.fromRow > 0 ? skipCommitted(items, options.fromRow, groupedJobs(options)) : items;
  const { job, engine, signal, drain, counters, committer } = options;
  // A distributed run's workers finish chunks long before this process writes its first row (it
  // waits for the first chunk): a journal at row 0 from the start, so that a coordinator killed
  // meanwhile (kill -9, no stop to keep one) leaves a rerun the advice of --resume, which takes
  // the chunks done up, rather than a plain run that drops them and pays for them again. A stop
  // with nothing held drops it as any row-0 checkpoint.
  if (committer !== undefined && options.workKept !== undefined && options.fromRow === 0) {
    await committer.commit(0);
  }
  const outcomes =
    options.process !== undefined
      ? options.process(input, { counters, stepCounters: options.stepCounters, signal })
      : options.steps === undefined
        ? processRows(input, job, { ...engine, signal, drain, counters })
        : processSteps(input, options.steps, {
            ...engine,
            signal,
            drain,
            counters,
            stepCounters: options.stepCounters,
          });
  const timed = committer === undefined ? undefined : new TimedCommits(committer, job, tally, durable);
  try {
    for await (const outcome of outcomes) {
      // Never a row written under a commit: its sizes and counts must be those of a row boundary.
      const committing = timed?.settle();
      if (committing !== undefined) await committing;
      timed?.hold(true);
      groups?.before(outcome);
      if (!files.write(outcome)) await files.drain();
      if (outcome.status === 'failed' && files.reporting) tally.reported++;
      tally.written++;
      tally.committedRows = outcome.ref.index + 1;
      if (files.broken) throw outputClosed(tally.written);
      if (committer?.due() === true && resumable(job, tally.committedRows)) {
        await committer.commit(tally.committedRows);
        durable.rows = tally.committedRows;
      }
      timed?.hold(false);
    }
    const committing = timed?.settle();
    if (committing !== undefined) await committing;
  } finally {
    // A stop's own commit (keep) must not race one still under way.
    await timed?.stop();
  }
}

/** How often a run waiting for its next row looks whether a commit is due. */
const WAITING_TICK_MS = 250;

/**
 * Commits made while the run waits for its next row, between rows: a later step of a `steps:`
 * run holds its output back while its partial batch fills (up to its batch wait, and the waits of
 * two steps add up), and a distributed run's coordinator waits for the next chunk. Committing only
 * as rows come out, a tester's pipeline kept a checkpoint at row 1 for 9 s while 367 rows were
 * written and 3,300 requests made, and kill -9 then cost 70% of the job again.
 */
class TimedCommits {
  #pending: Promise<void> | undefined;
  #failure: unknown;
  /** The pump is writing a row, or committing it itself. */
  #held = false;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly committer: Committer,
    private readonly job: AnyJob,
    private readonly tally: Tally,
    private readonly durable: { rows: number },
  ) {
    this.#timer = setInterval(() => this.#tick(), WAITING_TICK_MS);
    this.#timer.unref();
  }

  /**
   * A commit under way to wait for, else undefined (no await, no promise: this runs every row);
   * throws what a timed commit failed with.
   */
  settle(): Promise<void> | undefined {
    if (this.#failure !== undefined) throw this.#failure;
    return this.#pending?.then(() => {
      if (this.#failure !== undefined) throw this.#failure;
    });
  }

  hold(held: boolean): void {
    this.#held = held;
  }

  /** No more commits; resolves once one under way has ended, however it ended. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#pending;
  }

  #tick(): void {
    const rows = this.tally.committedRows;
    // Only while the pump awaits its next row: then every row handed over is whole, and the pump
    // waits for this commit before it writes the next.
    if (this.#held || this.#pending !== undefined || this.#failure !== undefined) return;
    if (rows <= this.durable.rows) return;
    if (!this.committer.due() || !resumable(this.job, rows)) return;
    this.#pending = this.committer.commit(rows).then(
      () => {
        // The pump neither writes nor commits while this runs: nothing moved durable.rows meanwhile.
        this.durable.rows = rows;
        this.#pending = undefined;
      },
      (error: unknown) => {
        this.#failure = error;
        this.#pending = undefined;
      },
    );
  }
}

/** A checkpoint may only be made where a resumed run could start (not inside a trip's stops). */
function resumable(job: AnyJob, index: number): boolean {
  return job.resumableAt?.(index) ?? true;
}

/**
 * Rows a resumed run already wrote are read again (to find where it stopped) but never planned.
 * In the input's batches (batches.ts), so that a resumed run is not slower than a fresh one.
 */
/** The jobs of the run whose rows form groups (trip, match), one per step. */
function groupedJobs(options: SessionOptions): AnyJob[] {
  if (options.process !== undefined) return [];
  const jobs = options.steps === undefined ? [options.job] : options.steps.map((step) => step.job);
  return jobs.filter((job) => job.groupOf !== undefined && job.endedBefore !== undefined);
}

/**
 * The items from row `below` on. The rows before it were committed by the run being resumed; a
 * job of groups is told which groups they held, all ended (a checkpoint lies only between
 * groups), so that a group coming again after the resume point fails as it did in one pass.
 */
function skipCommitted(
  items: AsyncIterable<ReadItem>,
  below: number,
  grouped: readonly AnyJob[],
): BatchedIterable<ReadItem> {
  const trackers = grouped.map((job) => ({ job, groups: new GroupTracker(job) }));
  let told = trackers.length === 0;
  const tell = () => {
    for (const { job, groups } of trackers) job.endedBefore?.(groups.endedSoFar());
    told = true;
  };
  return batched(async function* () {
    const batches = batchesOf(items);
    try {
      for (let next = await batches.next(); next.done !== true; next = await batches.next()) {
        if (!told)
          for (const item of next.value)
            if (item.ref.index < below) for (const { groups } of trackers) groups.see(item);
        const kept = next.value.filter((item) => item.ref.index >= below);
        if (kept.length === 0) continue;
        if (!told) tell();
        yield kept;
      }
    } finally {
      await batches.return?.();
    }
  });
}

async function finish(files: SessionFiles, options: SessionOptions, tally: Tally): Promise<void> {
  files.end();
  const c = options.counters;
  checkAccount({
    read: c.rowsRead,
    written: tally.written,
    ok: c.rowsOk,
    failed: c.rowsFailed,
    reported: files.reporting ? tally.reported : undefined,
  });
  if (options.fromRow + tally.written !== tally.committedRows) {
    throw new RunError(
      'INVARIANT_BROKEN',
      `Rows are missing: ${options.fromRow} + ${tally.written} written, up to row ${tally.committedRows}`,
    );
  }
  await files.seal();
  // Before the first rename: a rename refused after it leaves a journal that --resume finishes.
  await options.committer?.finishing(tally.committedRows);
}

/**
 * A stopped session keeps what is complete: one last commit of the rows written, or inside a
 * group of rows (a trip, a track) of those up to the end of the last group written whole (unless
 * writing itself failed: then the previous checkpoint is the last good one), then the files are closed.
 * With no row durable there is nothing to resume: files and journal are deleted instead, so that
 * a key fixed after AUTH_REJECTED needs no --resume and no clean-up. The same after
 * INPUT_ENCODING: the run can only go on under another encoding or from a converted file, which
 * are another job or another input to the checkpoint, so it could never be resumed. Resolves to
 * whether a checkpoint is kept.
 */
async function keep(
  files: SessionFiles,
  options: SessionOptions,
  tally: Tally,
  durable: { rows: number },
  groups: GroupEnds | undefined,
  error: unknown,
): Promise<boolean> {
  // After a write failed, or on input the journal was not made from (a resume from standard input
  // whose rows differ), the journal on disk is the last good one. Not after the log file's write
  // failed (its IO_ERROR names the field log-file): the outputs are whole, and the rows written
  // since the last checkpoint are committed as on any other stop, not paid for again by --resume.
  const writeFailed =
    isGeobatchError(error) &&
    ((error.code === 'IO_ERROR' && error.context.field !== 'log-file') ||
      error.code === 'CHECKPOINT_MISMATCH');
  if (isGeobatchError(error) && error.code === 'INPUT_ENCODING') return drop(files, options);
  // The input changed under the run (input/_source.ts): its checkpoint fingerprints the file as it
  // was, and --resume would refuse it, so it is not kept to be pointed at.
  if (isGeobatchError(error) && error.code === 'IO_ERROR' && error.context.field === 'input')
    return drop(files, options);
  // Inside a group, the rows up to the end of the last group written whole are committed (the
  // files' marks there): a resume cuts the files back to them and answers the cut group again,
  // from its first row. Inside the first group nothing is whole: nothing is kept.
  const atBoundary = resumable(options.job, tally.committedRows);
  // A distributed run's chunks that workers took are the run's, written or not: a checkpoint at
  // row 0 sends the user to --resume, which takes them up, not to a run again that pays for them.
  const elsewhere = options.workKept?.() === true;
  let kept = false;
  if (options.committer !== undefined && !writeFailed) {
    try {
      if (atBoundary && (tally.committedRows > 0 || elsewhere)) {
        // Also when no new row was written since: the journal then gets this session's request counts.
        await options.committer.commit(tally.committedRows);
        durable.rows = tally.committedRows;
        kept = elsewhere;
      } else if (!atBoundary && groups?.last !== undefined && groups.last.rows > 0) {
        const mark = groups.last;
        // Never behind a checkpoint made since (a periodic one at a later group's end).
        if (mark.rows >= durable.rows) {
          await options.committer.commitMark(mark, groups.after);
          durable.rows = mark.rows;
        }
      }
    } catch (failure) {
      options.logger.error(
        { err: failure },
        'The final checkpoint could not be written; the previous one is kept',
      );
    }
  }
  if (!atBoundary) {
    const row = tally.committedRows;
    options.logger.info(
      { row, checkpoint: durable.rows },
      durable.rows > 0
        ? `Stopped inside a group of rows, after row ${row}: the checkpoint keeps rows 1-${durable.rows}, whole groups, and a resume answers the rows from row ${durable.rows + 1} (their group's first) again`
        : `Stopped inside the first group of rows, after row ${row}: no group was written whole, so no row is kept, and the next run starts from the first row`,
    );
  }
  if (options.committer !== undefined && (durable.rows > 0 || kept)) {
    await files.close();
    return true;
  }
  return drop(files, options);
}

/**
 * The ends of the groups of a trip or match run (Job.resumableAt) as its rows are written: the files'
 * marks where the last group written whole ended, and the counts of the rows written since, for a
 * stop inside the next group (keep). Taken where the next group's first row comes to be written,
 * which is known to begin one (the job has read it); a few numbers per output and per group, and
 * nothing at all for jobs without groups, or a distributed run's (its chunks are cut between
 * groups, and its rows come whole).
 */
class GroupEnds {
  /** Where the files stood at the last group's end. */
  last: RowsMark | undefined;
  /** The rows written since. */
  after: RowsAfter = { ok: 0, failed: 0, failuresByCode: {} };

  constructor(
    private readonly job: AnyJob,
    private readonly committer: Committer,
  ) {}

  /** Before `outcome` is written: if a group begins at its row, the rows before it are whole. */
  before(outcome: Outcome): void {
    const index = outcome.ref.index;
    if (resumable(this.job, index)) {
      this.last = this.committer.mark(index);
      this.after = { ok: 0, failed: 0, failuresByCode: {} };
    }
    const after = this.after;
    if (outcome.status === 'ok') after.ok++;
    else {
      after.failed++;
      after.failuresByCode[outcome.issue.code] = (after.failuresByCode[outcome.issue.code] ?? 0) + 1;
    }
  }
}

function groupEnds(options: SessionOptions): GroupEnds | undefined {
  const { job, committer } = options;
  if (committer === undefined || options.process !== undefined) return undefined;
  // A pipeline says where a resume may start whether or not a step groups: it marks only if one does.
  if (job.resumableAt === undefined || (options.steps !== undefined && job.groupOf === undefined))
    return undefined;
  return new GroupEnds(job, committer);
}

async function drop(files: SessionFiles, options: SessionOptions): Promise<false> {
  await files.discard();
  try {
    await options.dropCheckpoint();
  } catch (failure) {
    options.logger.error({ err: failure }, 'A checkpoint with no committed row could not be deleted');
  }
  return false;
}

/**
 * The reader of standard output has seen enough (`| head`): a normal end for the rows it took.
 * The report of those rows is put in place; nothing is left to resume (a stream cannot be).
 */
async function closed(
  files: SessionFiles,
  options: SessionOptions,
  error: GeobatchError,
): Promise<SessionEnd> {
  try {
    files.end();
    await files.seal();
    await files.place();
    await options.dropCheckpoint();
    return { error, checkpointKept: false, finishing: false, filesWritten: true, placed: files.placed() };
  } catch (failure) {
    await files.discard();
    return { error: failure, checkpointKept: false, finishing: false, filesWritten: false, placed: [] };
  }
}

function outputClosed(rows: number): GeobatchError {
  return new RunError(
    'OUTPUT_CLOSED',
    `The program reading standard output closed it after ${rows} ${rows === 1 ? 'row' : 'rows'}; the run ended there`,
  );
}

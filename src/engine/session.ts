/**
 * Drives one session of a run: pulls outcomes from the engine into the run's files, commits
 * every interval, and at the end either finishes (accounting checked, files renamed, checkpoint
 * dropped) or keeps what is complete for a resume. The files are anything that can take outcomes.
 */
import type { Logger } from 'pino';
import { GeobatchError, isGeobatchError } from '../errors.js';
import type { Outcome, ReadItem } from '../types.js';
import { checkAccount } from './accounting.js';
import type { Committer } from './committer.js';
import type { EngineCounters } from './counters.js';
import { processRows } from './engine.js';
import type { AnyJob } from './job.js';
import type { EngineOptions } from './options.js';

/** What a session writes to (the output and report files, seen together). */
export interface SessionFiles {
  /** False asks the caller to await `drain()`. */
  write(outcome: Outcome): boolean;
  drain(): Promise<void>;
  /** The reader of the output went away (EPIPE on stdout). */
  readonly broken: boolean;
  /** Whether failed rows also go to an error report. */
  readonly reporting: boolean;
  end(): void;
  commit(): Promise<void>;
  close(): Promise<void>;
}

export interface SessionOptions {
  readonly job: AnyJob;
  readonly engine?: EngineOptions;
  readonly signal?: AbortSignal;
  /** This session's counters (the engine updates them). */
  readonly counters: EngineCounters;
  readonly committer: Committer | undefined;
  /** Rows below this index were written by earlier sessions: read again, never planned. */
  readonly fromRow: number;
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

/** Runs the session; resolves to how it ended (an error when it stopped), never rejects. */
export async function runSession(
  items: AsyncIterable<ReadItem>,
  files: SessionFiles,
  options: SessionOptions,
  tally: Tally,
): Promise<unknown> {
  try {
    await pump(items, files, options, tally);
    await finish(files, options, tally);
    return undefined;
  } catch (error) {
    await keep(files, options, tally, error);
    return error;
  }
}

async function pump(
  items: AsyncIterable<ReadItem>,
  files: SessionFiles,
  options: SessionOptions,
  tally: Tally,
) {
  const input = options.fromRow > 0 ? skipCommitted(items, options.fromRow) : items;
  const { job, engine, signal, counters, committer } = options;
  for await (const outcome of processRows(input, job, { ...engine, signal, counters })) {
    if (!files.write(outcome)) await files.drain();
    if (outcome.status === 'failed' && files.reporting) tally.reported++;
    tally.written++;
    tally.committedRows = outcome.ref.index + 1;
    if (files.broken) throw outputClosed();
    if (committer?.due() === true && resumable(job, tally.committedRows))
      await committer.commit(tally.committedRows);
  }
}

/** A checkpoint may only be made where a resumed run could start (not inside a trip's stops). */
function resumable(job: AnyJob, index: number): boolean {
  return job.resumableAt?.(index) ?? true;
}

/** Rows a resumed run already wrote are read again (to find where it stopped) but never planned. */
async function* skipCommitted(items: AsyncIterable<ReadItem>, below: number): AsyncGenerator<ReadItem> {
  for await (const item of items) if (item.ref.index >= below) yield item;
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
    throw new GeobatchError(
      'INVARIANT_BROKEN',
      `Rows are missing: ${options.fromRow} + ${tally.written} written, up to row ${tally.committedRows}`,
    );
  }
  await files.commit();
  await options.dropCheckpoint();
}

/**
 * A stopped session keeps what is complete: one last commit of the rows written (unless writing
 * itself failed: then the previous checkpoint is the last good one), then the files are closed.
 * A fresh run commits even with no row written, so that the checkpoint the summary names exists.
 */
async function keep(
  files: SessionFiles,
  options: SessionOptions,
  tally: Tally,
  error: unknown,
): Promise<void> {
  const writeFailed = isGeobatchError(error) && error.code === 'IO_ERROR';
  const progressed = tally.committedRows > options.fromRow || options.fromRow === 0;
  // Inside a group the previous checkpoint stays the one to resume from: the rows after it are
  // cut from the files on resume and answered again with their whole group.
  const atBoundary = resumable(options.job, tally.committedRows);
  if (!atBoundary) {
    options.logger.info(
      { row: tally.committedRows },
      'Stopped inside a group of rows: the previous checkpoint is kept, and a resume answers the group again',
    );
  }
  if (options.committer !== undefined && progressed && !writeFailed && atBoundary) {
    try {
      await options.committer.commit(tally.committedRows);
    } catch (failure) {
      options.logger.error(
        { err: failure },
        'The final checkpoint could not be written; the previous one is kept',
      );
    }
  }
  await files.close();
}

function outputClosed(): GeobatchError {
  return new GeobatchError('ABORTED', 'Standard output was closed by the reading program; the run stopped');
}

/**
 * The run's journal: how far the outputs and the report are durably written, so that a run killed at any
 * moment resumes where it stopped without requesting committed rows again.
 *
 * Commit order is the invariant: the outputs and the report are fsync'd first, then the journal is written
 * to a temporary file, fsync'd and renamed over the old one. A crash at any point leaves a journal
 * whose offsets are on disk; bytes past them are cut off on resume.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { CacheCounts } from '../cache/tally.js';
import type { EngineCounters } from '../engine/counters.js';
import { IoError, isGeobatchError, UsageError, withContext } from '../errors.js';
import { writeFileAtomically } from '../output/_atomic.js';
import { shellWord } from '../shell-word.js';
import { canonical } from './_canonical-path.js';
import { sameFile } from './_same-file.js';

/**
 * Identifies the input a journal was made from: a changed file must not be resumed. Standard
 * input has no size or time that holds from one run to the next (a file redirected once, piped
 * the next time): its rows are checked instead (Journal.committedDigest).
 */
export interface InputFingerprint {
  /** Absolute path, or `-` for standard input. */
  readonly path: string;
  /** Null for standard input (journals of earlier versions may hold a redirected file's). */
  readonly size: number | null;
  readonly mtimeMs: number | null;
}

/**
 * A side input as the run read it (a matrix's destinations file): the rows already written were
 * answered against it, so a resume with another or a changed one would mix two sets of answers in
 * one output. Compared as the input is, by path, size and modification time.
 */
export interface SideInputMark {
  /** Where the job file names it: `options.destinations`, `steps[1].options.destinations`. */
  readonly key: string;
  readonly path: string;
  /** Null when it could not be read (the run then stops when it reads it). */
  readonly size: number | null;
  readonly mtimeMs: number | null;
}

/** Where one file stands: its byte length and what its writer needs to go on. */
export interface FileMark {
  readonly target: string;
  readonly bytes: number;
  readonly state: Readonly<Record<string, unknown>>;
}

export interface Journal {
  readonly version: 1;
  /** The caller's fingerprint of the job (kind and settings). */
  readonly job: string;
  /** Its parts, to name the one that changed (absent in journals of earlier versions). */
  readonly jobParts?: Readonly<Record<string, string>>;
  /**
   * `job` holds the job's number constants as written (`{ value: 52.50 }` as 52.50), as every
   * version since c287dbb makes it. Absent in journals of earlier versions, which held the number
   * YAML read: only such a journal may match the fingerprint of that reading (verifyJournal's
   * `earlier`), or a constant re-spelled between a stop and its resume (7 to 007) would pass.
   */
  readonly constantsAsWritten?: true;
  readonly input: InputFingerprint;
  /** The side inputs the run read; absent when it reads none, and in journals of earlier versions. */
  readonly sideInputs?: readonly SideInputMark[];
  /** Rows with an index below this are written to every output and the report. */
  readonly committedRows: number;
  /**
   * Standard input: the digest of the rows below `committedRows` as they were read (see
   * run/_input-digest.ts), which a resume checks the rows it reads again against. Absent for a
   * file, and in journals of earlier versions.
   */
  readonly committedDigest?: string;
  /** The first output. */
  readonly output: FileMark;
  /** The outputs after the first, in order (absent in journals of runs with one output, and of earlier versions). */
  readonly moreOutputs?: readonly FileMark[];
  readonly report: FileMark | null;
  /** Counts of all sessions so far (requests include those for rows not yet committed). */
  readonly counters: EngineCounters;
  /**
   * HTTP requests of all sessions so far, retries included (the client's count; the engine counts
   * one per batch). Absent in journals of earlier versions.
   */
  readonly httpRequests?: number;
  /**
   * The request cache's counts of all sessions so far, as the summary's `cache` gives them;
   * absent when no session used a cache, and in journals of earlier versions.
   */
  readonly cache?: CacheCounts;
  /**
   * The run report and summary file the session that wrote this journal writes as it ends (null:
   * none), which a resume that writes its own elsewhere, or none, removes (run/_stale-reports.ts).
   * Absent in journals of earlier versions.
   */
  readonly runReport?: string | null;
  readonly summaryFile?: string | null;
  /**
   * What the summaries the run's first session found said of the error reports their runs wrote
   * (run/_stale-errors.ts): that session's stop wrote its own summary over them, and the resume
   * that puts the outputs in place still knows which report beside an output was the finished
   * run's. Absent when there was none, and in journals of earlier versions.
   */
  readonly earlierErrors?: readonly EarlierErrors[];
  readonly startedAt: string;
  readonly updatedAt: string;
  /** Running time of all sessions so far. */
  readonly elapsedMs: number;
  /**
   * Written once every row is in the files and each file is sealed at its .partial path, just
   * before they are renamed into place: the marks then hold each file's final size, and a resume
   * only renames the files still waiting (reading nothing, requesting nothing). Absent while rows
   * are written, and in journals of earlier versions.
   */
  readonly finishing?: FinishingMark;
  /**
   * A distributed run's (`--queue`): the chunks its workers answered are in the queue database,
   * not here, so a resume goes on only with the queue (_open-session.ts refuses one without it).
   * Absent for a run in one process, and in journals of earlier versions.
   */
  readonly distributed?: DistributedMark;
  /**
   * The command line's settings that no check covers and the resume should be given again
   * (RunSpec.resumeFlags); absent when none, and in journals of earlier versions.
   */
  readonly flags?: readonly string[];
}

/** Which queue a distributed run's journal belongs to. */
export interface DistributedMark {
  /** The queue database's URL without its password (never stored: PGPASSWORD or ~/.pgpass gives it). */
  readonly queue: string;
  /** The run's id in the queue (`geobatch status --queue`). */
  readonly run: string;
}

/** What a finishing run's files hold, for the summary of the resume that puts them in place. */
export interface FinishingMark {
  /** Per output, in order: records written and rows whose keys the CSV columns could not hold. */
  readonly outputs: readonly { readonly records: number; readonly unknownKeyRows: number }[];
  readonly reportRows: number;
}

/** A summary's account of the error report its run wrote (run/_stale-errors.ts). */
export interface EarlierErrors {
  /** The output that summary describes. */
  readonly output: string;
  /** The summary file read. */
  readonly summary: string;
  /** When that summary was written (its mtime, ms). */
  readonly summaryMs: number;
  /** Its error report: `report.path`, written by that run. */
  readonly errors: string;
  readonly format: string;
  readonly rows: number;
}

/** A journal's name is its run's first output's with this after it. */
export const CHECKPOINT_SUFFIX = '.checkpoint.json';

export function journalPath(outputTarget: string): string {
  return `${outputTarget}${CHECKPOINT_SUFFIX}`;
}

export function fingerprintInput(
  path: string,
  size: number | undefined,
  mtimeMs: number | undefined,
): InputFingerprint {
  if (path === '-') return { path, size: null, mtimeMs: null };
  return { path: resolve(path), size: size ?? null, mtimeMs: mtimeMs ?? null };
}

/** Each side input's mark, as it is now. */
export async function sideInputMarks(
  files: readonly { readonly key: string; readonly path: string }[],
): Promise<SideInputMark[]> {
  return Promise.all(
    files.map(async ({ key, path }) => {
      const info = await stat(path).catch(() => undefined);
      return { key, path: resolve(path), size: info?.size ?? null, mtimeMs: info?.mtimeMs ?? null };
    }),
  );
}

/** The journal at `path`, or undefined when there is none. */
export async function readJournal(path: string): Promise<Journal | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new IoError('IO_ERROR', `Cannot read checkpoint ${path}: ${(cause as Error).message}`, {
      file: path,
      cause,
    });
  }
  try {
    const journal = JSON.parse(text) as Journal;
    if (journal.version !== 1 || typeof journal.committedRows !== 'number') throw new Error('unknown layout');
    return journal;
  } catch (cause) {
    throw new IoError(
      'CHECKPOINT_MISMATCH',
      `Checkpoint ${path} cannot be read: ${(cause as Error).message}`,
      {
        file: path,
        cause,
        hint: `Run with --resume --restart-if-changed to start over from the first row (it deletes ${path} and the .partial files beside it), or delete them yourself.`,
      },
    );
  }
}

/**
 * Refuses a journal made by another job or from another (or a changed) input. `earlier`: what
 * journals of earlier versions hold for this job (RunSpec.earlierFingerprints), taken as `job`
 * from a journal of such a version only.
 */
export function verifyJournal(
  journal: Journal,
  path: string,
  job: string,
  input: InputFingerprint,
  parts?: Readonly<Record<string, string>>,
  earlier: readonly string[] = [],
  sideInputs: readonly SideInputMark[] = [],
): void {
  if (journal.constantsAsWritten !== true && earlier.includes(journal.job)) job = journal.job;
  const hint = `Resume with the job and input that made it, or delete ${path} and the .partial files to start over; a nightly job whose input is replaced each night runs with --resume --restart-if-changed, which starts over by itself.`;
  const changed =
    journal.job === job ? [] : changedParts(journal.jobParts, parts, inputPathWords(journal.input, input));
  if (changed.length > 0) {
    throw new IoError(
      'CHECKPOINT_MISMATCH',
      `Checkpoint ${path} was made with other settings: ${changed.join('; ')}`,
      {
        file: path,
        expected: journal.job,
        received: job,
        hint,
      },
    );
  }
  if (journal.job !== job) {
    // The fingerprint covers more than the job file: say so, or a user who only added --limit or
    // another -o looks for a change in the job that is not there.
    throw new IoError(
      'CHECKPOINT_MISMATCH',
      `Checkpoint ${path} was made with other settings: another job (kind, mapping, options, input settings) or other outputs (-o, -e, outputs:) or another row selection (--limit, --sample)`,
      { file: path, expected: journal.job, received: job, hint },
    );
  }
  const was = journal.input;
  // Standard input's rows are checked as they are read again (run/_input-digest.ts), whether they
  // come from a file or a pipe, this time or the last.
  const stdin = was.path === '-' && input.path === '-';
  if (!stdin && (was.path !== input.path || was.size !== input.size || was.mtimeMs !== input.mtimeMs)) {
    throw new IoError(
      'CHECKPOINT_MISMATCH',
      `Checkpoint ${path} was made from other input, or the input changed`,
      {
        file: path,
        expected: describe(was),
        received: describe(input),
        hint: timeOnly(was, input, hint) ?? hint,
      },
    );
  }
  verifySideInputs(journal, path, sideInputs, hint);
}

/**
 * The same file at the same size with another modification time: most often the same data written
 * again (a nightly fetch that rewrote an unchanged file). The checkpoint cannot tell, and says why.
 */
function timeOnly(was: InputFingerprint, now: InputFingerprint, hint: string): string | undefined {
  if (was.path !== now.path || was.size !== now.size || was.mtimeMs === null || now.mtimeMs === null)
    return undefined;
  return `The input has the size it had, but was modified since (${new Date(now.mtimeMs).toISOString()}, against ${new Date(was.mtimeMs).toISOString()}): a resume compares size and modification time, not the bytes, so a file written again with the same content counts as changed. ${hint}`;
}

/** Refuses a journal whose side inputs were other files, or have changed since. */
function verifySideInputs(journal: Journal, path: string, now: readonly SideInputMark[], hint: string): void {
  for (const was of journal.sideInputs ?? []) {
    const is = now.find((mark) => mark.key === was.key);
    // A side input the job no longer reads changed the job's fingerprint, refused before.
    if (is === undefined) continue;
    if (is.path === was.path && is.size === was.size && is.mtimeMs === was.mtimeMs) continue;
    throw new IoError(
      'CHECKPOINT_MISMATCH',
      `Checkpoint ${path} was made with another ${was.key} file, or it changed since: the rows written were answered against it as it was`,
      { file: path, field: was.key, expected: describe(was), received: describe(is), hint },
    );
  }
}

function describe(input: InputFingerprint): string {
  return `${input.path} (${input.size ?? '?'} bytes, modified ${input.mtimeMs === null ? '?' : new Date(input.mtimeMs).toISOString()})`;
}

/** Writes the journal atomically: temporary file, fsync, rename. */
export async function writeJournal(path: string, journal: Journal): Promise<void> {
  try {
    await writeFileAtomically(path, `${JSON.stringify(journal, null, 2)}\n`, 'checkpoint');
  } catch (error) {
    // Said only when true: a directory removed under the run took the checkpoint with it.
    const hint = existsSync(path)
      ? 'Check free disk space and permissions; the previous checkpoint is still in place.'
      : `Check free disk space and permissions, and that ${dirname(path)} still exists: no checkpoint is left there.`;
    throw isGeobatchError(error) ? withContext(error, { ...error.context, hint }) : error;
  }
}

/** Every output's mark, in order. */
export function outputMarks(journal: Journal): readonly FileMark[] {
  return [journal.output, ...(journal.moreOutputs ?? [])];
}

/** Refuses a journal made for other output or report files (the same outputs in the same order). */
export function verifyTargets(
  journal: Journal,
  path: string,
  outputs: readonly string[],
  report: string | null,
): void {
  const was = outputMarks(journal).map((mark) => mark.target);
  // One file named through a linked directory is the same file (_canonical-path.ts).
  const one = (a: string | null, b: string | null) =>
    a === b || (a !== null && b !== null && a !== '-' && b !== '-' && canonical(a) === canonical(b));
  const same = was.length === outputs.length && was.every((target, i) => one(target, outputs[i] ?? null));
  if (same && one(journal.report?.target ?? null, report)) return;
  throw new IoError('CHECKPOINT_MISMATCH', `Checkpoint ${path} was made for other output or report files`, {
    file: path,
    expected: `${was.join(', ')}, report ${journal.report?.target ?? 'none'}`,
    received: `${outputs.join(', ')}, report ${report ?? 'none'}`,
    hint: `Resume with the same outputs and report, or delete ${path} to start over.`,
  });
}

/** What `--resume` would do with a checkpoint a run without it found. */
export type Resumability =
  | { readonly resumable: true; readonly finishing: boolean; readonly stdin: boolean }
  | { readonly resumable: false; readonly reason: string };

/**
 * A fresh run would clobber an interrupted one: say how to continue it, or, when `--resume` would
 * refuse it (`found.reason`), that it cannot be continued; and how to start over. `queue`: a
 * distributed run's, when this run was given no --queue, which the command must add.
 */
export function checkpointExists(
  path: string,
  partialFiles: readonly string[],
  found: Resumability,
  queue?: string,
): UsageError {
  const remove = `delete ${[path, ...partialFiles].join(', ')}`;
  // A distributed run's checkpoint, found by a run without --queue: --resume alone is refused.
  const on =
    queue === undefined
      ? ''
      : ` --queue ${shellWord(queue)} (the password, if the database needs one, from PGPASSWORD or ~/.pgpass)`;
  const hint = found.resumable
    ? found.finishing
      ? `Pass --resume${on} to put its finished files in place (nothing is read or requested), or ${remove} to start over.`
      : `Pass --resume${on} to continue it${found.stdin ? ', giving the same data on standard input' : ''}, or ${remove} to start over.`
    : `--resume would refuse it (${found.reason}): ${remove} to start over, or pass --resume --restart-if-changed${on}, which does so.`;
  // Not "of this job" when --resume would refuse it: it may be another job's (or this one changed).
  const whose = found.resumable ? 'An interrupted run of this job' : 'An interrupted run';
  return new UsageError(`${whose} left a checkpoint: ${path}`, { file: path, hint });
}

/**
 * `--resume` without `--queue` on a distributed run's checkpoint: it would answer every row the
 * workers had answered again in this process (their answers are in the queue database and its
 * cache, not here: a reviewer's resume paid 55,351 requests for 29,630 addresses) and leave the
 * run in the queue for workers to go on with. Refused before anything is sent; `command`: the
 * command that goes on with the queue, where the caller knows it (the command line does).
 */
export function distributedCheckpoint(path: string, mark: DistributedMark, command?: string): UsageError {
  const queue = shellWord(mark.queue);
  const how =
    command === undefined ? `run the same command with --queue ${queue} added` : `run \`${command}\``;
  const error = new UsageError(
    `Checkpoint ${path} is of a distributed run (run ${mark.run} on the queue ${mark.queue}): --resume without --queue would answer its rows again in this process, paying again for what its workers answered, and leave the run in the queue for workers to take up`,
    {
      file: path,
      field: 'queue',
      expected: `--queue ${queue}`,
      received: 'no --queue',
      hint: `To go on with its workers, ${how} (the password, if the database needs one, from PGPASSWORD or ~/.pgpass). To run it in this process instead, give the distributed run up: delete ${path} and the .partial files beside it and run without --resume (\`geobatch queue prune --queue ${queue} --include-resumable\` removes it from the queue).`,
    },
  );
  refusals.set(error, { path, mark });
  return error;
}

const refusals = new WeakMap<object, { readonly path: string; readonly mark: DistributedMark }>();

/**
 * The refusal `error` is, if it is distributedCheckpoint's, with `command(queue)` (the command
 * line as typed, with --queue) as the command to run; any other error as it is.
 */
export function withQueueCommand(error: unknown, command: (queue: string) => string): unknown {
  const refused = typeof error === 'object' && error !== null ? refusals.get(error) : undefined;
  if (refused === undefined) return error;
  return distributedCheckpoint(refused.path, refused.mark, command(shellWord(refused.mark.queue)));
}

/** What each fingerprint part covers, in the words of the job file and the command line. */
const PART_WORDS: Readonly<Record<string, string>> = {
  job: 'the job differs (kind, mapping or options of a step)',
  input: 'the input settings differ (path, format, delimiter, encoding or record limits)',
  outputs: 'the outputs differ (-o, outputs:, or their format, delimiter or formula guard)',
  errors: 'the error report differs (-e, errors:)',
};

/**
 * The input part in words when the input's path is what differs: which file the checkpoint was
 * made from, and, when the two paths name one file (a link, a bind mount), that it is the path,
 * not the data, the resume must give as it was.
 */
function inputPathWords(was: InputFingerprint, now: InputFingerprint): string | undefined {
  if (was.path === now.path || was.path === '-' || now.path === '-') return undefined;
  const words = `the input settings differ: its path was ${was.path}, now ${now.path}`;
  return sameFile(was.path, now.path)
    ? `${words} (the same file by another path: give the path it was made with)`
    : words;
}

/**
 * The parts of the fingerprint that differ, in words; empty when either side has no parts.
 * `inputWords`: the input part's, when its path is known to differ.
 */
function changedParts(
  was: Readonly<Record<string, string>> | undefined,
  now: Readonly<Record<string, string>> | undefined,
  inputWords?: string,
): string[] {
  if (was === undefined || now === undefined) return [];
  const names = [...new Set([...Object.keys(was), ...Object.keys(now)])];
  return names
    .filter((name) => (was[name] ?? '') !== (now[name] ?? ''))
    .map((name) =>
      name === 'selection'
        ? `the row selection differs (--limit, --sample, --seed: it was ${shownSelection(was[name])}, now ${shownSelection(now[name])})`
        : name === 'input' && inputWords !== undefined
          ? inputWords
          : (PART_WORDS[name] ?? `${name} differs`),
    );
}

function shownSelection(key: string | undefined): string {
  if (key === undefined || key === '') return 'every row';
  return key
    .split(';')
    .filter((part) => !part.endsWith('='))
    .join(', ');
}

/**
 * Where a plain (single-process) run of a job stands, read from the files beside its first output
 * alone: its lock, its checkpoint (the journal), its summary and its `.partial`. What
 * `geobatch status <job>` shows; nothing is opened but those files, and nothing is written.
 *
 * The lock is judged as a run judges it before taking it over (lock.ts inspectLock), so that
 * "running" here is what a second run would be refused with LOCKED for, and "stopped" what it
 * would take over.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { IoError } from '../errors.js';
import { partialPath } from '../output/_sink.js';
import { type ResumeNext, type RunSummary, summaryPath } from '../output/summary.js';
import { type Journal, journalPath, outputMarks, readJournal } from './checkpoint.js';
import { type FoundLock, inspectLock, lockPath } from './lock.js';

/**
 * `running`: a live process holds the lock. `stopped`: a checkpoint (or a lock its dead run left)
 * and no live lock. `finished`: a summary and no checkpoint. `never-run`: none of those files.
 */
export type LocalState = 'running' | 'stopped' | 'finished' | 'never-run';

/** How far the last checkpoint says the run got (every session of a resumed run). */
export interface LocalProgress {
  readonly committedRows: number;
  readonly rowsRead: number;
  readonly ok: number;
  readonly failed: number;
  /** Requests as the summary counts them (one per batch); HTTP attempts are `httpRequests`. */
  readonly requests: number;
  /** Null in checkpoints of versions that did not count them. */
  readonly httpRequests: number | null;
  readonly startedAt: string;
  /** When the checkpoint was written. */
  readonly checkpointAt: string;
  readonly checkpointAgeSeconds: number;
  /** The checkpoint was written as the run put its finished files in place. */
  readonly finishing: boolean;
}

export interface LocalStatus {
  readonly state: LocalState;
  /** The (first) output, as the job file and `-o` resolve it. */
  readonly output: string;
  /** The lock's owner; null without a lock. */
  readonly lock: {
    readonly path: string;
    readonly pid: number | null;
    readonly hostname: string | null;
    readonly startedAt: string | null;
    /** Held by a live process; false: left by a run that was killed or crashed. */
    readonly live: boolean;
  } | null;
  /** From the checkpoint; null without one. */
  readonly progress: LocalProgress | null;
  /** A stopped run's checkpoint, and how `--resume` takes it up; null when there is none to go on from. */
  readonly resume: {
    readonly checkpoint: string;
    readonly next: ResumeNext;
    /**
     * The input the checkpoint was made from, when it is not the one the job file names (the run
     * was given `-i`): `--resume` continues it only from that input.
     */
    readonly input?: string;
    /**
     * Why `--resume` alone would be refused (its CHECKPOINT_MISMATCH message: a .partial gone or
     * cut short, a finished file removed, the job or its input changed), `next` being then
     * `start-over`; absent when it would go on, or when it was not judged.
     */
    readonly refused?: string;
    /** Every output the run wrote, in order, as its checkpoint records them (`-o` each). */
    readonly outputs?: readonly string[];
    /** The error report it wrote (`-e` where that is not the one the job file gives). */
    readonly errors?: string;
    /** Its row selection as the checkpoint keeps it (`limit=700;sample=;seed=`): --limit, --sample. */
    readonly selection?: string;
    /** The command line's settings the run had that its resume is given again (`--rate`, `5`). */
    readonly flags?: readonly string[];
    /**
     * A distributed run's queue (its URL without the password) and its run id there: `--resume`
     * goes on only with `--queue` it. Absent for a run in one process.
     */
    readonly queue?: string;
    readonly run?: string;
  } | null;
  /**
   * A stopped run: whether it ended by itself (its summary says why: `error`), or was killed or
   * crashed (a lock left behind, or no summary of its own). Null unless stopped.
   */
  readonly stop: {
    readonly crashed: boolean;
    readonly error: RunSummary['error'];
  } | null;
  /** The summary of the last run that ended; null without one (or while a run is running). */
  readonly summary: RunSummary | null;
  readonly summaryPath: string | null;
  /** The first output's `.partial`, when one is there. */
  readonly partial: string | null;
  /** Whether the (first) output itself is there (a run stopped before its end may have none). */
  readonly outputThere: boolean;
  /**
   * Whether the run report the summary names is there: a run killed between its summary and its
   * report names one it never wrote. False when the summary names none.
   */
  readonly runReportThere: boolean;
}

/**
 * The CHECKPOINT_MISMATCH `--resume` would be refused with for the checkpoint `journal` at `path`,
 * or undefined (_found-checkpoint.ts resumeRefusal, given the run's job and files).
 */
export type ResumeJudge = (journal: Journal, path: string) => Promise<Error | undefined>;

/**
 * Reads the state of the run whose (first) output is `output`; `now` for tests. `judge`: whether
 * `--resume` would take up a stopped run's checkpoint; without it, it is taken to.
 */
export async function localStatus(
  output: string,
  now = Date.now(),
  input?: string,
  judge?: ResumeJudge,
): Promise<LocalStatus> {
  const lockFile = lockPath(output);
  const [found, journal, summary] = await Promise.all([
    inspectLock(lockFile),
    readJournal(journalPath(output)),
    readSummary(summaryPath(output)),
  ]);
  const partial = existsSync(partialPath(output)) ? partialPath(output) : null;
  const lock = found === undefined ? null : lockOf(lockFile, found);
  const progress = journal === undefined ? null : progressOf(journal, now);
  const base = {
    output,
    outputThere: existsSync(output),
    lock,
    progress,
    partial,
    summaryPath: summary === undefined ? null : summaryPath(output),
    runReportThere: summary?.runReport != null && existsSync(summary.runReport),
  };
  if (found?.held === true) return { ...base, state: 'running', resume: null, stop: null, summary: null };
  // The summary the run that left the checkpoint wrote as it stopped: written after its journal.
  const own =
    journal !== undefined &&
    summary !== undefined &&
    summary.resume.checkpoint !== null &&
    Date.parse(summary.timing.endedAt) >= Date.parse(journal.updatedAt)
      ? summary
      : undefined;
  if (journal !== undefined) {
    const refusal = await judge?.(journal, journalPath(output));
    return {
      ...base,
      state: 'stopped',
      resume: {
        checkpoint: journalPath(output),
        next: refusal === undefined ? (own?.resume.next ?? nextOf(journal)) : 'start-over',
        ...(refusal === undefined ? {} : { refused: refusal.message }),
        ...(journal.distributed === undefined
          ? {}
          : { queue: journal.distributed.queue, run: journal.distributed.run }),
        // By its path, as --resume compares it (the same file by another path is refused);
        // standard input too: the command gives `-i -` and the same data again.
        ...(input === undefined || journal.input.path === input ? {} : { input: journal.input.path }),
        // What else the command line gave the run, which --resume must give again.
        outputs: outputMarks(journal).map((mark) => mark.target),
        ...(journal.report === null ? {} : { errors: journal.report.target }),
        ...(journal.jobParts?.selection ? { selection: journal.jobParts.selection } : {}),
        ...(journal.flags === undefined || journal.flags.length === 0 ? {} : { flags: journal.flags }),
      },
      // A lock outlives only a process that could not remove it: kill -9, a crash.
      stop: { crashed: found !== undefined || own === undefined, error: own?.error ?? null },
      summary: own ?? null,
    };
  }
  // A lock left, no checkpoint: the run died before its first commit, unless a summary came after it.
  const diedLater =
    found !== undefined &&
    (summary === undefined ||
      found.owner === undefined ||
      Date.parse(found.owner.startedAt) > Date.parse(summary.timing.endedAt));
  if (diedLater)
    return { ...base, state: 'stopped', resume: null, stop: { crashed: true, error: null }, summary: null };
  if (summary !== undefined) return { ...base, state: 'finished', resume: null, stop: null, summary };
  return { ...base, state: 'never-run', resume: null, stop: null, summary: null };
}

function lockOf(path: string, found: FoundLock): NonNullable<LocalStatus['lock']> {
  return {
    path,
    pid: found.owner?.pid ?? null,
    hostname: found.owner?.hostname ?? null,
    startedAt: found.owner?.startedAt ?? null,
    live: found.held,
  };
}

function progressOf(journal: Journal, now: number): LocalProgress {
  const { counters } = journal;
  return {
    committedRows: journal.committedRows,
    rowsRead: counters.rowsRead,
    ok: counters.rowsOk,
    failed: counters.rowsFailed,
    requests: counters.requestsSent,
    httpRequests: journal.httpRequests ?? null,
    startedAt: journal.startedAt,
    checkpointAt: journal.updatedAt,
    checkpointAgeSeconds: Math.max(0, Math.round((now - Date.parse(journal.updatedAt)) / 1000)),
    finishing: journal.finishing !== undefined,
  };
}

/**
 * How `--resume` takes up a checkpoint whose run wrote no summary (killed): as the run itself
 * decides it (_session-summary.ts resumeNext) from what the journal holds.
 */
function nextOf(journal: Journal): ResumeNext {
  return journal.finishing === undefined && journal.input.path === '-' ? 'resume-same-input' : 'resume';
}

async function readSummary(path: string): Promise<RunSummary | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new IoError('IO_ERROR', `Cannot read summary ${path}: ${(cause as Error).message}`, {
      file: path,
      cause,
    });
  }
  try {
    const summary = JSON.parse(text) as RunSummary;
    if (summary.version !== 1 || typeof summary.timing?.endedAt !== 'string')
      throw new Error('unknown layout');
    return summary;
  } catch (cause) {
    throw new IoError('IO_ERROR', `Summary ${path} cannot be read: ${(cause as Error).message}`, {
      file: path,
      cause,
      hint: 'It is rewritten by the next run; delete it to see the state without it.',
    });
  }
}

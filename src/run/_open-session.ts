/**
 * A run's session, opened: its checkpoint read and checked against the job, the input and the
 * files; the input opened (or, for a run that had written every row, only its files to put in
 * place); the outputs opened fresh or continuing the checkpoint's. What cannot be resumed stops
 * here (CHECKPOINT_MISMATCH) or, told to (--restart-if-changed), starts over.
 */
import { IoError, isGeobatchError } from '../errors.js';
import { openReader } from '../input/open.js';
import type { InputReader } from '../input/reader.js';
import { groupsOf, selectRows } from '../input/sample.js';
import { openRunFiles, type RunFiles, sealedRunFiles } from '../output/files.js';
import { checkpointOf } from './_checks.js';
import { foundCheckpoint, refuseOthersCheckpoints } from './_found-checkpoint.js';
import { digested, RowDigest } from './_input-digest.js';
import { checkOutputColumns } from './_output-columns.js';
import { startOver } from './_restart.js';
import { checkFinishing, unreadInput } from './_unplaced.js';
import {
  distributedCheckpoint,
  type FinishingMark,
  fingerprintInput,
  type InputFingerprint,
  type Journal,
  outputMarks,
  readJournal,
  type SideInputMark,
  sideInputMarks,
  verifyJournal,
  verifyTargets,
} from './checkpoint.js';
import { checkInput } from './mapped-columns.js';
import { outputsOf, type RunSpec } from './spec.js';

export interface Session {
  readonly reader: InputReader;
  readonly input: InputFingerprint;
  /** The side inputs as they are when the session opens (Journal.sideInputs). */
  readonly sideInputs: readonly SideInputMark[];
  readonly journal: Journal | undefined;
  readonly journalPath: string | undefined;
  readonly files: RunFiles;
  /** Standard input's rows as read, for the journal. */
  readonly digest: RowDigest | undefined;
}

export async function openSession(spec: RunSpec): Promise<Session> {
  const path = checkpointOf(spec);
  await refuseOthersCheckpoints(spec, path);
  const sideInputs = await sideInputMarks(spec.sideInputs ?? []);
  let journal = path === undefined ? undefined : await readOrStartOver(spec, path);
  const outputs = outputsOf(spec);
  if (path !== undefined && journal !== undefined && spec.resume !== true)
    throw await foundCheckpoint(spec, journal, path);
  // Before anything is read or sent, and whatever --restart-if-changed says: starting over here
  // would leave the run in the queue, its workers at its chunks.
  if (path !== undefined && journal?.distributed !== undefined && spec.distributed === undefined)
    throw distributedCheckpoint(path, journal.distributed);
  if (journal === undefined && spec.resume === true)
    spec.logger.info('No checkpoint found: starting from the first row');
  // A finishing resume needs no row: standard input, whose fingerprint is its rows, is only
  // checked (checkPiped), and not at all from a terminal.
  if (path !== undefined && journal?.finishing !== undefined && spec.input.path === '-') {
    const input = fingerprintInput('-', undefined, undefined);
    if (await stillValid(spec, journal, path, input, sideInputs)) {
      await checkPiped(spec, journal, path);
      return finishingSession(
        spec,
        journal,
        journal.finishing,
        path,
        input,
        sideInputs,
        unreadInput(spec.input),
      );
    }
    journal = undefined;
  }
  const opened = await openReader({
    ...spec.input,
    signal: spec.signal,
    stdin: spec.stdin,
    onWarning: warner(spec),
  });
  const watched = checkInput(spec.mapped, opened, (message) => spec.logger.warn(message));
  const checked = checkOutputColumns(watched, outputs, spec.job.columns);
  const selected = selectRows(checked, spec.rows, groupsOf(spec.job));
  const input = fingerprintInput(spec.input.path, selected.sizeBytes, selected.mtimeMs);
  if (
    path !== undefined &&
    journal !== undefined &&
    !(await stillValid(spec, journal, path, input, sideInputs))
  ) {
    journal = undefined;
  }
  if (path !== undefined && journal !== undefined) {
    // A journal of an earlier version kept no digest of the rows.
    if (spec.input.path === '-' && journal.committedDigest === undefined)
      spec.logger.warn('Resuming from standard input: the same data must be piped again');
  }
  if (path !== undefined && journal?.finishing !== undefined)
    return finishingSession(spec, journal, journal.finishing, path, input, sideInputs, selected);
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
  return { reader, input, sideInputs, journal, journalPath: path, files, digest };
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
  sideInputs: readonly SideInputMark[],
  reader: InputReader,
): Session {
  const unread = spec.input.path === '-' ? '; standard input is not read' : '';
  spec.logger.info(`The run being resumed had written every row: putting its files in place${unread}`);
  const files = sealedRunFiles(outputMarks(journal), journal.report, finishing);
  return { reader, input, sideInputs, journal, journalPath: path, files, digest: undefined };
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
  sideInputs: readonly SideInputMark[],
): Promise<boolean> {
  const outputs = outputsOf(spec).map((output) => output.path);
  try {
    verifyJournal(
      journal,
      path,
      spec.jobFingerprint,
      input,
      spec.jobParts,
      spec.earlierFingerprints,
      sideInputs,
    );
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
 * The checkpoint at `path`, if any. One that cannot be read (cut short, not JSON: a disk that
 * failed under it) stops the run with CHECKPOINT_MISMATCH, unless it was told to start over: a
 * nightly `--resume --restart-if-changed` stopped on it every night until someone deleted it.
 */
async function readOrStartOver(spec: RunSpec, path: string): Promise<Journal | undefined> {
  try {
    return await readJournal(path);
  } catch (error) {
    if (spec.resume !== true || !(await restarted(spec, undefined, path, error))) throw error;
    return undefined;
  }
}

/**
 * Whether the run started over from the checkpoint `error` refuses: only with `restartIfChanged`
 * and for CHECKPOINT_MISMATCH; the checkpoint and its .partial files are then deleted.
 */
async function restarted(
  spec: RunSpec,
  journal: Journal | undefined,
  path: string,
  error: unknown,
): Promise<boolean> {
  if (spec.restartIfChanged !== true || !isGeobatchError(error) || error.code !== 'CHECKPOINT_MISMATCH')
    return false;
  await startOver(spec, journal, path, error);
  // Its start was the set-aside checkpoint's (assemble.ts resumedStart): a refresh starts now.
  spec.cache?.restarted?.();
  return true;
}

export function warner(spec: RunSpec): (message: string) => void {
  return (message) => spec.logger.warn(message);
}

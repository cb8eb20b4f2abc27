/**
 * A checkpoint found by a run without `--resume`, which refuses to clobber it (checkpointExists):
 * its hint sends the user to `--resume` only where `--resume` would take the checkpoint up, and
 * names every file to delete to start over, those the checkpoint recorded for files this run no
 * longer writes included. What `--resume` would check after reading the input's first bytes is
 * checked here from the file's size and time; standard input cannot be, before it is read.
 */
import { stat } from 'node:fs/promises';
import { isGeobatchError, UsageError } from '../errors.js';
import { partialPath } from '../output/_sink.js';
import { checkFinishing } from './_unplaced.js';
import {
  checkpointExists,
  fingerprintInput,
  type Journal,
  journalPath,
  outputMarks,
  verifyJournal,
  verifyTargets,
} from './checkpoint.js';
import { outputsOf, type RunSpec } from './spec.js';

/** The refusal of a run without `--resume` that found the checkpoint `journal` at `path`. */
export async function foundCheckpoint(spec: RunSpec, journal: Journal, path: string): Promise<UsageError> {
  const outputs = outputsOf(spec).map((output) => output.path);
  const files = [...outputs, ...(spec.report === null ? [] : [spec.report.path])];
  const recorded = [...outputMarks(journal), ...(journal.report === null ? [] : [journal.report])].map(
    (mark) => mark.target,
  );
  const partials = [...new Set([...files, ...recorded].map(partialPath))];
  try {
    const input = spec.input.path === '-' ? fingerprintInput('-', undefined, undefined) : await inputOf(spec);
    verifyJournal(journal, path, spec.jobFingerprint, input ?? journal.input, spec.jobParts);
    verifyTargets(journal, path, outputs, spec.report?.path ?? null);
    if (journal.finishing !== undefined) await checkFinishing(journal);
  } catch (error) {
    if (!isGeobatchError(error) || error.code !== 'CHECKPOINT_MISMATCH') throw error;
    return checkpointExists(path, partials, { resumable: false, reason: error.message });
  }
  return checkpointExists(path, partials, {
    resumable: true,
    finishing: journal.finishing !== undefined,
    stdin: spec.input.path === '-',
  });
}

/** A file input's fingerprint; undefined when it cannot be read (the run says so when it opens it). */
async function inputOf(spec: RunSpec) {
  const info = await stat(spec.input.path).catch(() => undefined);
  return info === undefined ? undefined : fingerprintInput(spec.input.path, info.size, info.mtimeMs);
}

/**
 * Refuses a run that would write a file another run's checkpoint holds: the first output of an
 * interrupted run (its checkpoint beside it) that this run writes as a later output, or as its
 * report, or that it writes first under another checkpoint path. Writing it would replace that
 * run's `.partial`, which could then not be resumed ("shorter than the checkpoint says"). With
 * `--resume` too: this run's own checkpoint is another file. (A later output of the other run is
 * not found this way: its checkpoint is named after that run's first output.)
 */
export async function refuseOthersCheckpoints(spec: RunSpec, own: string | undefined): Promise<void> {
  const files = [
    ...outputsOf(spec).map((output) => output.path),
    ...(spec.report === null ? [] : [spec.report.path]),
  ];
  for (const file of files) {
    if (file === '-') continue;
    const path = journalPath(file);
    if (
      path === own ||
      !(await stat(path).then(
        () => true,
        () => false,
      ))
    )
      continue;
    throw new UsageError(
      `${file} belongs to an interrupted run, whose checkpoint is ${path}: this run would overwrite its unfinished output`,
      {
        file: path,
        hint: `Resume that run first (its own job and outputs, with --resume), or delete ${path} and ${partialPath(file)} to give it up; or write this run's file elsewhere.`,
      },
    );
  }
}

/**
 * A checkpoint found by a run without `--resume`, which refuses to clobber it (checkpointExists):
 * its hint sends the user to `--resume` only where `--resume` would take the checkpoint up, and
 * names every file to delete to start over, those the checkpoint recorded for files this run no
 * longer writes included. What `--resume` would check after reading the input's first bytes is
 * checked here from the file's size and time; standard input cannot be, before it is read.
 */
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { isGeobatchError, UsageError } from '../errors.js';
import { partialMismatch, partialPath } from '../output/_sink.js';
import { checkFinishing } from './_unplaced.js';
import {
  CHECKPOINT_SUFFIX,
  checkpointExists,
  fingerprintInput,
  type Journal,
  outputMarks,
  readJournal,
  sideInputMarks,
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
    verifyJournal(
      journal,
      path,
      spec.jobFingerprint,
      input ?? journal.input,
      spec.jobParts,
      spec.earlierFingerprints,
      await sideInputMarks(spec.sideInputs ?? []),
    );
    verifyTargets(journal, path, outputs, spec.report?.path ?? null);
    if (journal.finishing !== undefined) await checkFinishing(journal);
    else await checkPartialsThere(journal);
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

/**
 * The .partial files the checkpoint continues are there: one removed since, --resume refuses (as
 * its writer finds it gone), so the advice is not --resume but to start over.
 */
async function checkPartialsThere(journal: Journal): Promise<void> {
  const marks = [...outputMarks(journal), ...(journal.report === null ? [] : [journal.report])];
  for (const mark of marks) {
    const path = partialPath(mark.target);
    if (mark.bytes > 0 && (await stat(path).catch(() => undefined)) === undefined)
      throw partialMismatch(path, mark.bytes, undefined);
  }
}

/** A file input's fingerprint; undefined when it cannot be read (the run says so when it opens it). */
async function inputOf(spec: RunSpec) {
  const info = await stat(spec.input.path).catch(() => undefined);
  return info === undefined ? undefined : fingerprintInput(spec.input.path, info.size, info.mtimeMs);
}

/**
 * Refuses a run that would write a file another interrupted run's checkpoint holds (one of its
 * outputs or its report), with or without `--resume`: writing it would replace that run's
 * `.partial`, which could then not be resumed ("shorter than the checkpoint says"). The
 * checkpoints are found beside the files this run writes (a checkpoint lies beside its run's
 * first output), so a file that is another run's second output is found too, by the journal
 * that lists it; and beside this run's own checkpoint, where a library caller that keeps
 * checkpoints in one place of its own (`checkpoint.path`) keeps the others. An unreadable journal
 * is left to the run it belongs to.
 */
export async function refuseOthersCheckpoints(spec: RunSpec, own: string | undefined): Promise<void> {
  const files = [
    ...outputsOf(spec).map((output) => output.path),
    ...(spec.report === null ? [] : [spec.report.path]),
  ]
    .filter((file) => file !== '-')
    .map((file) => resolve(file));
  const mine = new Set(files);
  const ownPath = own === undefined ? undefined : resolve(own);
  const dirs = new Set(files.map(dirname));
  if (ownPath !== undefined) dirs.add(dirname(ownPath));
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (!name.endsWith(CHECKPOINT_SUFFIX)) continue;
      const path = join(dir, name);
      if (path === ownPath) continue;
      const journal = await readJournal(path).catch(() => undefined);
      if (journal === undefined) continue;
      const marks = [...outputMarks(journal), ...(journal.report === null ? [] : [journal.report])];
      const taken = marks.map((mark) => resolve(mark.target)).find((target) => mine.has(target));
      if (taken === undefined) continue;
      throw new UsageError(
        `${taken} belongs to an interrupted run, whose checkpoint is ${path}: this run would overwrite its unfinished output`,
        {
          file: path,
          hint: `Resume that run first (its own job and outputs, with --resume), or delete ${path} and ${partialPath(taken)} to give it up; or write this run's file elsewhere.`,
        },
      );
    }
  }
}

/**
 * A checkpoint found by a run without `--resume`, which refuses to clobber it (checkpointExists):
 * its hint sends the user to `--resume` only where `--resume` would take the checkpoint up, and
 * names every file to delete to start over, those the checkpoint recorded for files this run no
 * longer writes included. What `--resume` would check after reading the input's first bytes is
 * checked here from the file's size and time; standard input cannot be, before it is read.
 */
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { IoError, isGeobatchError, UsageError } from '../errors.js';
import { checkGpkgPartial } from '../output/_gpkg-file.js';
import { checkPartial, partialPath } from '../output/_sink.js';
import type { OutputSpec } from '../output/files.js';
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
  const refusal = await resumeRefusal(spec, journal, path);
  const queue = spec.distributed === undefined ? journal.distributed?.queue : undefined;
  if (refusal !== undefined)
    return checkpointExists(path, partials, { resumable: false, reason: refusal.message }, queue);
  return checkpointExists(
    path,
    partials,
    { resumable: true, finishing: journal.finishing !== undefined, stdin: spec.input.path === '-' },
    queue,
  );
}

/** What a run's `--resume` is checked against: its job, its input and the files it writes. */
export type ResumeFacts = Pick<
  RunSpec,
  | 'jobFingerprint'
  | 'jobParts'
  | 'earlierFingerprints'
  | 'sideInputs'
  | 'input'
  | 'output'
  | 'moreOutputs'
  | 'report'
>;

/**
 * The CHECKPOINT_MISMATCH `--resume` with `facts` would be refused with for the checkpoint
 * `journal` at `path`, or undefined when it would go on from it: the checks of its session
 * (_open-session.ts stillValid: the job, the input, the side inputs, the files), and those its
 * files make as they open (the .partial files there and as long as the checkpoint holds) or, for a
 * finishing checkpoint, as they are put in place (each waiting or in place as it was sealed). The
 * input is judged by its size and time alone (standard input not at all: its rows are checked as
 * they are read again); an input that cannot be read is left to the run, which says so.
 */
export async function resumeRefusal(
  facts: ResumeFacts,
  journal: Journal,
  path: string,
): Promise<IoError | undefined> {
  const outputs = outputsOf(facts);
  try {
    const input =
      facts.input.path === '-'
        ? fingerprintInput('-', undefined, undefined)
        : await inputOf(facts.input.path);
    verifyJournal(
      journal,
      path,
      facts.jobFingerprint,
      input ?? journal.input,
      facts.jobParts,
      facts.earlierFingerprints,
      await sideInputMarks(facts.sideInputs ?? []),
    );
    verifyTargets(
      journal,
      path,
      outputs.map((output) => output.path),
      facts.report?.path ?? null,
    );
    if (journal.finishing !== undefined) await checkFinishing(journal);
    else await checkPartialsThere(journal, outputs);
  } catch (error) {
    if (isGeobatchError(error) && error.code === 'CHECKPOINT_MISMATCH' && error instanceof IoError)
      return error;
    throw error;
  }
  return undefined;
}

/**
 * The .partial files the checkpoint continues are there, each as a resume opens it (output/open.ts):
 * a GeoPackage there at all, any other file at least as long as the checkpoint holds; one removed
 * or cut short since, --resume refuses, so the advice is not --resume but to start over.
 * `outputs`: the run's, in the checkpoint's order (verifyTargets).
 */
async function checkPartialsThere(journal: Journal, outputs: readonly OutputSpec[]): Promise<void> {
  for (const [i, mark] of outputMarks(journal).entries()) {
    const path = partialPath(mark.target);
    if (outputs[i]?.format === 'gpkg') await checkGpkgPartial(path);
    else await checkPartial(path, mark.bytes);
  }
  if (journal.report !== null) await checkPartial(partialPath(journal.report.target), journal.report.bytes);
}

/** A file input's fingerprint; undefined when it cannot be read (the run says so when it opens it). */
async function inputOf(file: string) {
  const info = await stat(file).catch(() => undefined);
  return info === undefined ? undefined : fingerprintInput(file, info.size, info.mtimeMs);
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

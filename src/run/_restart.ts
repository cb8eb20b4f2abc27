/**
 * Starting over from a checkpoint that cannot be resumed (`--restart-if-changed`): the checkpoint
 * goes, with the .partial files of this run's outputs and error report, and with those it recorded
 * for files this run no longer writes (an output dropped from the job file since the crash), which
 * nothing else would ever delete.
 */
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { GeobatchError } from '../errors.js';
import { partialSideFiles } from '../output/_gpkg-file.js';
import { partialPath, removeFile } from '../output/_sink.js';
import { canonical } from './_canonical-path.js';
import { type FileMark, type Journal, journalPath, outputMarks } from './checkpoint.js';
import { acquireLock, lockPath } from './lock.js';
import { outputsOf, type RunSpec } from './spec.js';

/**
 * Deletes the checkpoint at `path` and the files it kept, saying why (`error`) in the log. Without
 * `journal` (a checkpoint that cannot be read), only this run's own .partial files go: the files
 * it recorded for outputs the run no longer writes are not known.
 */
export async function startOver(
  spec: RunSpec,
  journal: Journal | undefined,
  path: string,
  error: GeobatchError,
): Promise<void> {
  const files = [
    ...outputsOf(spec).map((output) => output.path),
    ...(spec.report === null ? [] : [spec.report.path]),
  ];
  spec.logger.warn(
    { checkpoint: path, reason: error.message },
    `${error.message}: starting over from the first row (--restart-if-changed); the checkpoint and the .partial files of this run's outputs and error report are deleted`,
  );
  // Before the checkpoint, which is the only record of them.
  if (journal !== undefined) await removeStale(spec, journal, path, new Set(files.map(canonical)));
  for (const file of [path, ...files.map(partialPath)]) await removeFile(file);
}

/**
 * The .partial files the checkpoint recorded for files this run does not write. Only a file the
 * interrupted run can have left is deleted: one at least as long as the checkpoint has it, whose
 * lock no other run holds, with no checkpoint of another run beside it. Each deleted or kept file
 * is named in the log; none stops the run.
 */
async function removeStale(
  spec: RunSpec,
  journal: Journal,
  path: string,
  current: ReadonlySet<string>,
): Promise<void> {
  const marks = [...outputMarks(journal), ...(journal.report === null ? [] : [journal.report])];
  for (const mark of marks) {
    if (current.has(canonical(mark.target))) continue;
    const partial = partialPath(mark.target);
    const size = (await stat(partial).catch(() => undefined))?.size;
    if (size === undefined) continue;
    const keptBecause = whyKept(mark, size, path);
    if (keptBecause !== undefined) {
      spec.logger.warn({ file: partial }, `Kept ${partial}, recorded by the checkpoint: ${keptBecause}`);
      continue;
    }
    try {
      const lock = await acquireLock(lockPath(mark.target), (message) => spec.logger.warn(message));
      try {
        for (const file of [partial, ...partialSideFiles(mark.target)]) await removeFile(file);
      } finally {
        await lock.release();
      }
    } catch (failure) {
      const why = (failure as Error).message;
      spec.logger.warn(
        { file: partial, err: failure },
        `Kept ${partial}, recorded by the checkpoint: ${why}`,
      );
      continue;
    }
    spec.logger.warn(
      { file: partial },
      `Deleted ${partial}: the interrupted run wrote it for ${mark.target}, which this run does not write`,
    );
  }
}

/** Why a .partial file the checkpoint names may not be the one the interrupted run left. */
function whyKept(mark: FileMark, size: number, path: string): string | undefined {
  if (size < mark.bytes)
    return `it is shorter (${size} ${size === 1 ? 'byte' : 'bytes'}) than the checkpoint has it (${mark.bytes} bytes)`;
  const beside = journalPath(mark.target);
  if (canonical(beside) !== canonical(path) && existsSync(beside))
    return `${beside} beside it is another run's checkpoint`;
  return undefined;
}

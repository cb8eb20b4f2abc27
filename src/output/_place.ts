/**
 * Putting finished files in place: each sealed temporary file renamed over its target, in order.
 * A run ends here, and so does a resume of a run that stopped here: files an earlier try already
 * put in place are recognised by their size and passed, so that the renames can be taken up again.
 */
import { open, rename, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IoError } from '../errors.js';

/** A file complete at its temporary path, waiting to be renamed over its target. */
export interface SealedFile {
  /** The temporary file (`<target>.partial`). */
  readonly path: string;
  readonly target: string;
  /**
   * The size it was sealed at, when known (a resume knows it from the checkpoint): a file of
   * another size at either path is not taken for it.
   */
  readonly bytes?: number;
}

/** Renames a finished temporary file over its target, durably: every file output ends here. */
export async function moveIntoPlace(path: string, target: string): Promise<void> {
  try {
    await rename(path, target);
    await syncDirectory(target);
  } catch (cause) {
    throw new IoError('IO_ERROR', `Renaming ${path} to ${target} failed: ${(cause as Error).message}`, {
      file: target,
      cause,
      hint: `${renameFix(target, cause)}.`,
    });
  }
}

/**
 * Puts every file in place, in order, adding each target to `placed` as it gets there. A rename
 * that fails rejects with IO_ERROR: the message names the files in place and those still at their
 * temporary path (also in `context.detail`), the hint the fix for the cause (a directory now at
 * the target, permissions). A file missing from both paths, or of another size than it was sealed
 * at, rejects with CHECKPOINT_MISMATCH: it was changed or removed by hand.
 */
export async function placeAll(files: readonly SealedFile[], placed: Set<string>): Promise<void> {
  for (const file of files) {
    if (placed.has(file.target)) continue;
    const standing = await standingOf(file);
    if (standing === 'placed') {
      placed.add(file.target);
      continue;
    }
    if (standing !== 'waiting') throw standing;
    try {
      await moveIntoPlace(file.path, file.target);
    } catch (error) {
      throw unplaced(error as IoError, files, placed);
    }
    placed.add(file.target);
  }
}

/**
 * Rejects with placeAll's CHECKPOINT_MISMATCH for the first file that is neither waiting at its
 * temporary path nor in place as it was sealed; renames nothing.
 */
export async function checkSealed(files: readonly SealedFile[]): Promise<void> {
  for (const file of files) {
    const standing = await standingOf(file);
    if (standing instanceof IoError) throw standing;
  }
}

/** Where a sealed file stands: waiting to be renamed, already in place, or not as it was sealed. */
async function standingOf(file: SealedFile): Promise<'waiting' | 'placed' | IoError> {
  const waiting = await sizeOf(file.path);
  if (waiting === undefined && file.bytes !== undefined && (await sizeOf(file.target)) === file.bytes)
    return 'placed';
  if (waiting === undefined || (file.bytes !== undefined && waiting !== file.bytes))
    return notAsSealed(file, waiting);
  return 'waiting';
}

function unplaced(error: IoError, files: readonly SealedFile[], placed: ReadonlySet<string>): IoError {
  const inPlace = files.filter((file) => placed.has(file.target)).map((file) => file.target);
  const waiting = files.filter((file) => !placed.has(file.target)).map((file) => file.path);
  const where = inPlace.length === 0 ? 'none is in place' : `in place: ${inPlace.join(', ')}`;
  return new IoError(
    'IO_ERROR',
    `${error.message}; ${where}; complete, not yet in place: ${waiting.join(', ')}`,
    {
      ...error.context,
      cause: error.cause,
      detail: { inPlace: inPlace.join(', '), waiting: waiting.join(', ') },
    },
  );
}

function notAsSealed(file: SealedFile, size: number | undefined): IoError {
  return new IoError(
    'CHECKPOINT_MISMATCH',
    size === undefined
      ? `${file.path} is gone and ${file.target} is not the file the run finished`
      : `${file.path} is not the file the run finished (${size} bytes)`,
    {
      file: file.path,
      expected: file.bytes === undefined ? 'the finished file' : `${file.bytes} bytes`,
      received: size === undefined ? 'no file' : `${size} bytes`,
      hint: 'The finished file was changed or removed, so the run cannot be finished: start over with --resume --restart-if-changed, or delete the checkpoint and the .partial files and run again.',
    },
  );
}

/** The fix for what made a rename fail, in the words of the file it concerns. */
export function renameFix(target: string, cause: unknown): string {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const directory = dirname(target);
  switch (code) {
    case 'EISDIR':
    case 'ENOTEMPTY':
    case 'EEXIST':
      return `${target} is a directory: move it away`;
    case 'EACCES':
    case 'EPERM':
      return `${directory} does not let this user replace ${target} (${code}): restore the permissions`;
    case 'EROFS':
      return `${directory} is on a read-only file system: make it writable`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `The file system of ${directory} is full (${code}): free some space`;
    case 'ENOENT':
    case 'ENOTDIR':
      return `${directory} is gone or is no longer a directory (${code}): make it again`;
    default:
      return `Fix what the message says (${code ?? 'no error code'})`;
  }
}

/** Makes a rename durable; best effort, as some filesystems refuse to open a directory. */
async function syncDirectory(file: string): Promise<void> {
  const handle = await open(dirname(file), 'r').catch(() => undefined);
  if (handle === undefined) return;
  await handle.sync().catch(() => {});
  await handle.close();
}

async function sizeOf(path: string): Promise<number | undefined> {
  const info = await stat(path).catch(() => undefined);
  return info?.isFile() === true ? info.size : undefined;
}

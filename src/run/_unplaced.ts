/**
 * A run stopped while its files were being put in place: every row is in them and each is sealed,
 * but a rename was refused (a directory made at an output's path meanwhile, permissions changed)
 * or the checkpoint could not be deleted after the last one. Nothing is closed or deleted: some
 * files are in place, the rest complete at their .partial paths, and the finishing journal
 * (Journal.finishing) lets --resume rename the rest without reading or requesting anything.
 */
import { isGeobatchError, withContext } from '../errors.js';
import { type InputFormat, type InputReader, unread } from '../input/reader.js';
import { checkSealed } from '../output/_place.js';
import { partialPath } from '../output/_sink.js';
import { type Journal, outputMarks } from './checkpoint.js';

/**
 * A refused rename's hint says what to fix (output/_place.ts); this adds what to do then: resume
 * (`journaled`: a finishing journal is on disk), or without a checkpoint (output to standard
 * output, checkpoints off), rename by hand.
 */
export function unplacedError(error: unknown, journaled: boolean): unknown {
  if (!isGeobatchError(error) || error.code !== 'IO_ERROR') return error;
  const waiting = error.context.detail?.waiting;
  if (typeof waiting !== 'string' || waiting === '') return error;
  const fix = (error.context.hint ?? '').replace(/\.$/, '');
  const next = journaled
    ? 'then run again with --resume: it renames the files still waiting, reading and requesting nothing'
    : `then rename each file still waiting over its target (${waiting
        .split(', ')
        .map((path) => `mv ${shell(path)} ${shell(path.replace(/\.partial$/, ''))}`)
        .join('; ')})`;
  return withContext(error, { ...error.context, hint: `${fix}, ${next}.` });
}

/** A path as a POSIX shell takes it: quoted when it holds anything but safe characters. */
function shell(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

/**
 * The input of a resume that only renames: it is never opened, so that standard input is neither
 * asked for again nor waited on (a terminal, or a nightly job piping nothing). Its rows are the
 * finishing journal's; none is handed on.
 */
export function unreadInput(input: { readonly path: string; readonly format: InputFormat }): InputReader {
  const none = async function* (): AsyncGenerator<never> {};
  return {
    path: input.path,
    format: input.format,
    sizeBytes: undefined,
    mtimeMs: undefined,
    bytesRead: () => 0,
    position: unread,
    columns: () => [],
    truncated: () => false,
    lineCounts: () => ({ lines: 0, blank: 0, header: 0 }),
    [Symbol.asyncIterator]: none,
  };
}

/**
 * Rejects with CHECKPOINT_MISMATCH when a file of a finishing journal is neither waiting at its
 * .partial path nor in place as it was sealed (changed or removed by hand): the run cannot be
 * finished, only started over.
 */
export async function checkFinishing(journal: Journal): Promise<void> {
  const marks = [...outputMarks(journal), ...(journal.report === null ? [] : [journal.report])];
  await checkSealed(
    marks.map((mark) => ({ path: partialPath(mark.target), target: mark.target, bytes: mark.bytes })),
  );
}

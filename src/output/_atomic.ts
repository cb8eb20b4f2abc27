/**
 * The one atomic whole-file write: a temporary file beside the target, fsync, rename. A reader
 * sees the old file or the new one, never half of one; a crash leaves at worst the temporary file,
 * and a failed write removes it (on a full disk it only takes space another file needs).
 */
import { open, rename, unlink } from 'node:fs/promises';
import { IoError } from '../errors.js';

/** Writes `text` to `path` atomically; a failure is an IO_ERROR that names `what` and the file. */
export async function writeFileAtomically(
  path: string,
  text: string,
  what: string,
  hint?: string,
): Promise<void> {
  const temporary = `${path}.tmp`;
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (cause) {
    await unlink(temporary).catch(() => {});
    throw new IoError('IO_ERROR', `Cannot write ${what} ${path}: ${(cause as Error).message}`, {
      file: path,
      cause,
      ...(hint === undefined ? {} : { hint }),
    });
  }
}

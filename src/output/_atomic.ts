/**
 * The one atomic whole-file write: a temporary file beside the target, fsync, rename. A reader
 * sees the old file or the new one, never half of one; a crash leaves at worst the temporary file,
 * and a failed write removes it (on a full disk it only takes space another file needs), as does
 * an exit while it is written.
 */
import { unlinkSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { IoError } from '../errors.js';

/**
 * Temporary files being written, removed if the process exits before their rename: a second
 * Ctrl-C exits at once (cli/_signals.ts), and left `out.csv.report.html.tmp` beside the output.
 */
const unfinished = new Set<string>();
let removingOnExit = false;

function track(temporary: string): void {
  unfinished.add(temporary);
  if (removingOnExit) return;
  removingOnExit = true;
  process.once('exit', () => {
    for (const path of unfinished) {
      try {
        unlinkSync(path);
      } catch {
        // Gone already, or not ours to remove: nothing else can be done while exiting.
      }
    }
  });
}

/** Writes `text` to `path` atomically; a failure is an IO_ERROR that names `what` and the file. */
export async function writeFileAtomically(
  path: string,
  text: string,
  what: string,
  hint?: string,
): Promise<void> {
  const temporary = `${path}.tmp`;
  track(temporary);
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
    unfinished.delete(temporary);
  } catch (cause) {
    await unlink(temporary).catch(() => {});
    unfinished.delete(temporary);
    throw new IoError('IO_ERROR', `Cannot write ${what} ${path}: ${(cause as Error).message}`, {
      file: path,
      cause,
      ...(hint === undefined ? {} : { hint }),
    });
  }
}

/**
 * The files a run will write, checked before a lock is taken or a request is sent: a target that
 * cannot be a file (an existing directory) is a usage error then, not a failure after the work.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

export interface Target {
  /** What the file is, as the message names it: `output`, `error report`, `checkpoint`... */
  readonly role: string;
  readonly path: string;
  /** A file name to suggest inside the directory, e.g. `result.csv`. */
  readonly suggest?: string;
}

/** Throws USAGE naming the first target that is an existing directory. */
export async function refuseDirectories(targets: readonly Target[]): Promise<void> {
  for (const target of targets) {
    if (target.path === '-') continue;
    const info = await stat(target.path).catch(() => undefined);
    if (info?.isDirectory() !== true) continue;
    throw new UsageError(`The ${target.role} ${target.path} is an existing directory, not a file`, {
      file: target.path,
      expected: 'a file path',
      received: 'a directory',
      hint:
        target.suggest === undefined
          ? `Remove or rename ${target.path}.`
          : `Name a file, e.g. ${join(target.path, target.suggest)}.`,
    });
  }
}

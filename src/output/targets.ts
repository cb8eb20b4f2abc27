/**
 * The files a run will write, checked before a lock is taken or a request is sent: a target that
 * cannot be a file (an existing directory) is a usage error then, not a failure after the work.
 */
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

export interface Target {
  /** What the file is, as the message names it: `output`, `error report`, `checkpoint`... */
  readonly role: string;
  readonly path: string;
  /** A file name to suggest inside the directory, e.g. `result.csv`. */
  readonly suggest?: string;
  /** Written where it is (a `.partial` file, a lock), not renamed over: a device there is used as one. */
  readonly inPlace?: boolean;
}

/**
 * Throws USAGE naming the first target that exists and is not a regular file. A directory is
 * named as such. A device, pipe or socket (`/dev/stdout`, `/dev/null`, a FIFO) is refused too
 * where the file is written beside it and renamed over it: that would replace the device itself
 * (as root, `/dev/stdout` became a regular file) and never write to it.
 */
export async function refuseDirectories(targets: readonly Target[]): Promise<void> {
  for (const target of targets) {
    if (target.path === '-') continue;
    const info = await stat(target.path).catch(() => undefined);
    if (info === undefined || info.isFile()) continue;
    if (!info.isDirectory()) {
      if (target.inPlace === true) continue;
      throw notAFile(target, specialKind(info));
    }
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

function specialKind(info: Stats): string {
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isFIFO()) return 'a pipe';
  if (info.isSocket()) return 'a socket';
  return 'a special file';
}

function notAFile(target: Target, kind: string): UsageError {
  return new UsageError(`The ${target.role} ${target.path} is ${kind}, not a file geobatch can write`, {
    file: target.path,
    expected: 'a regular file path',
    received: kind,
    hint:
      target.role === 'output'
        ? 'Write standard output with -o - (one output, no checkpoint), or name a regular file.'
        : `Name a regular file for the ${target.role}.`,
  });
}

/** A file's path as the file system knows it, for telling one file named two ways from two files. */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * A path as the file system resolves it: its directory's links followed (`lnk/x.csv` and
 * `x.csv` are one file when `lnk` links here), so that one file named twice is caught before its
 * two writers race for it. A directory that does not exist yet is taken as written.
 */
export function canonical(file: string): string {
  const path = resolve(file);
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return path;
  }
}

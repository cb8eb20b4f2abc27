/** A file's path as the file system knows it, for telling one file named two ways from two files. */
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { JobConfig } from '../config/load.js';

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

/**
 * The job with the files it writes named by their real paths (standard output as it is): what
 * its checkpoint's fingerprint is taken over, so that a resume naming the same files through a
 * linked directory continues them (it was refused as made for other outputs, and the user sent
 * to a restart that paid for every row again).
 */
export function writtenFilesByRealPath(config: JobConfig): JobConfig {
  const real = <T extends { readonly path: string }>(file: T): T =>
    file.path === '-' ? file : { ...file, path: canonical(file.path) };
  return {
    ...config,
    output: real(config.output),
    moreOutputs: config.moreOutputs.map(real),
    errors: real(config.errors),
  };
}

/**
 * Whether a file can be created at a path, and if not, why in words a user can act on: the
 * error alone misleads (mkdir under a file says EEXIST, "file already exists"). Used for the
 * outputs and reports before a run takes its lock, and for the log file.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmdirSync, statSync } from 'node:fs';
import { access, constants, mkdir, open, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** Why a file cannot be created at a path, and what to do about it. */
export interface PathProblem {
  /** What is wrong: `/data/a is a file, not a directory`. */
  readonly reason: string;
  /** What to do, a sentence without its full stop: `Name the output (-o) somewhere not under ...`. */
  readonly fix: string;
}

/** Errors that say the path cannot hold a file; any other (ENOSPC, EIO, EMFILE) is not the path's fault. */
const PATH_ERRORS: ReadonlySet<string> = new Set(
  'EACCES EPERM EROFS ENOENT ENOTDIR EEXIST EISDIR'.split(' '),
);

/**
 * What is wrong with `file`, given the error creating it or its directory failed with;
 * undefined when that error is not the path's fault. The directory is looked at again, because
 * the error alone misleads: mkdir under a file says EEXIST, "file already exists". `named` is
 * how the fix names the file (`the output (-o)`); `suggest`, a name to offer inside a directory.
 */
export function whyUnwritable(
  file: string,
  cause: unknown,
  named: string,
  suggest = 'file',
): PathProblem | undefined {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined || !PATH_ERRORS.has(code)) return undefined;
  if (code === 'EISDIR')
    return {
      // `logs/`, there or not, names a directory by its ending: "it is a directory" was untrue
      // of one that did not exist.
      reason: file.endsWith('/') ? 'it ends with / and so names a directory' : 'it is a directory',
      fix: `Name ${named} as a file, e.g. ${join(file, suggest)}`,
    };
  const { path, directory } = nearestExisting(dirname(file));
  if (!directory) {
    const fix = `Name ${named} somewhere not under the file ${path}, or move that file away`;
    return { reason: `${path} is a file, not a directory`, fix };
  }
  if (code === 'EROFS')
    return {
      reason: `${path} is on a read-only file system`,
      fix: `Name ${named} on a writable file system`,
    };
  const denied = code === 'EACCES' || code === 'EPERM';
  return {
    reason: denied ? `${path} is not writable (${code})` : `no file can be created in ${path} (${code})`,
    fix: `Name ${named} in a directory you can write to${denied ? `, or change the permissions of ${path}` : ''}`,
  };
}

/**
 * `mkdir -p`, a level at a time: Node's recursive mkdir loops for ever under a directory that
 * refuses a new one with ENOENT (/proc/sub on Linux, Node 24). A file in the way is ENOTDIR.
 * Returns the directories it made, the outermost first.
 */
export function makeDirectory(directory: string): string[] {
  const target = resolve(directory);
  const existing = nearestExisting(target);
  if (!existing.directory)
    throw Object.assign(new Error(`${existing.path} is not a directory`), { code: 'ENOTDIR' });
  const missing: string[] = [];
  for (let level = target; level !== existing.path; level = dirname(level)) missing.unshift(level);
  const made: string[] = [];
  for (const level of missing) {
    try {
      mkdirSync(level);
      made.push(level);
    } catch (error) {
      // Made meanwhile by another run: fine.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return made;
}

/**
 * Removes the directories a run made (`makeDirectory`'s list) that it left empty: a run refused
 * after they were made (a mapped column the header lacks) leaves no empty `out/` behind. A
 * directory something was written to, by this run or another, stays.
 */
export function removeEmptyDirectories(made: readonly string[]): void {
  for (const directory of [...made].reverse()) {
    try {
      rmdirSync(directory);
    } catch {
      // Not empty, or gone: kept as it is.
    }
  }
}

/**
 * Whether `makeDirectory(directory)` could make it and a file be created in it, leaving nothing
 * behind (for `geobatch validate`): throws as they would, ENOTDIR for a file in the way, EACCES for
 * a directory that cannot be written. A missing level is probed by making and removing a directory
 * of its own beside it: access() alone passed /proc for root, where mkdir fails with ENOENT.
 */
export async function probeDirectory(directory: string): Promise<void> {
  const target = resolve(directory);
  const existing = nearestExisting(target);
  if (!existing.directory)
    throw Object.assign(new Error(`${existing.path} is not a directory`), { code: 'ENOTDIR' });
  await access(existing.path, constants.W_OK);
  if (existing.path === target) return;
  const probe = probePath(existing.path);
  await mkdir(probe);
  await rmdir(probe).catch(() => undefined);
}

/**
 * Whether a new file can be created in `directory`, by creating one of its own and removing it at
 * once; nothing for a directory that does not exist yet (probeDirectory's to say). The run's first
 * file there is its lock: /proc and /sys pass access() for root and refuse it (ENOENT, EACCES).
 */
export async function probeFile(directory: string): Promise<void> {
  const target = resolve(directory);
  const found = await stat(target).catch(() => undefined);
  if (found?.isDirectory() !== true) return;
  const probe = probePath(target);
  await (await open(probe, 'wx')).close();
  await unlink(probe).catch(() => undefined);
}

/** A name in `directory` that no other file has: the probe's, this process's and random. */
function probePath(directory: string): string {
  return join(directory, `.geobatch-probe-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** The closest of `directory` and its parents that exists, and whether it is a directory. */
function nearestExisting(directory: string): { path: string; directory: boolean } {
  for (let path = directory; ; path = dirname(path)) {
    try {
      return { path, directory: statSync(path).isDirectory() };
    } catch {
      // Missing (ENOENT) or under a file (ENOTDIR): look at the parent.
    }
    if (dirname(path) === path) return { path, directory: true };
  }
}

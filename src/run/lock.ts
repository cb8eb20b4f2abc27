/**
 * One run per output target: an exclusively created lock file holding the owner's pid, host and
 * start time. A lock whose process is gone (same host: no such pid, or one that has exited and
 * waits to be reaped; src/process-alive.ts) is taken over.
 * A lock held when the process exits without releasing it (a second Ctrl-C, a forced stop) is
 * removed on the way out, so only kill -9 or a crash of the machine leaves one behind.
 *
 * On another host the pid tells nothing, so a run refreshes its lock's modification time every
 * HEARTBEAT_MS, and a lock from another host not refreshed for STALE_MS is taken over: a nightly
 * job in a container (Kubernetes' CronJob) starts under a new hostname every night, and a lock
 * its crashed predecessor left on the shared volume blocked every night after.
 */

import { randomUUID } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { type GeobatchError, IoError, UsageError } from '../errors.js';
import { processRunning, startedAfter } from '../process-alive.js';

export interface LockOwner {
  readonly pid: number;
  readonly hostname: string;
  readonly startedAt: string;
  /**
   * This acquisition's own id: two runs of one process (the library's runJobFile twice at once)
   * share pid and may share the millisecond. Absent from locks written before it existed.
   */
  readonly id?: string;
}

export interface Lock {
  readonly path: string;
  release(): Promise<void>;
}

const LOCK_SUFFIX = '.lock';

/** How often a run refreshes its lock's modification time. */
const HEARTBEAT_MS = 30_000;
/** A lock of another host not refreshed for this long is taken to be left by a run that died. */
const STALE_MS = 5 * 60_000;

export interface LockOptions {
  /** @default HEARTBEAT_MS (30 s); for tests */
  readonly heartbeatMs?: number;
}

export function lockPath(outputTarget: string): string {
  return `${outputTarget}${LOCK_SUFFIX}`;
}

/** The file a lock is for: lockPath's inverse. */
function lockedFile(path: string): string {
  return path.endsWith(LOCK_SUFFIX) ? path.slice(0, -LOCK_SUFFIX.length) : path;
}

export async function acquireLock(
  path: string,
  onWarning: (message: string) => void = () => {},
  options: LockOptions = {},
): Promise<Lock> {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const me: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    id: randomUUID(),
  };
  // Ours before the file exists: another run of this process that reads it meanwhile must find it
  // alive, not a lock some earlier process with this pid left.
  ours.add(keyOf(path, me));
  try {
    if (await create(path, me)) return held(path, me, heartbeatMs);
    return await takeOver(path, me, heartbeatMs, onWarning);
  } catch (error) {
    ours.delete(keyOf(path, me));
    throw error;
  }
}

async function takeOver(
  path: string,
  me: LockOwner,
  heartbeatMs: number,
  onWarning: (message: string) => void,
): Promise<Lock> {
  const found = await inspectLock(path);
  const owner = found?.owner;
  const idleMs = found?.idleMs ?? Number.POSITIVE_INFINITY;
  if (found?.held === true) {
    throw new IoError('LOCKED', busy(path, owner), {
      file: path,
      ...(owner === undefined ? {} : { detail: { hostname: owner.hostname, startedAt: owner.startedAt } }),
      hint: `Wait for it to finish. If no such run exists, delete ${path}.`,
    });
  }
  // Re-read before removing, so that a lock another run just took over is not deleted.
  const again = await readOwner(path);
  if (again !== undefined && owner !== undefined && keyOf(path, again) !== keyOf(path, owner)) {
    throw new IoError('LOCKED', busy(path, again), {
      file: path,
    });
  }
  onWarning(
    owner === undefined
      ? `Taking over unreadable lock ${path}`
      : owner.hostname !== hostname()
        ? `Taking over stale lock ${path} of pid ${owner.pid} on ${owner.hostname}, not refreshed for ${Math.round(idleMs / 60_000)} min (a running run refreshes it every ${Math.round(heartbeatMs / 1000)} s)`
        : owner.pid !== process.pid && processRunning(owner.pid)
          ? `Taking over stale lock ${path} of pid ${owner.pid}, which another process has taken since the lock was written (${owner.startedAt})`
          : `Taking over stale lock ${path} of pid ${owner.pid}, which is no longer running`,
  );
  await unlink(path).catch(() => {});
  if (await create(path, me)) return held(path, me, heartbeatMs);
  const winner = await readOwner(path);
  throw new IoError('LOCKED', busy(path, winner), {
    file: path,
  });
}

/** A lock as another process finds it: its owner (undefined when unreadable), and whether it is held. */
export interface FoundLock {
  readonly owner: LockOwner | undefined;
  /** Whether a run would find it held (LOCKED), rather than take it over as one a dead run left. */
  readonly held: boolean;
  /** How long since its owner last refreshed it. */
  readonly idleMs: number;
}

/**
 * The lock at `path` as a run would judge it before taking it over; undefined when there is
 * none. `geobatch status` asks it of a job's output, so that "running" there means what LOCKED means.
 */
export async function inspectLock(path: string): Promise<FoundLock | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) return undefined;
  const owner = await readOwner(path);
  const idleMs = Date.now() - info.mtimeMs;
  return { owner, idleMs, held: owner === undefined ? await fresh(path) : alive(owner, path, idleMs) };
}

/**
 * LOCKED's words: the file another run is writing (it may be another job sharing one output or
 * error report), and its pid, with its host when that is not this one.
 */
function busy(path: string, owner: LockOwner | undefined): string {
  const file = lockedFile(path);
  const where = owner !== undefined && owner.hostname !== hostname() ? ` on ${owner.hostname}` : '';
  return `Another run is already writing ${file} (pid ${owner?.pid ?? '?'}${where})`;
}

async function create(path: string, owner: LockOwner): Promise<boolean> {
  try {
    const handle = await open(path, 'wx');
    try {
      await handle.writeFile(`${JSON.stringify(owner)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotCreate(path, cause);
  }
}

/** Errors that say the directory takes no new file, whatever is asked of it. */
const REFUSED: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOTDIR']);

/**
 * The lock is the first file a run creates beside its output, so a directory that refuses it
 * refuses the output too: a path to change (USAGE, as for an output that is a directory), not a
 * run that failed. A full disk or the like stays IO_ERROR. `geobatch validate` refuses in these
 * words a directory its probe file could not be created in (src/run/_checks.ts checkPlaces).
 */
export function cannotCreate(path: string, cause: unknown): GeobatchError {
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === undefined || !REFUSED.has(code)) {
    return new IoError('IO_ERROR', `Cannot create lock ${path}: ${(cause as Error).message}`, {
      file: path,
      hint: 'Check free disk space and permissions.',
      cause,
    });
  }
  const output = lockedFile(path);
  const reason = `no file can be created in ${dirname(path)} (${code})`;
  return new UsageError(`The output ${output} cannot be written: ${reason}`, {
    file: output,
    expected: 'a file path in a directory that can be written',
    received: reason,
    hint: "Name the output (-o, or the job file's output:) in a directory you can write to.",
    cause,
  });
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    const owner = JSON.parse(await readFile(path, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

/** An unreadable lock may be one another run has created but not yet filled in. */
async function fresh(path: string): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs < 10_000;
}

/**
 * The locks this process holds, by path and the start time written in them. A lock naming this process's
 * pid that is not among them was left by an earlier process that had the same pid: in a container
 * restarted after a crash, geobatch is often pid 1 again, and the lock would block every run.
 */
const ours = new Set<string>();

/** A lock's owner as `ours` holds it. */
function keyOf(path: string, owner: LockOwner): string {
  return `${path}\n${owner.startedAt}\n${owner.id ?? ''}`;
}

function same(a: LockOwner | undefined, b: LockOwner): boolean {
  return a !== undefined && a.pid === b.pid && a.startedAt === b.startedAt && a.id === b.id;
}

/**
 * On another host the pid means nothing here: the lock is alive while its run refreshes it. `idleMs`:
 * how long ago it was last refreshed.
 */
function alive(owner: LockOwner, path: string, idleMs: number): boolean {
  if (owner.hostname !== hostname()) return idleMs < STALE_MS;
  if (owner.pid === process.pid) return ours.has(keyOf(path, owner));
  return processRunning(owner.pid) && !startedAfter(owner.pid, Date.parse(owner.startedAt));
}

function held(path: string, me: LockOwner, heartbeatMs: number): Lock {
  let released = false;
  // Unref'd: the heartbeat never keeps a process alive; a failed refresh is tried again next time.
  const heartbeat = setInterval(() => {
    const now = new Date();
    utimes(path, now, now).catch(() => {});
  }, heartbeatMs).unref();
  // 'exit' handlers must be synchronous: the event loop is gone.
  const onExit = () => {
    clearInterval(heartbeat);
    try {
      if (same(JSON.parse(readFileSync(path, 'utf8')) as LockOwner, me)) unlinkSync(path);
    } catch {
      // No lock, or not ours: nothing to remove.
    }
  };
  process.once('exit', onExit);
  return {
    path,
    async release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      ours.delete(keyOf(path, me));
      process.off('exit', onExit);
      if (same(await readOwner(path), me)) await unlink(path).catch(() => {});
    },
  };
}

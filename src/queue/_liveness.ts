/** Whether a coordinator that a run names is still there. */
import { hostname } from 'node:os';
import { processRunning, startedAfter } from '../process-alive.js';

/**
 * A coordinator named `host:pid` of this machine whose process is gone (kill -9, a crash): none
 * runs under the pid, or the one that does started after the coordinator was last seen, and so is
 * another process that took the pid (as the lock asks, run/lock.ts).
 */
export function diedHere(coordinator: string, seenAt?: Date): boolean {
  if (!onThisHost(coordinator)) return false;
  const pid = Number(coordinator.slice(coordinator.lastIndexOf(':') + 1));
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  return !processRunning(pid) || (seenAt !== undefined && startedAfter(pid, seenAt.getTime()));
}

/** Whether a process named `host:pid` (runs.ts, processName) is one of this machine. */
export function onThisHost(name: string): boolean {
  const at = name.lastIndexOf(':');
  return at > 0 && name.slice(0, at) === hostname();
}

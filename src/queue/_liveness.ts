/** Whether a coordinator that a run names is still there. */
import { hostname } from 'node:os';
import { processRunning } from '../process-alive.js';

/** A coordinator named `host:pid` of this machine whose process is gone (kill -9, a crash). */
export function diedHere(coordinator: string): boolean {
  const at = coordinator.lastIndexOf(':');
  if (coordinator.slice(0, at) !== hostname()) return false;
  const pid = Number(coordinator.slice(at + 1));
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  return !processRunning(pid);
}

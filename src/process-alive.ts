/**
 * Whether a process of this machine is still running: what a lock (run/lock.ts) and a distributed
 * run's coordinator (queue/_liveness.ts) ask of the pid they name.
 *
 * `kill(pid, 0)` alone answers yes for a zombie: a process that has exited but that its parent
 * has not reaped yet. A run killed by `timeout -s KILL` (which kills itself with it) is reparented
 * to the machine's init, and an init that reaps late (a container's first process that is not an
 * init, some VM agents) left its lock "held" for seconds, or for good, after the run was gone: the
 * next cron run stopped with LOCKED. A zombie holds no file and writes nothing, so on Linux its
 * state in /proc decides; where there is no /proc, the signal's answer stands.
 */
import { readFileSync } from 'node:fs';

export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (cause) {
    // EPERM: it exists and belongs to another user.
    return (cause as NodeJS.ErrnoException).code === 'EPERM' && !exited(pid);
  }
  return !exited(pid);
}

/** Linux: the state letter after the command name's closing parenthesis (which may itself hold one). */
function exited(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}

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

/**
 * Linux: whether the process now under `pid` started after `time` (ms since the epoch), so that it
 * cannot be the one that wrote a lock then: pids are reused, after a reboot at once, and a lock
 * naming pid 1 (or any pid a new process took) kept a nightly job LOCKED until someone deleted
 * it. False where /proc does not tell, or the process started before.
 */
export function startedAfter(pid: number, time: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22, starttime, in clock ticks after boot; the fields after the command name from 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[19]);
    const boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1];
    if (!Number.isFinite(ticks) || boot === undefined) return false;
    // USER_HZ is 100 on every Linux geobatch runs on; a second's slack covers the rounding.
    const started = (Number(boot) + ticks / 100) * 1000;
    return started > time + 1000;
  } catch {
    return false;
  }
}

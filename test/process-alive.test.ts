import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processRunning } from '../src/process-alive.js';
import { diedHere } from '../src/queue/_liveness.js';
import { acquireLock, lockPath } from '../src/run/lock.js';
import { read, tempDir, write } from './fixtures/run-helpers.js';

const parents: ChildProcess[] = [];
afterEach(() => {
  // The zombie's parent goes, and init reaps the zombie with it.
  for (const parent of parents.splice(0)) parent.kill('SIGKILL');
});

/**
 * A zombie: a shell starts a short `sleep` in the background and then becomes a long `sleep`,
 * which never waits for it, so the short one exits and stays unreaped while the long one runs.
 * Resolves once /proc says so. The short one lasts 0.3 s: `true`, exiting at once, was reaped by
 * the shell before its exec in all 5 tries of one loaded CI run.
 */
async function zombiePid(): Promise<number> {
  // The shell may reap the child itself if it exits before the exec: then another try.
  for (let attempt = 0; attempt < 5; attempt++) {
    const pid = await zombieOnce().catch(() => undefined);
    if (pid !== undefined) return pid;
  }
  throw new Error('no zombie in 5 tries');
}

async function zombieOnce(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  parents.push(parent);
  const pid = await new Promise<number>((resolve) => {
    parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  for (let i = 0; i < 200; i++) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // A zombie seen before the shell became sleep may still be reaped by the shell (under load the
    // exec comes late): only sleep's own zombie stays.
    const execd = readFileSync(`/proc/${parent.pid}/comm`, 'utf8').trim() === 'sleep';
    if (execd && stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return pid;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`pid ${pid} did not become a zombie`);
}

describe('processRunning', () => {
  it('is true of this process and false of a pid that has exited and waits to be reaped', async () => {
    expect(processRunning(process.pid)).toBe(true);
    const pid = await zombiePid();
    // The signal alone still reaches it: this is what the check must not be fooled by.
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(processRunning(pid)).toBe(false);
  });

  it('is false of a pid no process has', () => {
    // Above the kernel's largest pid (4194304 on 64-bit Linux).
    expect(processRunning(4_194_305)).toBe(false);
  });

  it("lets a run take over the lock of a killed run that is not reaped yet (timeout -s KILL's orphan)", async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    const pid = await zombiePid();
    write(path, JSON.stringify({ pid, hostname: hostname(), startedAt: '2026-11-27T03:17:40.115Z' }));
    const warnings: string[] = [];
    const lock = await acquireLock(path, (m) => warnings.push(m));
    expect(warnings).toEqual([`Taking over stale lock ${path} of pid ${pid}, which is no longer running`]);
    expect(JSON.parse(read(path)).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over a lock whose pid another process took since (a reboot), and not one of a live run', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' });
    parents.push(sleeper);
    const pid = sleeper.pid as number;
    // Written an hour before the process under its pid started.
    const before = new Date(Date.now() - 3_600_000).toISOString();
    write(path, JSON.stringify({ pid, hostname: hostname(), startedAt: before }));
    const warnings: string[] = [];
    const lock = await acquireLock(path, (m) => warnings.push(m));
    expect(warnings).toEqual([
      `Taking over stale lock ${path} of pid ${pid}, which another process has taken since the lock was written (${before})`,
    ]);
    await lock.release();
    // Written after it started: its run's lock, held.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    write(path, JSON.stringify({ pid, hostname: hostname(), startedAt: new Date().toISOString() }));
    const error = await acquireLock(path, () => {}).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('LOCKED');
  });

  it('tells a distributed run that a coordinator on this machine that is now a zombie died', async () => {
    const pid = await zombiePid();
    expect(diedHere(`${hostname()}:${pid}`)).toBe(true);
    expect(diedHere(`${hostname()}:${process.pid}`)).toBe(false);
  });

  it('tells it a coordinator died when another process took its pid since it was last seen', () => {
    // This process stands for the newcomer: it started after a coordinator seen a day before.
    const yesterday = new Date(Date.now() - 86_400_000);
    expect(diedHere(`${hostname()}:${process.pid}`, yesterday)).toBe(true);
    expect(diedHere(`${hostname()}:${process.pid}`, new Date())).toBe(false);
  });
});

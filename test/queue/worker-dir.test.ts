/**
 * A worker's directory: named by its pid, so that the next worker removes those of workers killed
 * with -9, and only those.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { workerDir } from '../../src/queue/_worker-dir.js';

let dir: string;
const saved = process.env.TMPDIR;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-tmp-'));
  process.env.TMPDIR = dir;
});

afterEach(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
  rmSync(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid as number;
}

describe('workerDir', () => {
  it("removes the directories of workers that are gone, keeps a live one's and any other", async () => {
    const dead = await deadPid();
    const stale = join(dir, `geobatch-worker-${dead}-AbC123`);
    mkdirSync(join(stale, 'run1'), { recursive: true });
    writeFileSync(join(stale, 'run1', 'destinations.csv'), 'lon,lat\n');
    // The parent process (vitest's) is alive and older than its directory: a worker at work.
    const live = join(dir, `geobatch-worker-${process.ppid}-xYz789`);
    mkdirSync(live);
    // Named before workers carried their pid, or by something else: not ours to judge.
    const unnamed = join(dir, 'geobatch-worker-Qw3rTy');
    const other = join(dir, `geobatch-workers-${dead}-AbC123`);
    mkdirSync(unnamed);
    mkdirSync(other);

    const { path, removed } = await workerDir();

    expect(removed).toBe(1);
    expect(existsSync(stale)).toBe(false);
    for (const kept of [live, unnamed, other]) expect(existsSync(kept), kept).toBe(true);
    expect(path).toMatch(new RegExp(`^${dir}/geobatch-worker-${process.pid}-[A-Za-z0-9]{6}$`));
    expect(readdirSync(dir).sort()).toEqual(
      [path, live, unnamed, other].map((p) => p.slice(dir.length + 1)).sort(),
    );
  });

  it.runIf(process.platform === 'linux')(
    'removes the directory of a pid that a process started since has taken',
    async () => {
      const made = join(dir, 'made-before');
      mkdirSync(made);
      // Past startedAfter's second of slack, and the second /proc/stat's boot time is rounded to.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const later = spawn('sleep', ['30']);
      try {
        const taken = join(dir, `geobatch-worker-${later.pid}-AbC123`);
        // Renamed, it keeps the time it was made at: before the process under that pid started.
        renameSync(made, taken);
        const { removed } = await workerDir();
        expect(removed).toBe(1);
        expect(existsSync(taken)).toBe(false);
      } finally {
        later.kill();
      }
    },
  );
});

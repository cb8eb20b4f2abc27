import { spawnSync } from 'node:child_process';
import { existsSync, statSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { acquireLock, lockPath } from '../../src/run/lock.js';
import { read, tempDir, write } from '../fixtures/run-helpers.js';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

describe('lock', () => {
  it('is held by one run at a time: a second gets LOCKED naming the first pid', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    const first = await acquireLock(path);
    const error = await acquireLock(path).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('LOCKED');
    expect(isGeobatchError(error) && error.message).toBe(
      `Another run is already writing ${path.slice(0, -'.lock'.length)} (pid ${process.pid})`,
    );
    expect(isGeobatchError(error) && error.context.hint).toContain(path);
    await first.release();
    expect(existsSync(path)).toBe(false);
    await (await acquireLock(path)).release();
  });

  it('is held by one of two runs of this process that ask for it at once, the other LOCKED', async () => {
    // The library's runJobFile twice at once: same pid, maybe the same millisecond. The second used
    // to read the first's lock before it was registered, take it for an earlier process's, and
    // take it over: both runs then wrote one output.
    for (let round = 0; round < 20; round++) {
      const path = lockPath(join(tempDir(), 'out.csv'));
      const warnings: string[] = [];
      const results = await Promise.allSettled([
        acquireLock(path, (m) => warnings.push(m)),
        acquireLock(path, (m) => warnings.push(m)),
      ]);
      expect(warnings).toEqual([]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = results.find((r) => r.status === 'rejected');
      expect(isGeobatchError(refused?.reason) && refused.reason.code).toBe('LOCKED');
      const held = results.find((r) => r.status === 'fulfilled');
      await held?.value.release();
      expect(existsSync(path)).toBe(false);
    }
  });

  it('takes over a lock whose process is gone, with a warning', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    const pid = deadPid();
    write(path, JSON.stringify({ pid, hostname: hostname(), startedAt: '2024-01-01T00:00:00.000Z' }));
    const warnings: string[] = [];
    const lock = await acquireLock(path, (m) => warnings.push(m));
    expect(warnings).toEqual([`Taking over stale lock ${path} of pid ${pid}, which is no longer running`]);
    expect(JSON.parse(read(path)).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over a lock naming this pid that this process does not hold (a restarted container)', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    write(
      path,
      JSON.stringify({ pid: process.pid, hostname: hostname(), startedAt: '2024-01-01T00:00:00.000Z' }),
    );
    const warnings: string[] = [];
    const lock = await acquireLock(path, (m) => warnings.push(m));
    expect(warnings).toEqual([
      `Taking over stale lock ${path} of pid ${process.pid}, which is no longer running`,
    ]);
    // The lock it now holds is its own: a second run in this process is refused.
    const error = await acquireLock(path).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('LOCKED');
    expect(isGeobatchError(error) && error.context.file).toBe(path);
    await lock.release();
  });

  it('refuses with USAGE naming the output when its directory takes no new file, not IO_ERROR', async () => {
    const output = join(tempDir(), 'gone', 'out.csv');
    const error = await acquireLock(lockPath(output)).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe(
      `The output ${output} cannot be written: no file can be created in ${join(output, '..')} (ENOENT)`,
    );
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: output,
      hint: "Name the output (-o, or the job file's output:) in a directory you can write to.",
    });
  });

  it('does not break a lock held on another host while its run refreshes it', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    write(path, JSON.stringify({ pid: deadPid(), hostname: 'elsewhere.example', startedAt: 'x' }));
    // Refreshed 4 minutes ago: within the 5 a live run's heartbeat (every 30 s) never reaches.
    const recent = new Date(Date.now() - 4 * 60_000);
    utimesSync(path, recent, recent);
    const error = await acquireLock(path).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('LOCKED');
    expect(isGeobatchError(error) && error.context.detail).toMatchObject({ hostname: 'elsewhere.example' });
    expect(isGeobatchError(error) && error.message).toMatch(/ \(pid \d+ on elsewhere\.example\)$/);
  });

  it('takes over a lock of another host not refreshed for 5 minutes, saying whose it was', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    write(path, JSON.stringify({ pid: 4242, hostname: 'cronjob-28817-abcde', startedAt: 'x' }));
    const old = new Date(Date.now() - 6 * 60_000);
    utimesSync(path, old, old);
    const warnings: string[] = [];
    const lock = await acquireLock(path, (m) => warnings.push(m));
    expect(warnings).toEqual([
      `Taking over stale lock ${path} of pid 4242 on cronjob-28817-abcde, not refreshed for 6 min (a running run refreshes it every 30 s)`,
    ]);
    expect(JSON.parse(read(path))).toMatchObject({ pid: process.pid, hostname: hostname() });
    await lock.release();
  });

  it('refreshes the lock it holds, so that another host sees it alive', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    const lock = await acquireLock(path, () => {}, { heartbeatMs: 20 });
    const old = new Date(Date.now() - 60 * 60_000);
    utimesSync(path, old, old);
    // A generous wait for a 20 ms heartbeat, on a loaded machine.
    const until = Date.now() + 5_000;
    while (Date.now() - statSync(path).mtimeMs > 60_000 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect(Date.now() - statSync(path).mtimeMs).toBeLessThan(60_000);
    await lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('leaves a lock alone that another run took over after it', async () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    const lock = await acquireLock(path);
    write(path, JSON.stringify({ pid: 1, hostname: hostname(), startedAt: 'later' }));
    await lock.release();
    expect(existsSync(path)).toBe(true);
  });

  it('is removed when the process exits without releasing it (a forced stop)', () => {
    const path = lockPath(join(tempDir(), 'out.csv'));
    const script = [
      "import { existsSync, statSync, utimesSync } from 'node:fs';",
      "import { acquireLock } from './src/run/lock.ts';",
      'await acquireLock(process.env.LOCK);',
      "process.stdout.write(existsSync(process.env.LOCK) ? 'held' : 'none');",
      'process.exit(1);',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: join(import.meta.dirname, '..', '..'),
      env: { ...process.env, LOCK: path },
      encoding: 'utf8',
    });
    expect(child.stdout, child.stderr).toBe('held');
    expect(child.status).toBe(1);
    expect(existsSync(path)).toBe(false);
  });
});

/**
 * A stop whose request cache another program holds locked still ends the orderly way, with its
 * summary: the last flush waits for the file only briefly when the run was stopped. It waited
 * 10 s, which with the 5 s given to requests in flight ran past the 15 s the signal allows, and
 * the process then exited without a summary.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { cli, committedRows, emulatorEnv, until } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'geobatch-locked-stop-'));
  const lines = ['id,lon,lat'];
  for (let i = 0; i < 200; i++)
    lines.push(`${i},${(6 + (i % 20) * 0.3).toFixed(5)},${(47.5 + Math.floor(i / 20) * 0.3).toFixed(5)}`);
  writeFileSync(join(dir, 'points.csv'), `${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'job.yaml'),
    'job: reverse-geocode\ninput: points.csv\noutput: out/points.csv\nrun:\n  checkpointSeconds: 0.05\n',
  );
  emulator = await startEmulator({ preload: true });
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('geobatch run stopped while another program holds its cache locked', () => {
  it('ends the orderly way, with its summary, and says which answers were not cached', async () => {
    const cache = join(dir, 'cache.sqlite');
    const args = ['run', join(dir, 'job.yaml'), '--no-progress', '--cache', cache, '--concurrency', '4'];
    emulator.setFaults({ latency: { fixedMs: 100 } });
    const run = cli(args, emulatorEnv(emulator));
    const checkpoint = join(dir, 'out', 'points.csv.checkpoint.json');
    await until(() => committedRows(checkpoint) >= 8, 20_000, 'rows committed');
    // Another program takes the file's write lock and keeps it; the requests then in flight hang,
    // so the stop gives them its whole 5 s before it flushes the cache.
    const other = new DatabaseSync(cache);
    other.exec('BEGIN IMMEDIATE');
    try {
      emulator.setFaults({ latency: { fixedMs: 60_000 } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(1);
    } finally {
      other.exec('ROLLBACK');
      other.close();
      emulator.setFaults({});
    }
    expect(run.err()).not.toContain('did not stop within');
    expect(run.err()).toContain('checkpoint kept');
    const summaryPath = join(dir, 'out', 'points.csv.summary.json');
    expect(existsSync(summaryPath)).toBe(true);
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8'));
    expect(summary.error.code).toBe('ABORTED');
    expect(JSON.stringify(summary.cache)).toMatch(
      /stayed locked by another process for 2 s; \d+ answers were not cached/,
    );
  }, 40_000);
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { createLogger } from '../../src/log.js';
import { runJobFile } from '../../src/run/job-file.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-runlog-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

function records(level: 'trace' | 'info' | 'warn') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ level, destination: stream }), lines };
}

let jobs = 0;
function elevationJob(rows: readonly string[]): string {
  const n = ++jobs;
  writeFileSync(join(dir, `in${n}.csv`), `id,lat,lon\n${rows.join('\n')}\n`);
  const job = join(dir, `job${n}.yaml`);
  writeFileSync(job, `job: elevation\ninput: in${n}.csv\noutput: out${n}/result.csv\n`);
  return job;
}

const ROWS = ['1,50.6583,10.7442', '2,49.0069,8.4037', '3,95.5,10.0', '4,48.137,11.575'];
/** More rows than the default window (2048) holds: a file the window advice is about. */
const MANY = Array.from(
  { length: 2100 },
  (_, i) => `${i + 1},${(48 + (i % 100) / 100).toFixed(2)},${(10 + (i % 37) / 37).toFixed(3)}`,
);

describe('run records', () => {
  it('logs a run.start and a run.end record at info for every run', async () => {
    const { logger, lines } = records('info');
    const job = elevationJob(ROWS);
    await runJobFile(job, { emulator, logger, rows: { limit: 3 } });
    const start = lines.find((line) => line.event === 'run.start');
    const end = lines.find((line) => line.event === 'run.end');
    expect(start).toMatchObject({
      level: 'info',
      job: 'job1',
      kind: 'elevation',
      file: job,
      input: { path: join(dir, 'in1.csv'), format: 'csv' },
      output: { path: join(dir, 'out1', 'result.csv'), format: 'csv' },
      errors: { path: join(dir, 'out1', 'result.errors.csv'), format: 'csv' },
      options: { resume: false, dryRun: false, emulator: true, limit: 3, sample: null, seed: null },
      versions: { geobatch: expect.stringMatching(/^\d+\.\d+\.\d+/), node: process.version },
    });
    expect(end).toMatchObject({
      level: 'info',
      ended: 'complete_with_failures',
      exitCode: 3,
      error: null,
      rows: { read: 3, written: 3, ok: 2, failed: 1 },
      requests: { http: 1, sent: 1 },
      durationMs: expect.any(Number),
      output: join(dir, 'out1', 'result.csv'),
    });
    expect(lines.indexOf(start as never)).toBeLessThan(lines.indexOf(end as never));
    expect(end).toMatchObject({ dryRun: false });
    expect(String(end?.msg)).not.toContain('dry run');
    // Named as what it counts, retries included: the closing line's "requests" are those made.
    expect(String(end?.msg)).toContain('; 1 HTTP request, 1 saved; ');
  });

  it("marks a dry run's run.end, whose rows are planned and none written", async () => {
    const { logger, lines } = records('info');
    await runJobFile(elevationJob(ROWS), { emulator, logger, dryRun: true, rows: { limit: 3 } });
    const end = lines.find((line) => line.event === 'run.end');
    expect(end).toMatchObject({ dryRun: true, rows: { read: 3, written: 0 } });
    expect(String(end?.msg)).toMatch(/ ended complete\S* \(dry run\), exit \d: /);
  });

  it('names every output and the run report of a run that writes several', async () => {
    const { logger, lines } = records('info');
    const out = join(dir, 'several');
    const output = [join(out, 'r.csv'), join(out, 'r.gpkg')];
    await runJobFile(elevationJob(ROWS), { emulator, logger, output });
    const start = lines.find((line) => line.event === 'run.start');
    expect(start).toMatchObject({
      outputs: [
        { path: output[0], format: 'csv' },
        { path: output[1], format: 'gpkg' },
      ],
      report: `${output[0]}.report.html`,
    });
    expect(start?.msg).toContain(`-> ${output[0]} (+1 more)`);
    expect(lines.find((line) => line.event === 'run.end')).toMatchObject({
      outputs: output,
      report: `${output[0]}.report.html`,
    });
  });

  it('writes both records in a trace-level run too, and none carries a credential', async () => {
    const { logger, lines } = records('trace');
    await runJobFile(elevationJob(MANY), { emulator, logger });
    expect(lines.filter((line) => String(line.event).startsWith('run.')).map((l) => l.event)).toEqual([
      'run.start',
      // Elevation at the defaults: 2048 rows hold 4 of its 16 requests of 500 points.
      'run.window',
      'run.end',
    ]);
    const text = JSON.stringify(lines);
    for (const secret of Object.values(emulator.credentials)) expect(text).not.toContain(secret);
  });

  it('writes no record below the level asked for', async () => {
    const { logger, lines } = records('warn');
    await runJobFile(elevationJob(ROWS), { emulator, logger });
    expect(lines.filter((line) => line.event !== undefined)).toEqual([]);
  });

  it('logs an end record with its exit code for a run refused before its first row', async () => {
    const { logger, lines } = records('info');
    const job = elevationJob(ROWS);
    await runJobFile(job, {
      emulator,
      logger,
      output: join(dir, 'stopped.csv'),
      signal: AbortSignal.abort(),
    }).catch(() => undefined);
    expect(lines.find((line) => line.event === 'run.end')).toMatchObject({
      ended: 'refused',
      exitCode: 1,
      error: { code: 'ABORTED' },
    });
  });

  it('logs an end record for a run refused while it is set up: a cache file it cannot use', async () => {
    const { logger, lines } = records('info');
    const cache = join(dir, 'not-a-cache.sqlite');
    writeFileSync(cache, 'id,name\n1,a\n');
    const error = await runJobFile(elevationJob(ROWS), {
      emulator,
      logger,
      output: join(dir, 'uncached.csv'),
      cache: { location: cache },
    }).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('CACHE_UNUSABLE');
    expect(lines.find((line) => line.event === 'run.end')).toMatchObject({
      ended: 'refused',
      exitCode: 1,
      error: { code: 'CACHE_UNUSABLE' },
    });
  });

  it("reads GEOBATCH_CACHE from the caller's env, as it reads credentials there", async () => {
    const cache = join(dir, 'from-env.sqlite');
    const summary = await runJobFile(elevationJob(ROWS), {
      emulator,
      output: join(dir, 'env-cache.csv'),
      cache: {},
      env: { ...process.env, GEOBATCH_CACHE: cache },
    });
    expect(summary.cache?.location).toBe(cache);
    const off = await runJobFile(elevationJob(ROWS), {
      emulator,
      output: join(dir, 'env-off.csv'),
      cache: {},
      env: { ...process.env, GEOBATCH_CACHE: 'off' },
    });
    expect(off.cache).toBeNull();
  });

  it('records the sample and its seed in the start record', async () => {
    const { logger, lines } = records('info');
    await runJobFile(elevationJob(ROWS), { emulator, logger, rows: { sample: 2 } });
    expect(lines.find((line) => line.event === 'run.start')).toMatchObject({
      options: { limit: null, sample: 2, seed: '0' },
    });
    expect(lines.find((line) => line.event === 'run.end')).toMatchObject({ rows: { read: 2 } });
  });
});

describe('the window advice', () => {
  it('says when a batched job’s window keeps fewer requests in flight than the run may send', async () => {
    const { logger, lines } = records('info');
    await runJobFile(elevationJob(MANY), { emulator, logger, concurrency: 8 });
    // Elevation sends 500 points a request: 2048 rows hold 4 of the 8 requests allowed.
    const advice = lines.filter((line) => line.event === 'run.window');
    expect(advice).toEqual([
      expect.objectContaining({
        level: 'info',
        kind: 'elevation',
        window: 2048,
        batchSize: 500,
        requestsInFlight: 4,
        concurrency: 8,
        msg: 'elevation: run.window (2048 rows) keeps about 4 requests of 500 rows in flight, of the 8 the run may send at once; run.window: 4000 would send them all, for more memory (README, Memory)',
      }),
    ]);
    // A window that holds them all, or a job that does not batch, says nothing.
    const quiet = records('info');
    await runJobFile(elevationJob(MANY), { emulator, logger: quiet.logger, concurrency: 4 });
    expect(quiet.lines.filter((line) => line.event === 'run.window')).toEqual([]);
  });

  it('says nothing for a try whose rows all fit in the window, and does for one that does not', async () => {
    const tried = (selection: { limit?: number; sample?: number }) => {
      const { logger, lines } = records('info');
      return runJobFile(elevationJob(MANY), { emulator, logger, concurrency: 8, rows: selection }).then(() =>
        lines.filter((line) => line.event === 'run.window'),
      );
    };
    expect(await tried({ limit: 2048 })).toEqual([]);
    expect(await tried({ sample: 50 })).toEqual([]);
    expect(await tried({ limit: 2049 })).toEqual([
      expect.objectContaining({ requestsInFlight: 4, concurrency: 8 }),
    ]);
  });

  it('says nothing for a file too small to hold more rows than the window', async () => {
    const { logger, lines } = records('info');
    await runJobFile(elevationJob(ROWS), { emulator, logger, concurrency: 8 });
    expect(lines.filter((line) => line.event === 'run.window')).toEqual([]);
  });
});

describe('run records of a run stopped before it began', () => {
  it('logs no run.start for a run a signal stopped while it was set up', async () => {
    const { logger, lines } = records('info');
    const stop = new AbortController();
    stop.abort();
    const error = await runJobFile(elevationJob(ROWS), { emulator, logger, signal: stop.signal }).catch(
      (e: unknown) => e,
    );
    expect((error as { code?: string }).code).toBe('ABORTED');
    expect(lines.map((line) => line.event)).not.toContain('run.start');
  });
});

/**
 * How the processes of a distributed run stop, as a user runs them: a coordinator stopped while it
 * reads its input (its log file failed, or Ctrl-C) ends with that stop's reason and keeps what a
 * resume needs; a worker stopped by its log file is told to start again, not to --resume. The
 * input comes from standard input, held open, so that the coordinator is still reading it when the
 * stop comes, whatever the machine's speed. Its rows are padded to 16 KB, so that fewer rows than a
 * chunk are more than the reader's look-ahead (a mebibyte, input/open.ts) even when it does not
 * take a pipe's rows early (the pipe pausing for a tenth of a second).
 */

import { execFileSync } from 'node:child_process';
import { appendFileSync, createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';
import { type CliRun, cli, committedRows, until, waitFor } from '../cli/_cli.js';
import { type Bench, idsOf, openBench, writeInput, writeJob } from './_setup.js';

let postgres: TestPostgres;
let bench: Bench;
let job: string;
/** The input's header and rows, as lines. */
let header: string;
let rows: string[];

const linux = process.platform === 'linux' && existsSync('/dev/full');

beforeAll(async () => {
  postgres = await startPostgres();
  bench = await openBench();
  const input = join(bench.dir, 'input.csv');
  writeInput(input, 250);
  const [names = '', ...records] = readFileSync(input, 'utf8').trim().split('\n');
  header = `${names},note`;
  rows = records.map((record) => `${record},${'x'.repeat(16_384)}`);
  // The shared geocode job, with checkpoints as the chunks come back, so that a stop keeps the rows done.
  job = writeJob(bench.dir, 'input.csv');
  appendFileSync(job, 'run:\n  checkpointSeconds: 0.1\n');
}, 120_000);

afterAll(async () => {
  await bench?.emulator.close();
  await postgres?.stop();
});

/** A coordinator reading `lines` (and the header) from standard input, which stays open. */
function coordinator(url: string, output: string, lines: readonly string[], ...more: string[]): CliRun {
  const run = cli(
    ['run', job, '-i', '-', '-o', output, '--queue', url, '--chunk-rows', '100', '--no-report', ...more],
    bench.env,
  );
  // Written to a process that has ended, standard input fails: that is no failure of the test.
  run.child.stdin?.on('error', () => {});
  run.child.stdin?.write(`${[header, ...lines].join('\n')}\n`);
  return run;
}

const summaryOf = (output: string) =>
  JSON.parse(readFileSync(`${output}.summary.json`, 'utf8')) as {
    ended: string;
    error: { code: string; message: string; hint?: string } | null;
    rows: { read: number };
    requests: { http: number; sent: number };
    resume: { resumed: boolean; fromRow: number; checkpoint: string | null };
    client: { hedges?: { sent: number } } | null;
  };

/** What `count` gives once it has not changed for `ms`. */
async function stillFor(ms: number, count: () => number): Promise<number> {
  let last = count();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    const now = count();
    if (now === last) return now;
    last = now;
  }
}

const runState = async (url: string) =>
  (await postgres.query(url, 'SELECT state FROM geobatch_queue.runs'))[0]?.state;

describe('a coordinator stopped while it reads its input', () => {
  it.runIf(linux)(
    'stops with IO_ERROR in its summary when its log file fails, not as a run interrupted or empty',
    async () => {
      const url = await postgres.database();
      const output = join(bench.dir, 'out', 'log-failed.csv');
      const fifo = join(bench.dir, 'log-failed.fifo');
      execFileSync('mkfifo', [fifo]);
      // Progress records every 0.1 s: lines in the log while the coordinator waits for its input.
      const run = coordinator(
        url,
        output,
        rows.slice(0, 90),
        '--no-work',
        '--progress-interval',
        '0.1',
        '--log-file',
        fifo,
      );
      // Only run.start is read: the next line fails (EPIPE).
      const reader = createReadStream(fifo, 'utf8').on('data', (text) => {
        if (String(text).includes('run.start')) reader.destroy();
      });
      expect(await run.exited, run.err()).toBe(1);
      const message = `--log-file: writing the log to ${fifo} failed: EPIPE: broken pipe; the run stops, since what it logs would be lost`;
      expect(summaryOf(output)).toMatchObject({
        ended: 'stopped',
        // No row was committed: nothing to resume, so the hint leaves --resume out.
        error: {
          code: 'IO_ERROR',
          message,
          hint: `Start again what reads ${fifo} (it closed its end), or name another --log-file`,
        },
      });
      expect(run.err()).toContain(`IO_ERROR: ${message}\n`);
      expect(existsSync(output)).toBe(false);
      expect(await runState(url)).toBe('stopped');
    },
    120_000,
  );

  it('stops with ABORTED on Ctrl-C while a resumed session reads rows done before, keeping the checkpoint', async () => {
    const url = await postgres.database();
    const output = join(bench.dir, 'out', 'interrupted.csv');
    const checkpoint = `${output}.checkpoint.json`;
    const committed = () => committedRows(checkpoint);
    const json = ['--no-progress', '--log-format', 'json'];
    // The first session stops once a chunk is being written (its own worker answers them): the
    // stop writes the chunks it has taken, at least the first, and commits them.
    const first = coordinator(url, output, rows, ...json);
    await until(() => committed() > 0, 60_000, 'a checkpoint');
    first.child.kill('SIGINT');
    expect(await first.exited, first.err()).toBe(1);
    expect(summaryOf(output).error?.code).toBe('ABORTED');
    const kept = committed();
    expect(kept).toBeGreaterThanOrEqual(100);

    // Resumed, it reads the input again from its first row: stopped among the rows done before,
    // it has not read a row of its own yet. Its worker at work means the run is taken back.
    const second = coordinator(url, output, rows.slice(0, 90), '--resume', ...json);
    await waitFor(second.err, /Working on run/, 60_000);
    second.child.kill('SIGINT');
    expect(await second.exited, second.err()).toBe(1);
    expect(summaryOf(output)).toMatchObject({
      ended: 'stopped',
      error: { code: 'ABORTED', hint: 'Run again with --resume to continue from the checkpoint.' },
      resume: { fromRow: kept, checkpoint },
    });
    // Not ended as a run whose input had no more rows: no output in place, the checkpoint kept.
    expect(existsSync(output)).toBe(false);
    expect(committed()).toBe(kept);
    expect(await runState(url)).toBe('stopped');

    const third = coordinator(url, output, rows, '--resume', ...json);
    third.child.stdin?.end();
    expect([0, 3]).toContain(await third.exited);
    expect(summaryOf(output)).toMatchObject({ rows: { read: 250 }, resume: { fromRow: kept } });
    expect(idsOf(output)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
  }, 180_000);
});

describe('a coordinator stopped while workers hold chunks it has not written', () => {
  it('keeps a checkpoint at row 0 and says --resume, which finishes the run from it', async () => {
    const url = await postgres.database();
    const output = join(bench.dir, 'out', 'held.csv');
    const checkpoint = `${output}.checkpoint.json`;
    const geocoded = () => bench.emulator.stats().byInterface.geocoding?.total ?? 0;
    const before = geocoded();
    const worker = cli(['worker', '--queue', url], bench.env);
    // 20 requests a second for the whole run: the worker's two chunks of 100 take seconds.
    const json = ['--no-progress', '--log-format', 'json', '--no-cache', '--rate', '20'];
    const first = coordinator(url, output, rows, '--no-work', ...json);
    first.child.stdin?.end();
    await until(() => geocoded() - before >= 10, 60_000, 'requests from the worker');
    first.child.kill('SIGINT');
    expect(await first.exited, first.err()).toBe(1);
    expect(summaryOf(output)).toMatchObject({
      ended: 'stopped',
      error: { code: 'ABORTED', hint: 'Run again with --resume to continue from the checkpoint.' },
      resume: { fromRow: 0, checkpoint },
    });
    // The input is standard input: the closing line asks for the same data again, and for the
    // queue (its URL without the password): --resume alone is refused.
    expect(first.err()).toContain(
      `rerun with --resume --queue ${url.replace(`:${PASSWORD}@`, '@')}, giving the same data on standard input again, to continue`,
    );
    expect(first.err()).not.toContain(PASSWORD);
    expect(first.err()).not.toContain('nothing is kept');
    // The worker ends or hands back the chunks it holds; what it finished, the resume takes up.
    await until(
      async () =>
        Number(
          (
            await postgres.query(
              url,
              "SELECT count(*) AS n FROM geobatch_queue.chunks WHERE state = 'active'",
            )
          )[0]?.n,
        ) === 0,
      60_000,
      'the worker to let go of its chunks',
    );
    worker.child.kill('SIGTERM');
    await worker.exited;
    // The emulator runs in this process: requests the worker wrote just before it ended can be read
    // after its exit is seen (a loaded machine), and would be counted as the resume's.
    const asked = (await stillFor(1_000, geocoded)) - before;
    const stopped = summaryOf(output);
    // The stop counts what the workers spent on the rows it did not write: they hand their chunks
    // back as the run stops, saying what they spent. An attempt the stop cut off may not have
    // reached the emulator, or reached it as the worker let go: one either way.
    expect(Math.abs(stopped.requests.http - asked), JSON.stringify(stopped.requests)).toBeLessThanOrEqual(1);

    const second = coordinator(url, output, rows, '--resume', '--no-progress', '--no-cache');
    second.child.stdin?.end();
    expect([0, 3], second.err()).toContain(await second.exited);
    expect(summaryOf(output)).toMatchObject({ rows: { read: 250 }, resume: { resumed: true, fromRow: 0 } });
    expect(idsOf(output)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    // The resume asked at most every row once more: it read its checkpoint, not the input afresh.
    // (A loaded machine's hedged second attempts, which the emulator counts, come on top.)
    const hedged = summaryOf(output).client?.hedges?.sent ?? 0;
    expect(geocoded() - before - asked).toBeLessThanOrEqual(250 + hedged);
    // Every request once over both sessions, and those of the chunks handed back at the stop
    // counted as sent too: the closing line gave 2,408 "HTTP attempts, retries included" of 1,806
    // requests, with no retry.
    const total = summaryOf(output).requests;
    expect(Math.abs(total.http - (geocoded() - before)), JSON.stringify(total)).toBeLessThanOrEqual(1);
    expect(total.http - total.sent, JSON.stringify(total)).toBeLessThanOrEqual(2);
    // An attempt the stop cut off is over HTTP and not among the requests: the line says so.
    if (total.http === total.sent) expect(second.err()).not.toContain('HTTP attempt');
    else expect(second.err()).toContain('HTTP attempts over its sessions');
    // The queue database keeps every attempt's spending still: status says what the run cost.
    const status = cli(['status', '--json', '--queue', url], bench.env);
    expect(await status.exited, status.err()).toBe(0);
    expect(JSON.parse(status.out())[0].requests).toBe(total.http);
    expect(existsSync(checkpoint)).toBe(false);
  }, 180_000);
});

describe.runIf(linux)('a worker whose log file fails', () => {
  it('says to start it again, not to run again with --resume (exit 1)', async () => {
    const url = await postgres.database();
    const worker = cli(['worker', '--queue', url, '--log-file', '/dev/full'], bench.env);
    expect(await worker.exited).toBe(1);
    expect(worker.err()).toContain(
      'geobatch: --log-file: writing the log to /dev/full failed: ENOSPC: no space left on device;',
    );
    expect(worker.err()).toContain(
      "hint: Free space on the disk that holds /dev/full, or name another --log-file, then start the worker again: the run's chunks stay in the queue.\n",
    );
    expect(worker.err()).not.toContain('--resume');
  }, 60_000);
});

import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { type CliRun, cli, committedRows, emulatorEnv, until } from './_cli.js';

let emulator: EmulatorHandle;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-cli-'));
});

afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(() => {
  emulator.setFaults({});
  emulator.resetStats();
});

let jobs = 0;

/** Writes an input and an elevation job file reading it; returns the job file and its output. */
function elevationJob(rows: string[], extra = ''): { job: string; output: string } {
  const n = ++jobs;
  writeFileSync(join(dir, `in${n}.csv`), `id,lat,lon\n${rows.join('\n')}\n`);
  const job = join(dir, `job${n}.yaml`);
  writeFileSync(job, `job: elevation\ninput: in${n}.csv\noutput: out${n}/result.csv\n${extra}`);
  return { job, output: join(dir, `out${n}`, 'result.csv') };
}

const GOOD = ['1,50.6583,10.7442', '2,49.0069,8.4037', '3,48.137,11.575'];

describe('geobatch run: exit codes', () => {
  it('exits 0 when every row is ok, and names the files it wrote', async () => {
    const { job, output } = elevationJob(GOOD);
    // The job file as it was written names the run: another elevation job's line would read alike.
    const written = relative(dir, job);
    const run = cli(['run', written, '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    expect(await run.exited).toBe(0);
    expect(run.err()).toMatch(new RegExp(`(^|\\n)${written}: done in [\\d.]+ s: 3 rows, 3 ok, 0 failed`));
    expect(readFileSync(output, 'utf8').split('\n')[1]).toBe('1,50.6583,10.7442,983,false,ok,');
    expect(existsSync(`${output}.summary.json`)).toBe(true);
  });

  it('prints nothing with --quiet --log-level warn when every row is ok, and the closing lines when not', async () => {
    const good = elevationJob(GOOD);
    const quiet = cli(
      ['run', good.job, '--no-progress', '--quiet', '--log-level', 'warn'],
      emulatorEnv(emulator),
    );
    expect(await quiet.exited).toBe(0);
    expect(quiet.err()).toBe('');
    expect(quiet.out()).toBe('');
    expect(existsSync(`${good.output}.summary.json`)).toBe(true);
    const bad = elevationJob([...GOOD, '4,95.5,10.0']);
    const loud = cli(
      ['run', bad.job, '--no-progress', '--quiet', '--log-level', 'warn'],
      emulatorEnv(emulator),
    );
    expect(await loud.exited).toBe(3);
    expect(loud.err()).toMatch(/: done in [\d.]+ s: 4 rows, 3 ok, 1 failed/);
  });

  it('exits 3 when rows failed, and lists exactly them in the report', async () => {
    const { job, output } = elevationJob([...GOOD, '4,95.5,10.0', '5,,10.0']);
    const run = cli(['run', job, '--no-progress'], emulatorEnv(emulator));
    expect(await run.exited).toBe(3);
    const report = readFileSync(output.replace('.csv', '.errors.csv'), 'utf8').trim().split('\n');
    expect(report.slice(1).map((line) => line.split(',').slice(0, 5).join(','))).toEqual([
      '4,5,elevation,input,FIELD_INVALID',
      '5,6,elevation,input,FIELD_MISSING',
    ]);
  });

  it('exits 2 on a job-file error, naming the file, the path in it and what was expected', async () => {
    const { job } = elevationJob(GOOD, 'options:\n  batchSize: 501\n');
    const run = cli(['run', job], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(
      `${job}: options.batchSize: the service takes at most 500 points a request, got 501`,
    );
  });

  it('exits 2 on a bad flag value, naming the flag', async () => {
    const { job } = elevationJob(GOOD);
    const run = cli(['run', job, '--concurrency', '0'], emulatorEnv(emulator));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('--concurrency: expected a positive integer, got `0`');
  });

  it('exits 2 when the service has no credentials, saying which variable to set', async () => {
    const { job } = elevationJob(GOOD);
    const run = cli(['run', job], { ...emulatorEnv(emulator), GEOBATCH_API_KEY: '' });
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('no credentials for the elevation job');
    expect(run.err()).toContain('GEOBATCH_API_KEY');
    // One plain line, as for a job file that does not load: no run began, so no run.end record.
    expect(run.err()).not.toContain('run.end');
    expect(emulator.stats().total).toBe(0);
  });

  it('stops at once with exit 1 on a rejected key, leaves nothing that blocks the next run, and never prints the key', async () => {
    const { job, output } = elevationJob(GOOD);
    const wrongKey = 'wrong-key-do-not-print-1234';
    const run = cli(['run', job, '--no-progress', '--log-level', 'debug'], {
      ...emulatorEnv(emulator),
      GEOBATCH_API_KEY: wrongKey,
    });
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain('AUTH_REJECTED');
    // Said once in the closing lines (the log records are JSON): no hint line repeats the message's end.
    const closing = run
      .err()
      .split('\n')
      .filter((line) => !line.startsWith('{'));
    expect(closing.filter((line) => line.includes('check GEOBATCH_API_KEY'))).toEqual([
      '  AUTH_REJECTED: the service rejected the API key (401) for elevation: check GEOBATCH_API_KEY',
    ]);
    expect(run.err()).not.toContain('hint: check GEOBATCH_API_KEY');
    expect(run.err()).toContain('no row was committed, so nothing is kept');
    expect(run.err()).not.toContain(wrongKey);
    expect(readFileSync(`${output}.summary.json`, 'utf8')).not.toContain(wrongKey);
    expect(emulator.stats().total).toBe(1);
    expect(readdirSync(dirname(output)).sort()).toEqual([
      'result.csv.report.html',
      'result.csv.summary.json',
    ]);
    // With the right key, a plain run (no --resume) goes through.
    const fixed = cli(['run', job, '--no-progress'], emulatorEnv(emulator));
    expect(await fixed.exited, fixed.err()).toBe(0);
  });

  it('needs no credential for --emulator or --dry-run when the job file names an unset variable', async () => {
    const { job } = elevationJob(GOOD, `service:\n  credentials:\n    apiKey: \${GEOBATCH_TEST_UNSET_KEY}\n`);
    const env = { ...emulatorEnv(emulator), GEOBATCH_API_KEY: '' };
    for (const flag of ['--emulator', '--dry-run']) {
      const run = cli(['run', job, flag, '--no-progress'], env);
      expect(await run.exited, `${flag}: ${run.err()}`).toBe(0);
      // The dry run still says what the run would stop at, for a pre-flight check to see.
      if (flag === '--dry-run')
        expect(run.err()).toContain(
          'The run would stop before its first row: ' +
            `${job}: service.credentials.apiKey: environment variable GEOBATCH_TEST_UNSET_KEY is not set`,
        );
    }
    const real = cli(['run', job, '--no-progress'], env);
    expect(await real.exited).toBe(2);
    expect(real.err()).toContain(
      'service.credentials.apiKey: environment variable GEOBATCH_TEST_UNSET_KEY is not set',
    );
    expect(emulator.stats().total).toBe(0);
  });
});

describe('geobatch run: locking and dry runs', () => {
  it('refuses a second simultaneous run of the same job with "already writing <output> (pid ...)"', async () => {
    emulator.setFaults({ latency: { fixedMs: 100 } });
    const rows = Array.from({ length: 400 }, (_, i) => `${i},${(50 + i / 1000).toFixed(4)},10.5`);
    const { job, output } = elevationJob(rows, 'options:\n  batchSize: 1\n');
    const env = emulatorEnv(emulator);
    const first = cli(['run', job, '--no-progress', '--concurrency', '1'], env);
    await until(() => existsSync(`${output}.lock`), 20_000, 'the first run to take the lock');
    const second = cli(['run', job, '--no-progress'], env);
    expect(await second.exited).toBe(1);
    expect(second.err()).toMatch(/Another run is already writing \S+ \(pid \d+\)/);
    expect(second.err()).toContain(String(first.child.pid));
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(1);
    expect(first.err()).toContain('checkpoint kept');
    expect(existsSync(`${output}.checkpoint.json`)).toBe(true);
    // A request of the stopped run may still be in the emulator's latency; let it land.
    await new Promise((resolve) => setTimeout(resolve, 300));
  });

  it('reports rows, row issues and requests after dedup and batching without sending one', async () => {
    const rows = Array.from({ length: 1200 }, (_, i) => `${i},${(50 + (i % 700) / 1000).toFixed(4)},10.5`);
    const { job, output } = elevationJob([...rows, '9999,north,10']);
    const before = emulator.stats().total;
    const run = cli(['run', job, '--dry-run', '--rate', '2'], emulatorEnv(emulator));
    expect(await run.exited).toBe(3);
    // 700 distinct points in chunks of 500: 2 requests; one row fails before any request.
    expect(run.err()).toContain(`${job} (dry run): 1201 rows, 1 would fail before any request`);
    expect(run.err()).toMatch(/ 2 requests after dedup and batching .*about 1 s at 2 requests\/s/);
    expect(emulator.stats().total).toBe(before);
    expect(existsSync(output)).toBe(false);
  });
});

describe('geobatch run: stopped and resumed', () => {
  it('names only files this run wrote after SIGTERM, and adds up the requests of both sessions', async () => {
    const rows = [
      '0,95.5,10.0',
      ...Array.from({ length: 150 }, (_, i) => `${i + 1},${(50 + i / 1000).toFixed(4)},10.5`),
    ];
    const { job, output } = elevationJob(rows, 'options:\n  batchSize: 1\nrun:\n  checkpointSeconds: 0.05\n');
    const env = emulatorEnv(emulator);
    const args = ['run', job, '--no-progress', '--concurrency', '1'];
    // An earlier, complete run leaves an error report behind.
    expect(await cli(args, env).exited).toBe(3);
    const earlierReport = readFileSync(output.replace('.csv', '.errors.csv'), 'utf8');
    emulator.resetStats();
    emulator.setFaults({ latency: { fixedMs: 20 } });

    const stopped = cli(args, env);
    const checkpoint = `${output}.checkpoint.json`;
    const committed = () =>
      existsSync(checkpoint)
        ? (JSON.parse(readFileSync(checkpoint, 'utf8')) as { committedRows: number }).committedRows
        : 0;
    await until(() => committed() >= 20, 20_000, 'rows committed before SIGTERM');
    stopped.child.kill('SIGTERM');
    expect(await stopped.exited).toBe(1);
    expect(stopped.err()).toContain('checkpoint kept');
    // The error report of the earlier run is still there, but it is not this run's: not named.
    expect(stopped.err()).not.toMatch(/errors +\S+/);
    expect(stopped.err()).not.toMatch(/output +\S+/);
    expect(readFileSync(output.replace('.csv', '.errors.csv'), 'utf8')).toBe(earlierReport);
    await new Promise((resolve) => setTimeout(resolve, 100)); // an aborted request lands

    const resumed = cli([...args, '--resume'], env);
    expect(await resumed.exited).toBe(3);
    const summary = JSON.parse(readFileSync(`${output}.summary.json`, 'utf8')) as {
      requests: { http: number };
      resume: { resumed: boolean };
    };
    expect(summary.resume.resumed).toBe(true);
    // Every request the emulator answered was counted, except one aborted in flight at SIGTERM.
    const served = emulator.stats().total;
    expect(served - summary.requests.http).toBeGreaterThanOrEqual(0);
    expect(served - summary.requests.http).toBeLessThanOrEqual(1);
    expect(resumed.err()).toContain(`${summary.requests.http} requests`);
  });
});

describe('geobatch run: a job file from a pipe', () => {
  it('names the job by the pipe in its log records, as the closing line does, not by its number', async () => {
    const { job, output } = elevationJob(GOOD);
    const run = cli(['run', '/dev/stdin', '--no-progress', '--log-level', 'info'], emulatorEnv(emulator), {
      cwd: dir,
    });
    run.child.stdin?.end(readFileSync(job, 'utf8').replace(/^output: .*$/m, `output: ${output}`));
    expect(await run.exited).toBe(0);
    const records = run
      .err()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; job?: string; msg: string });
    const ends = records.filter((record) => record.event === 'run.start' || record.event === 'run.end');
    expect(ends.map((record) => record.job)).toEqual(['/dev/stdin', '/dev/stdin']);
    expect(ends.map((record) => record.msg.split(' started')[0]?.split(' ended')[0])).toEqual([
      '/dev/stdin (elevation)',
      '/dev/stdin (elevation)',
    ]);
    expect(run.err()).toMatch(/(^|\n)\/dev\/stdin: done in [\d.]+ s: 3 rows, 3 ok, 0 failed/);
  });

  it('refuses a job file from the pipe whose input is the pipe too, before the output is touched', async () => {
    const { job, output } = elevationJob(GOOD);
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, 'the last good output\n');
    const run = cli(['run', '/dev/stdin', '-i', '-', '--no-progress'], emulatorEnv(emulator), { cwd: dir });
    run.child.stdin?.end(readFileSync(job, 'utf8').replace(/^output: .*$/m, `output: ${output}`));
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain(
      'geobatch: /dev/stdin: the job file was read from standard input, and its input is standard input too\n',
    );
    expect(run.err()).toContain('hint: save the job file and run it by its path');
    expect(readFileSync(output, 'utf8')).toBe('the last good output\n');
  });
});

describe('geobatch run: standard input', () => {
  const rowsOf = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `${from + i},${(50 + (from + i) / 1000).toFixed(4)},10.5`);

  it('sends the first rows of a producer that pauses before the rest come, and reads every row once', async () => {
    const { job, output } = elevationJob([]);
    const run = cli(['run', job, '-i', '-', '-o', output, '--no-progress'], emulatorEnv(emulator));
    run.child.stdin?.write(`id,lat,lon\n${rowsOf(1, 3).join('\n')}\n`);
    // The pipe stays open: the rows that came are sent without waiting for a mebibyte or the end.
    const requested = await until(() => emulator.stats().total > 0, 30_000, 'a request').then(
      () => true,
      () => false,
    );
    run.child.stdin?.end(`${rowsOf(4, 3).join('\n')}\n`);
    expect(await run.exited).toBe(0);
    expect(requested).toBe(true);
    const ids = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[0]);
    expect(ids).toEqual(['1', '2', '3', '4', '5', '6']);
  });

  it('resumes from a pipe what it began from a file, and from a file what it began from a pipe, refusing other rows', async () => {
    const rows = rowsOf(1, 150);
    const env = emulatorEnv(emulator);
    const text = `id,lat,lon\n${rows.join('\n')}\n`;
    const file = join(dir, 'stdin.csv');
    writeFileSync(file, text);
    const { job, output } = elevationJob([], 'options:\n  batchSize: 1\nrun:\n  checkpointSeconds: 0.05\n');
    const args = ['run', job, '-i', '-', '-o', output, '--no-progress', '--concurrency', '1'];
    const checkpoint = `${output}.checkpoint.json`;
    const uninterrupted = elevationJob(rows);
    expect(await cli(['run', uninterrupted.job, '--no-progress'], env).exited).toBe(0);
    const piped = (extra: string[], data: string) => {
      const run = cli([...args, ...extra], env);
      run.child.stdin?.on('error', () => {});
      run.child.stdin?.end(data);
      return run;
    };
    const redirected = (extra: string[]) => {
      const fd = openSync(file, 'r');
      const run = cli([...args, ...extra], env, { stdin: fd });
      closeSync(fd);
      return run;
    };
    const stopAfter = async (run: CliRun, rowsDone: number) => {
      const gone = () => run.child.exitCode !== null;
      await until(
        () => committedRows(checkpoint) >= rowsDone || gone(),
        30_000,
        `${rowsDone} rows committed`,
      );
      expect(gone() ? run.err() : '').toBe('');
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(1);
    };
    emulator.setFaults({ latency: { fixedMs: 20 } });

    // A file the first time, a pipe the second, a file the third.
    await stopAfter(redirected([]), 20);
    const first = committedRows(checkpoint);
    await stopAfter(piped(['--resume'], text), first + 20);
    const second = committedRows(checkpoint);
    // Other rows where the checkpoint has rows written are refused, however they come.
    const other = piped(['--resume'], text.replace('\n5,50.0050,10.5\n', '\n5,50.0051,10.5\n'));
    expect(await other.exited).toBe(1);
    expect(other.err()).toContain('CHECKPOINT_MISMATCH');
    expect(other.err()).toContain(`the first ${second} rows of standard input are not the rows it wrote`);
    const last = redirected(['--resume']);
    expect(await last.exited).toBe(0);
    expect(readFileSync(output, 'utf8')).toBe(readFileSync(uninterrupted.output, 'utf8'));
  });
});

describe('geobatch validate', () => {
  it('accepts every ready job file', async () => {
    for (const name of [
      'geocode',
      'reverse-geocode',
      'elevation',
      'customer-lookup',
      'boundaries',
      'matrix',
      'address-search',
    ]) {
      const run = cli(['validate', `jobs/${name}.yaml`]);
      expect(await run.exited, run.err()).toBe(0);
      expect(run.out()).toContain(`valid ${name} job`);
    }
  });

  it('exits 2 on an invalid job file', async () => {
    const { job } = elevationJob(GOOD, 'mapping:\n  lon: lon\n  lat: lat\n  altitude: z\n');
    const run = cli(['validate', job]);
    expect(await run.exited).toBe(2);
    expect(run.err()).toContain('mapping: unknown key `altitude`');
  });
});

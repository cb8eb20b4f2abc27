/**
 * `--log-file`: a path that cannot take the log is a usage error naming the flag, the path and
 * what is wrong (exit 2, nothing started), as `-o` is; one that can gets JSON lines, appended.
 * One that opens but fails a write (/dev/full, a pipe whose reader left) stops the run with
 * IO_ERROR (exit 1), as a full disk under the output does, and keeps the checkpoint.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logFileStream, logWriteError, openLogFile } from '../../src/cli/_log-file.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { type IoError, isGeobatchError } from '../../src/errors.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { cli, committedRows, emulatorEnv, until } from './_cli.js';

let dir: string;
let job: string;

beforeAll(() => {
  dir = tempDir();
  const rows = Array.from({ length: 5 }, (_, i) => `${i},${(50 + i / 100).toFixed(4)},10.7442`);
  writeFileSync(join(dir, 'in.csv'), `id,lat,lon\n${rows.join('\n')}\n`);
  job = join(dir, 'job.yaml');
  writeFileSync(job, 'job: elevation\ninput: in.csv\noutput: out/result.csv\n');
  mkdirSync(join(dir, 'logs'));
  writeFileSync(join(dir, 'afile'), 'not a directory\n');
});

const run = (logFile: string) => cli(['run', job, '--emulator', '--no-progress', '--log-file', logFile]);

describe('geobatch run --log-file', () => {
  it('writes the log as JSON lines to the file, appending to what is there', async () => {
    const log = join(dir, 'new', 'run.log');
    expect(await run(log).exited).toBe(0);
    expect(await run(log).exited).toBe(0);
    const records = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.filter((record) => record.event === 'run.start')).toHaveLength(2);
  });

  it('refuses a directory with exit 2, naming --log-file, the path and a file to name instead', async () => {
    const logs = join(dir, 'logs');
    const refused = run(logs);
    expect(await refused.exited).toBe(2);
    expect(refused.err()).toContain(`geobatch: --log-file: cannot write ${logs}: it is a directory\n`);
    expect(refused.err()).toContain(`hint: Name the log file as a file, e.g. ${join(logs, 'geobatch.log')}.`);
    expect(refused.err()).not.toContain('EISDIR');
  });

  it('refuses the input or an output as the log file, leaving the input as it was and creating nothing', async () => {
    const input = join(dir, 'in.csv');
    const before = readFileSync(input, 'utf8');
    const onInput = run(input);
    expect(await onInput.exited).toBe(2);
    expect(onInput.err()).toContain(`geobatch: The log file ${input} is the input too\n`);
    expect(onInput.err()).toContain('hint: give --log-file a file of its own, such as run.log');
    expect(readFileSync(input, 'utf8')).toBe(before);
    const output = join(dir, 'out', 'log-as-output.csv');
    const onOutput = cli(['run', job, '--emulator', '--no-progress', '-o', output, '--log-file', output]);
    expect(await onOutput.exited).toBe(2);
    expect(onOutput.err()).toContain(`geobatch: The log file ${output} is an output too\n`);
    expect(existsSync(output)).toBe(false);
  });

  it('refuses a path under a regular file with exit 2, naming the file in the way', async () => {
    const refused = cli(['run', job, '--emulator', '--log-file', 'afile/sub/run.log'], {}, { cwd: dir });
    expect(await refused.exited).toBe(2);
    expect(refused.err()).toContain(
      `geobatch: --log-file: cannot write afile/sub/run.log: afile is a file, not a directory`,
    );
    expect(refused.err()).toContain('hint: Name the log file somewhere not under the file afile');
  });

  it.runIf(process.platform === 'linux')(
    'refuses a directory that takes no new file (/proc) with exit 2 rather than a bare ENOENT',
    async () => {
      const refused = run('/proc/geobatch.log');
      expect(await refused.exited).toBe(2);
      expect(refused.err()).toMatch(
        /geobatch: --log-file: cannot write \/proc\/geobatch\.log: (no file can be created in \/proc \(ENOENT\)|\/proc is not writable \(EACCES\))/,
      );
      expect(refused.err()).toContain('hint: Name the log file in a directory you can write to');
    },
  );

  it('is refused the same way by geobatch worker, before it connects to anything', async () => {
    const logs = join(dir, 'logs');
    const worker = cli(['worker', '--queue', 'postgres://geobatch@127.0.0.1:1/none', '--log-file', logs]);
    expect(await worker.exited).toBe(2);
    expect(worker.err()).toContain(`geobatch: --log-file: cannot write ${logs}: it is a directory`);
    expect(worker.err()).not.toContain('queue database');
  });
});

describe('openLogFile', () => {
  it('throws USAGE naming the flag, the path, what is wrong and what to do', () => {
    const logs = join(dir, 'logs');
    let error: unknown;
    try {
      openLogFile(logs);
    } catch (thrown) {
      error = thrown;
    }
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      field: 'log-file',
      file: logs,
      received: 'it is a directory',
      hint: `Name the log file as a file, e.g. ${join(logs, 'geobatch.log')}.`,
    });
  });

  it('makes the directories a log file goes to', () => {
    const log = join(dir, 'made', 'here', 'x.log');
    closeSync(openLogFile(log));
    expect(readFileSync(log, 'utf8')).toBe('');
  });
});

/** /dev/full opens, and every write to it fails with ENOSPC; FIFOs are made with mkfifo. */
const linux = process.platform === 'linux' && existsSync('/dev/full');
const FULL = '--log-file: writing the log to /dev/full failed: ENOSPC: no space left on device';
const STOPS = 'the run stops, since what it logs would be lost';

describe.runIf(linux)('geobatch run with a log file that fails on write', () => {
  let emulator: EmulatorHandle;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    emulator = await startEmulator({ preload: true });
    env = emulatorEnv(emulator);
  });
  afterAll(async () => {
    await emulator.close();
  });

  const summaryOf = (output: string) =>
    JSON.parse(readFileSync(`${output}.summary.json`, 'utf8')) as {
      error: unknown;
      resume: { checkpoint: string | null };
      rows: { read: number; written: number };
    };

  it('stops at once with IO_ERROR naming the file, the cause and what to do (exit 1), leaving no lock', async () => {
    const output = join(dir, 'full', 'result.csv');
    const run = cli(['run', job, '--no-progress', '-o', output, '--log-file', '/dev/full'], env);
    expect(await run.exited).toBe(1);
    // No row was committed, so there is nothing to resume: the hint leaves --resume out.
    expect(summaryOf(output).error).toEqual({
      code: 'IO_ERROR',
      message: `${FULL}; ${STOPS}`,
      hint: 'Free space on the disk that holds /dev/full, or name another --log-file',
    });
    expect(run.err()).toContain(`IO_ERROR: ${FULL}; ${STOPS}\n`);
    expect(run.err()).toContain(
      'hint: Free space on the disk that holds /dev/full, or name another --log-file\n',
    );
    // Not Node's bare error, nor a stack, nor a key.
    expect(run.err()).not.toContain('no space left on device, write');
    expect(run.err()).not.toMatch(/^\s+at /m);
    expect(run.err()).not.toContain(emulator.credentials.apiKey);
    expect(existsSync(`${output}.lock`)).toBe(false);
    expect(existsSync(`${output}.checkpoint.json`)).toBe(false);
  });

  it('stops with the same message when the log fails before the run begins (--emulator)', async () => {
    const output = join(dir, 'full-early', 'result.csv');
    const run = cli(['run', job, '--emulator', '--no-progress', '-o', output, '--log-file', '/dev/full']);
    expect(await run.exited).toBe(1);
    expect(run.err()).toBe(
      `geobatch: ${FULL}; ${STOPS}\n` +
        'hint: Free space on the disk that holds /dev/full, or name another --log-file, then run again with --resume.\n',
    );
    expect(existsSync(`${output}.lock`)).toBe(false);
  });

  it('keeps the exit status of a run that had ended when its log failed, and says the log lacks its end', async () => {
    const work = join(dir, 'after-end');
    mkdirSync(work);
    const fifo = join(work, 'log.fifo');
    execFileSync('mkfifo', [fifo]);
    const output = join(work, 'result.csv');
    // At concurrency 4 the window holds every request elevation may send, so no run.window record
    // follows run.start.
    const args = ['run', job, '--no-progress', '--no-report', '-c', '4', '-o', output, '--log-file', fifo];
    const run = cli(args, env);
    // Only run.start is read: the next line the run logs is its last, run.end, and it fails.
    const reader = createReadStream(fifo, 'utf8').on('data', (text) => {
      if (String(text).includes('run.start')) reader.destroy();
    });
    expect(await run.exited, run.err()).toBe(0);
    expect(run.err()).toContain(
      `geobatch: warning: --log-file: writing the log to ${fifo} failed after the last row (EPIPE): the outputs are complete; the log lacks its last lines\n`,
    );
    expect(run.err()).not.toContain('--resume');
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(6);
  });

  it('stops a run whose log fails midway (its reader gone: EPIPE) keeping the checkpoint, which --resume finishes', async () => {
    const work = join(dir, 'midway');
    mkdirSync(work);
    const rows = Array.from({ length: 10_000 }, (_, i) => {
      const lon = 6 + (i % 250) * 0.036;
      const lat = 47.5 + Math.floor(i / 250) * 0.036;
      return `${i},${lon.toFixed(5)},${lat.toFixed(5)}`;
    });
    writeFileSync(join(work, 'points.csv'), `id,lon,lat\n${rows.join('\n')}\n`);
    const points = join(work, 'job.yaml');
    writeFileSync(
      points,
      'job: reverse-geocode\ninput: points.csv\noutput: out/points.csv\nrun:\n  checkpointSeconds: 0.2\n',
    );
    const output = join(work, 'out', 'points.csv');
    const checkpoint = `${output}.checkpoint.json`;
    const committed = () => committedRows(checkpoint);
    const fifo = join(work, 'log.fifo');
    execFileSync('mkfifo', [fifo]);
    const args = ['run', points, '--resume', '--concurrency', '2'];
    // Progress records every 0.1 s: lines in the log while the rows flow.
    const run = cli([...args, '--progress-interval', '0.1', '--log-file', fifo], env);
    // Read the log until a checkpoint is on disk, then close the pipe: the next line fails.
    const reader = createReadStream(fifo).on('data', () => {});
    await until(() => committed() > 0, 20_000, 'a checkpoint');
    reader.destroy();
    expect(await run.exited).toBe(1);
    expect(summaryOf(output).error).toEqual({
      code: 'IO_ERROR',
      message: `--log-file: writing the log to ${fifo} failed: EPIPE: broken pipe; ${STOPS}`,
      hint: `Start again what reads ${fifo} (it closed its end), or name another --log-file, then run again with --resume.`,
    });
    expect(summaryOf(output).resume.checkpoint).toBe(checkpoint);
    const kept = committed();
    expect(kept).toBeGreaterThan(0);
    // Every row written by the stop is committed: the outputs are whole, only the log failed.
    expect(kept).toBe(summaryOf(output).rows.written);
    expect(run.err()).toContain(`checkpoint kept: ${checkpoint}`);

    // Resumed with a log that fails at once, the run stops again and the checkpoint stays as it was.
    const full = cli([...args, '--no-progress', '--log-file', '/dev/full'], env);
    expect(await full.exited).toBe(1);
    expect((summaryOf(output).error as { code: string }).code).toBe('IO_ERROR');
    expect(committed()).toBe(kept);

    const resumed = cli([...args, '--no-progress', '--log-file', join(work, 'run.log')], env);
    expect([0, 3]).toContain(await resumed.exited);
    expect(summaryOf(output).rows.read).toBe(10_000);
    expect(readFileSync(output, 'utf8').trim().split('\n')).toHaveLength(10_001);
    expect(existsSync(checkpoint)).toBe(false);
  }, 60_000);
});

describe.runIf(linux)('logFileStream', () => {
  it('never throws: the first failed write reports IO_ERROR once, with the file, the cause and a hint', async () => {
    const failures: IoError[] = [];
    const stream = logFileStream('/dev/full', openLogFile('/dev/full'), (error) => failures.push(error));
    expect(() => stream.write('{"msg":"one"}\n')).not.toThrow();
    // Reported after the logger call that failed, not inside it.
    expect(failures).toHaveLength(0);
    await Promise.resolve();
    stream.write('{"msg":"two"}\n');
    await Promise.resolve();
    expect(failures).toHaveLength(1);
    const [error] = failures;
    expect(error?.code).toBe('IO_ERROR');
    expect(error?.fatal).toBe(true);
    expect(error?.message).toBe(`${FULL}; ${STOPS}`);
    expect(error?.context).toEqual({
      field: 'log-file',
      file: '/dev/full',
      hint: 'Free space on the disk that holds /dev/full, or name another --log-file, then run again with --resume.',
    });
    expect((error?.cause as NodeJS.ErrnoException | undefined)?.code).toBe('ENOSPC');
  });
});

describe('logWriteError', () => {
  it('says an I/O error is one and sends the user to the device', () => {
    const cause = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO', syscall: 'write' });
    const error = logWriteError('/mnt/nfs/run.log', cause);
    expect(error.code).toBe('IO_ERROR');
    expect(error.message).toBe(
      `--log-file: writing the log to /mnt/nfs/run.log failed: EIO: i/o error; ${STOPS}`,
    );
    expect(error.context).toMatchObject({ field: 'log-file', file: '/mnt/nfs/run.log' });
    expect(error.context.hint).toMatch(
      /^Check the device that holds \/mnt\/nfs\/run\.log .*then run again with --resume\.$/,
    );
  });
});

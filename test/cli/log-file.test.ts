/**
 * `--log-file`: a path that cannot take the log is a usage error naming the flag, the path and
 * what is wrong (exit 2, nothing started), as `-o` is; one that can gets JSON lines, appended.
 */
import { closeSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { openLogFile } from '../../src/cli/_log-file.js';
import { isGeobatchError } from '../../src/errors.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { cli } from './_cli.js';

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

/**
 * What a run checks of the directories it writes to before it takes its lock: each is made when
 * missing, and one that cannot be made or written is a usage error naming the file, what is in
 * the way and what to do, never the bare errno (mkdir under a file says EEXIST).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { makeDirectories } from '../../src/run/_checks.js';
import { makeDirectory, whyUnwritable } from '../../src/run/_writable.js';
import type { RunSpec } from '../../src/run/run.js';
import { fakeJob } from '../engine/_fake.js';
import { memoryLogger, tempDir, write } from '../fixtures/run-helpers.js';

function specOf(dir: string, spec: Partial<RunSpec> = {}): RunSpec {
  return {
    job: fakeJob(),
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.csv'), format: 'csv' },
    output: { path: join(dir, 'out', 'result.csv'), format: 'csv' },
    report: { path: join(dir, 'out', 'result.errors.csv'), format: 'csv' },
    logger: memoryLogger().logger,
    progress: { enabled: false },
    ...spec,
  };
}

async function refusal(spec: RunSpec): Promise<unknown> {
  return makeDirectories(spec).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('makeDirectories', () => {
  it('makes the missing directories of the outputs and reports', async () => {
    const dir = tempDir();
    const report = join(dir, 'reports', 'errors.csv');
    await makeDirectories(specOf(dir, { report: { path: report, format: 'csv' } }));
    expect(existsSync(join(dir, 'out'))).toBe(true);
    expect(existsSync(join(dir, 'reports'))).toBe(true);
  });

  it('refuses an output under a regular file with USAGE naming that file, not EEXIST', async () => {
    const dir = tempDir();
    const file = write(join(dir, 'afile'), 'x');
    const output = join(file, 'o.csv');
    const error = await refusal(specOf(dir, { output: { path: output, format: 'csv' } }));
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.message).toBe(
      `The output ${output} cannot be written: ${file} is a file, not a directory`,
    );
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: output,
      received: `${file} is a file, not a directory`,
      hint: `Name the output (-o, or the job file's output:) somewhere not under the file ${file}, or move that file away.`,
    });
  });

  it('names the file in the way however deep under it the output is, and the role of the file', async () => {
    const dir = tempDir();
    const file = write(join(dir, 'afile'), 'x');
    const report = join(file, 'a', 'b', 'errors.csv');
    const error = await refusal(specOf(dir, { report: { path: report, format: 'csv' } }));
    expect(isGeobatchError(error) && error.message).toBe(
      `The error report ${report} cannot be written: ${file} is a file, not a directory`,
    );
    expect(isGeobatchError(error) && error.context.hint).toContain("(-e, or the job file's errors:)");
  });
});

describe('makeDirectory', () => {
  it('makes every missing level, and leaves an existing directory as it is', () => {
    const dir = tempDir();
    makeDirectory(join(dir, 'a', 'b', 'c'));
    makeDirectory(join(dir, 'a', 'b', 'c'));
    expect(existsSync(join(dir, 'a', 'b', 'c'))).toBe(true);
  });

  it('fails with ENOTDIR when a file is in the way, however deep', () => {
    const file = write(join(tempDir(), 'afile'), 'x');
    for (const directory of [file, join(file, 'a', 'b')])
      expect(() => makeDirectory(directory)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });

  // Node's own recursive mkdir never returns here.
  it.runIf(process.platform === 'linux')(
    'fails at once under a directory that takes no new one (/proc)',
    () => {
      expect(() => makeDirectory('/proc/geobatch-test/sub')).toThrow(
        expect.objectContaining({ code: expect.stringMatching(/^(ENOENT|EACCES)$/) }),
      );
    },
  );
});

describe('whyUnwritable', () => {
  const failed = (code: string) => Object.assign(new Error(code), { code });

  it.each([
    [
      'EACCES',
      '/ is not writable (EACCES)',
      'Name it in a directory you can write to, or change the permissions of /',
    ],
    [
      'EPERM',
      '/ is not writable (EPERM)',
      'Name it in a directory you can write to, or change the permissions of /',
    ],
    ['EROFS', '/ is on a read-only file system', 'Name it on a writable file system'],
    ['ENOENT', 'no file can be created in / (ENOENT)', 'Name it in a directory you can write to'],
  ])('says what %s means for the path and what to do', (code, reason, fix) => {
    expect(whyUnwritable('/missing-geobatch-dir/x.csv', failed(code), 'it')).toEqual({ reason, fix });
  });

  it('offers a file inside a directory that was named as the file', () => {
    expect(whyUnwritable('/tmp/logs', failed('EISDIR'), 'the log file', 'geobatch.log')).toEqual({
      reason: 'it is a directory',
      fix: 'Name the log file as a file, e.g. /tmp/logs/geobatch.log',
    });
    // Named so by its ending, whether it exists or not.
    expect(
      whyUnwritable('/missing-geobatch-dir/logs/', failed('EISDIR'), 'the log file', 'geobatch.log'),
    ).toEqual({
      reason: 'it ends with / and so names a directory',
      fix: 'Name the log file as a file, e.g. /missing-geobatch-dir/logs/geobatch.log',
    });
  });

  it("leaves errors that are not the path's fault to the caller (a full disk)", () => {
    expect(whyUnwritable('/tmp/x.csv', failed('ENOSPC'), 'it')).toBeUndefined();
    expect(whyUnwritable('/tmp/x.csv', new Error('no code'), 'it')).toBeUndefined();
  });
});

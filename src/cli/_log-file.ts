/**
 * `--log-file`: opened here, before anything runs, so that a path that cannot take the log is a
 * usage error naming the flag (exit 2), as `-o` does, rather than pino's bare EISDIR or ENOENT.
 */
import { openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { IoError, UsageError } from '../errors.js';
import { makeDirectory, whyUnwritable } from '../run/_writable.js';

/** The log file opened for appending (its directories made as needed), as a file descriptor. */
export function openLogFile(path: string): number {
  try {
    makeDirectory(dirname(resolve(path)));
    return openSync(path, 'a');
  } catch (cause) {
    const problem = whyUnwritable(path, cause, 'the log file', 'geobatch.log');
    if (problem === undefined) {
      throw new IoError('IO_ERROR', `--log-file: cannot open ${path}: ${(cause as Error).message}`, {
        field: 'log-file',
        file: path,
        hint: 'Check free disk space and permissions.',
        cause,
      });
    }
    throw new UsageError(`--log-file: cannot write ${path}: ${problem.reason}`, {
      field: 'log-file',
      file: path,
      expected: 'a file path in a directory that can be written',
      received: problem.reason,
      hint: `${problem.fix}.`,
      cause,
    });
  }
}

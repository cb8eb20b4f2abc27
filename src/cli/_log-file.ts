/**
 * `--log-file`: opened here, before anything runs, so that a path that cannot take the log is a
 * usage error naming the flag (exit 2), as `-o` is, rather than pino's bare EISDIR or ENOENT.
 * A file that opens but then fails a write (a full disk, an I/O error, /dev/full) stops the run
 * as a full disk under the output does: IO_ERROR, exit 1, the checkpoint kept. Run on without a
 * log, a cron job would leave no record of what it did; a bare throw from inside a logger call
 * ended the process with Node's own message instead.
 */
import { openSync, writeSync } from 'node:fs';
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

/** Where pino writes the log file's lines; `write` never throws. */
export interface LogFileStream {
  write(line: string): void;
}

/**
 * The open log file as pino's destination, written synchronously (a fatal error's last line must
 * reach the file before the process exits). The first write that fails calls `onFailure` once
 * with an IO_ERROR naming the file, the cause and what to do; that line and every later one are
 * dropped. `onFailure` is called in a microtask, not inside the logger call that failed: that
 * call may be deep in the engine or the client, which stopping the run must not re-enter.
 */
export function logFileStream(path: string, fd: number, onFailure: (error: IoError) => void): LogFileStream {
  let failed = false;
  return {
    write(line: string) {
      if (failed) return;
      try {
        writeAll(fd, Buffer.from(line, 'utf8'));
      } catch (cause) {
        failed = true;
        const error = logWriteError(path, cause);
        queueMicrotask(() => onFailure(error));
      }
    },
  };
}

/** writeSync may write part of a buffer (a nearly full disk, a pipe): the rest is written after it. */
function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done);
}

/** What to do about the log file at `path`, by the errno a write of it failed with. */
const FIXES: Readonly<Record<string, (path: string) => string>> = {
  ENOSPC: (path) => `Free space on the disk that holds ${path}, or name another --log-file`,
  EDQUOT: (path) => `Free space within your disk quota for ${path}, or name another --log-file`,
  EFBIG: (path) =>
    `Move ${path} away (it is as large as this system lets a file grow), or name another --log-file`,
  EPIPE: (path) => `Start again what reads ${path} (it closed its end), or name another --log-file`,
  EIO: (path) =>
    `Check the device that holds ${path} (an I/O error comes from the disk or the network file system), or name another --log-file`,
};

/** The IO_ERROR a failed write of the log file stops the run with. */
export function logWriteError(path: string, cause: unknown): IoError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const fix = (code === undefined ? undefined : FIXES[code])?.(path) ?? 'Name another --log-file';
  return new IoError(
    'IO_ERROR',
    `--log-file: writing the log to ${path} failed: ${causeText(cause)}; the run stops, since what it logs would be lost`,
    {
      field: 'log-file',
      file: path,
      hint: `${fix}, then run again with --resume.`,
      cause,
    },
  );
}

/** `ENOSPC: no space left on device`, without the `, write` Node adds after the system call. */
function causeText(cause: unknown): string {
  const error = cause as NodeJS.ErrnoException | undefined;
  const message = error instanceof Error ? error.message : String(cause);
  return error?.syscall === undefined ? message : message.replace(new RegExp(`, ${error.syscall}$`), '');
}

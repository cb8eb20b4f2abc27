/**
 * The text of a job file, from a regular file or a pipe. A pipe is how a shell hands over a
 * generated job file (`geobatch run <(envsubst < job.yaml)`, `... | geobatch run /dev/stdin`),
 * and is read as it comes. A named pipe (mkfifo) that nothing opens for writing is not waited on
 * for ever: opening it blocked with no word, and Ctrl-C could not end the wait. A device
 * (/dev/zero, a terminal) or a socket is no job file: /dev/zero was read until memory ran out.
 */
import { constants, createReadStream } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { ConfigError } from '../errors.js';

/** Far above any job file (they are a few KB); a path to an input file or /dev/urandom stops here. */
export const JOB_TEXT_MAX_BYTES = 16 * 1024 * 1024;

/** How long a named pipe may wait for its writer. */
export const WRITER_WAIT_MS = 10_000;

export interface JobTextOptions {
  /** @default WRITER_WAIT_MS */
  readonly writerWaitMs?: number;
}

/**
 * Reads the job file at `absolute`; `file` is how messages name it. Throws a ConfigError for what
 * it knows how to say (a file in the path, a device, a pipe without writer, a text too large);
 * other errors (ENOENT, EACCES, EISDIR) as they come, for the caller to word.
 */
export async function readJobText(
  absolute: string,
  file: string,
  options: JobTextOptions = {},
): Promise<string> {
  const info = await stat(absolute).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTDIR') throw await underAFile(file, error);
    throw error;
  });
  // A socket cannot be opened by path; one of this process's own (a parent such as Node spawning
  // geobatch gives standard input as a socket pair) is read from its descriptor.
  const ownFd = info.isSocket() ? descriptorOf(absolute) : undefined;
  if (ownFd !== undefined) return readStream(createReadStream('', { fd: ownFd, autoClose: false }), file);
  const kind = info.isCharacterDevice()
    ? 'a device'
    : info.isBlockDevice()
      ? 'a block device'
      : info.isSocket()
        ? 'a socket'
        : undefined;
  if (kind !== undefined)
    throw new ConfigError(`${file}: ${kind}, not a job file`, {
      file,
      received: kind,
      hint: 'name the job file (a .yaml or .json file); a pipe, such as <(cat job.yaml) or /dev/stdin fed by one, is read too',
    });
  if (info.isFile() && info.size > JOB_TEXT_MAX_BYTES) throw tooLarge(file, info.size);
  const handle = info.isFIFO()
    ? await openPipe(absolute, file, options.writerWaitMs ?? WRITER_WAIT_MS)
    : await open(absolute, 'r');
  try {
    return await readAll(handle, file);
  } finally {
    await handle.close();
  }
}

/** `/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`: a descriptor of this process, by number. */
function descriptorOf(path: string): number | undefined {
  if (path === '/dev/stdin') return 0;
  const number = /^\/(?:dev|proc\/self)\/fd\/(\d+)$/.exec(path)?.[1];
  return number === undefined ? undefined : Number(number);
}

async function readStream(stream: Readable, file: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > JOB_TEXT_MAX_BYTES) throw tooLarge(file, total, true);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Up to JOB_TEXT_MAX_BYTES (a pipe gives no size ahead), as UTF-8. */
async function readAll(handle: FileHandle, file: string): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > JOB_TEXT_MAX_BYTES) throw tooLarge(file, total, true);
    chunks.push(buffer.subarray(0, bytesRead));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(file: string, bytes: number, more = false): ConfigError {
  const mb = (n: number) => `${Number((n / 1024 / 1024).toFixed(1))} MB`;
  // A size that rounds to the limit is said as over it: "16 MB, too large (at most 16 MB)" read
  // as a contradiction.
  const over = more || mb(bytes) === mb(JOB_TEXT_MAX_BYTES);
  return new ConfigError(
    `${file}: ${over ? `more than ${mb(JOB_TEXT_MAX_BYTES)}` : mb(bytes)}, too large for a job file (at most ${mb(JOB_TEXT_MAX_BYTES)})`,
    {
      file,
      expected: `a job file of at most ${mb(JOB_TEXT_MAX_BYTES)}`,
      received: `${more ? 'more than ' : ''}${bytes} bytes`,
      hint: 'name the job file (a .yaml or .json file); an input file goes in its input: or after -i',
    },
  );
}

/**
 * Opens a pipe for reading. An anonymous one (<(...), /dev/stdin) opens at once; a named one
 * waits for a writer, in a thread of its own. When none comes within `waitMs`, this process
 * opens it for writing itself, which ends that wait, and refuses the pipe.
 */
async function openPipe(absolute: string, file: string, waitMs: number): Promise<FileHandle> {
  const opening = open(absolute, 'r');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), waitMs);
  });
  const first = await Promise.race([opening, late]).finally(() => clearTimeout(timer));
  if (first !== 'late') return first;
  // The blocked open counts as a reader, so a non-blocking open for writing succeeds and frees it.
  const writer = await open(absolute, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
  await (await opening).close();
  await writer?.close();
  throw new ConfigError(
    `${file}: a named pipe (FIFO) that nothing opened for writing within ${waitMs / 1000} s`,
    {
      file,
      received: 'a named pipe without a writer',
      hint: 'start what writes the job file into it first, or name the job file itself; a pipe from the shell, such as <(cat job.yaml), is read as it comes',
    },
  );
}

/** One or more slashes ending a path: `job.yaml/` (`/` alone is the root, no trailing slash). */
const TRAILING_SLASH = /(?<=[^/])\/+$/;

/**
 * ENOTDIR: part of the path is a file. Says which, as the path was written. A path ending in a
 * slash (`job.yaml/`) names a directory: the file it ends with is the one in the way.
 */
async function underAFile(file: string, cause: unknown): Promise<ConfigError> {
  const slashed = TRAILING_SLASH.test(file);
  let where = slashed ? file.replace(TRAILING_SLASH, '') : dirname(file);
  // The nearest part of the path that exists is the file in the way.
  for (let at = where; ; at = dirname(at)) {
    const exists = await stat(resolve(at)).then(
      () => true,
      () => false,
    );
    if (exists) {
      where = at;
      break;
    }
    if (at === dirname(at)) break;
  }
  const named = slashed && where === file.replace(TRAILING_SLASH, '');
  return new ConfigError(`${file}: no such job file: ${where} is a file, not a directory`, {
    file,
    cause,
    hint: named
      ? `a path ending in / names a directory; to name the job file, drop the slash: ${where}`
      : `check the path: nothing lies under the file ${where}; \`geobatch init <input>\` writes a job file for an input`,
  });
}

/**
 * Opens the bytes of an input (a file, or standard input for `-`) and counts them as they are
 * consumed, so that progress can estimate how far through the input a run is.
 */
import { createReadStream, fstatSync, type Stats, statSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { addAbortSignal, type Readable } from 'node:stream';
import { IoError, UsageError } from '../errors.js';

/** The bytes of one input, read once. */
export interface ByteSource {
  /** The path as given; `-` for standard input. */
  readonly path: string;
  /** Size in bytes when known (a regular file, or stdin redirected from one). */
  readonly size: number | undefined;
  /** Modification time, for the checkpoint's input fingerprint. */
  readonly mtimeMs: number | undefined;
  /**
   * A regular file (a path, or standard input redirected from one), whose bytes are all there to
   * read; false for a pipe or a terminal, whose producer sends them at its own pace.
   */
  readonly regular: boolean;
  readonly chunks: AsyncIterable<Buffer>;
  /** Bytes handed to the parser so far. */
  bytesRead(): number;
}

export interface SourceOptions {
  /** Stops reading and releases the file, or standard input: the chunks then end. */
  signal?: AbortSignal;
  /** Where `-` reads from. @default process.stdin */
  stdin?: Readable;
  /** Read chunk size. @default 65536 */
  highWaterMark?: number;
  /** The side input's key, for refusals (ReaderOptions.sideInput). */
  sideInput?: string;
}

/** Opens `path` for reading; a missing or unreadable file is a usage problem found before the run. */
export async function openSource(path: string, options: SourceOptions = {}): Promise<ByteSource> {
  if (path === '-') return stdinSource(options);
  const info = await inputFile(path, options.sideInput);
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (cause) {
    throw unopened(path, cause, options.sideInput);
  }
  // The run's own handle, kept open to the end, so that the file read can be asked whether it
  // changed while it was read (see `counted`).
  const stream = createReadStream(path, {
    fd: handle,
    autoClose: false,
    highWaterMark: options.highWaterMark ?? 65536,
    signal: options.signal,
  });
  // A signal that fired while the file was being opened (the log's disk full at start, an early
  // Ctrl-C) errors the stream before anything reads it: unheard, that error ended the process.
  // The reader still meets it: a destroyed stream's iterator ends (AbortError) or throws.
  stream.on('error', () => {});
  return counted(path, stream, info.size, info.mtimeMs, true, handle);
}

/**
 * The input file's facts; throws USAGE, in words, for one that is missing, a directory or not a
 * regular file (`geobatch init` asks before it guesses a format from the name).
 */
export async function inputFile(path: string, sideInput?: string): Promise<Stats> {
  let info: Stats;
  try {
    info = await stat(path);
  } catch (cause) {
    throw unopened(path, cause, sideInput);
  }
  if (info.isDirectory())
    throw new UsageError(`${subject(path, sideInput)} is a directory, not a file`, {
      ...keyOf(sideInput),
      file: path,
      expected: 'a file',
      received: 'a directory',
      hint: 'Name a file in it.',
    });
  if (!info.isFile()) {
    // A pipe or device (`/dev/stdin`, bash's `<(zcat x.gz)`): geobatch reads standard input as a
    // stream, and a file by its size and time, which a checkpoint fingerprints; not these.
    const kind = info.isFIFO() ? 'a pipe' : info.isCharacterDevice() ? 'a device' : 'a special file';
    throw new UsageError(`${subject(path, sideInput)} is ${kind}, not a file`, {
      ...keyOf(sideInput),
      file: path,
      expected: 'a regular file, or - for standard input',
      received: kind,
      hint: 'Read a stream as standard input: `zcat in.csv.gz | geobatch run job.yaml -i -` (or `-i - < file`).',
    });
  }
  return info;
}

/** The file as a refusal names it: the input, or a side input by its job file key. */
function subject(path: string, sideInput: string | undefined): string {
  return sideInput === undefined ? `The input ${path}` : `${sideInput}: ${path}`;
}

function keyOf(sideInput: string | undefined): { path?: string } {
  return sideInput === undefined ? {} : { path: sideInput };
}

/** Where a relative input path is read from, for hints. */
const WHERE =
  "a relative path on the command line is read from the working directory, and a job file's `input:` from the job file's directory (from the working directory for a job file from a pipe)";

/**
 * Why an input could not be opened, in words: a bare `ENOENT` told a user new to Node nothing,
 * and under a file (`a.csv/b.csv`) the path's own error, ENOTDIR, misleads as much.
 */
function unopened(path: string, cause: unknown, sideInput?: string): UsageError {
  const code = (cause as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    const file = code === 'ENOTDIR' ? fileInTheWay(path) : undefined;
    return new UsageError(
      `${subject(path, sideInput)} does not exist${file === undefined ? '' : `: ${file} is a file`}`,
      {
        ...keyOf(sideInput),
        file: path,
        expected: 'an existing file',
        received: 'no such file',
        hint:
          sideInput === undefined
            ? `Check the path (${WHERE}).`
            : `Check ${sideInput}'s path: a relative one is read from the job file's directory.`,
        cause,
      },
    );
  }
  return new UsageError(`Cannot read ${sideInput ?? 'input file'} ${path}: ${code ?? cause}`, {
    ...keyOf(sideInput),
    file: path,
    hint: code === 'EACCES' ? 'Check the permissions of the file.' : 'Check the input path.',
    cause,
  });
}

/** The closest parent of `path` that is a file, when one is in the way. */
function fileInTheWay(path: string): string | undefined {
  // `a.csv/` is refused (ENOTDIR) for a.csv itself, which dirname would step over.
  const bare = path.replace(/\/+$/, '');
  const first = bare !== path && bare !== '' ? bare : dirname(path);
  for (let parent = first; parent !== dirname(parent); parent = dirname(parent)) {
    try {
      return statSync(parent).isFile() ? parent : undefined;
    } catch {
      // Not there either: look further up.
    }
  }
  return undefined;
}

function stdinSource(options: SourceOptions): ByteSource {
  const stdin = options.stdin ?? process.stdin;
  let size: number | undefined;
  if (options.stdin === undefined) {
    try {
      const info = fstatSync(0);
      if (info.isFile()) size = info.size;
    } catch {
      // No size for pipes and terminals: progress then shows no total.
    }
  }
  // As a file's: a stop must not wait for the next line a pipe may never send (nor for the
  // look-ahead's mebibyte), and a pipe still read kept the process alive after the run had ended.
  if (options.signal !== undefined) addAbortSignal(options.signal, stdin);
  return counted('-', stdin, size, undefined, size !== undefined);
}

function counted(
  path: string,
  stream: Readable,
  size: number | undefined,
  mtimeMs: number | undefined,
  regular: boolean,
  handle?: FileHandle,
): ByteSource {
  let bytes = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of stream) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        bytes += buffer.length;
        yield buffer;
      }
      if (handle !== undefined) await unchanged(path, handle, { size, mtimeMs, bytes });
    } catch (cause) {
      if ((cause as Error).name === 'AbortError') return;
      if (cause instanceof IoError) throw cause;
      throw new IoError('IO_ERROR', `Reading ${path} failed: ${(cause as Error).message}`, {
        file: path,
        cause,
      });
    } finally {
      if (path !== '-') stream.destroy();
      await handle?.close().catch(() => {});
    }
  }
  return { path, size, mtimeMs, regular, chunks: chunks(), bytesRead: () => bytes };
}

/** How the stop for an input that changed under the run says so; the closing line looks for it. */
export const INPUT_CHANGED = 'changed while it was read';

/**
 * Throws IO_ERROR when the file read is not the file the run began on: cut short, grown or
 * rewritten while it was read. A file truncated under a run ended 'complete', its last line cut
 * to `12.` and sent as a longitude, and the rows after the cut never read. The open handle is
 * asked, not the path: a file deleted or renamed away while it was read is still read whole.
 */
async function unchanged(
  path: string,
  handle: FileHandle,
  began: { size: number | undefined; mtimeMs: number | undefined; bytes: number },
): Promise<void> {
  const now = await handle.stat();
  if (began.bytes === began.size && now.size === began.size && now.mtimeMs === began.mtimeMs) return;
  const when = (ms: number | undefined) => (ms === undefined ? '?' : new Date(ms).toISOString());
  // The sizes, and the times when only they differ (a file rewritten to the same length, a touch).
  const what =
    now.size === began.size && began.bytes === began.size
      ? `it was modified at ${when(now.mtimeMs)}, after the run began on the version of ${when(began.mtimeMs)}`
      : `it had ${began.size ?? '?'} bytes when the run began, ${now.size} now, and ${began.bytes} were read`;
  throw new IoError(
    'IO_ERROR',
    `The input ${path} ${INPUT_CHANGED}: ${what}; the rows read cannot be trusted to be the file's`,
    {
      file: path,
      // What marks this stop for the session: nothing is kept (see run/session.ts).
      field: 'input',
      hint: 'Run on a file that is complete: let what writes it finish (or have it write elsewhere and move the file into place when done), then run again, from the start.',
    },
  );
}

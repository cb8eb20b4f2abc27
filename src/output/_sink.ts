/**
 * Where output text goes: a temporary file beside the target, renamed over it on success, or a
 * stream such as stdout. Honours backpressure, counts bytes for the checkpoint, fsyncs on demand
 * and treats EPIPE on a stream as "the reader is gone: stop quietly".
 */
import { once } from 'node:events';
import { createWriteStream, fsync as fsyncCb, type WriteStream } from 'node:fs';
import { stat, truncate, unlink } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { promisify } from 'node:util';
import { IoError } from '../errors.js';
import { moveIntoPlace } from './_place.js';

const fsync = promisify(fsyncCb);

/** Text is gathered up to this size before one write: per-row writes would dominate the run. */
const FLUSH_AT = 64 * 1024;
/**
 * A stream's gathered text is written at the latest this long after its first line came. Flushed
 * only at 64 KiB and at the end, standard output showed nothing of a trickling input (`tail -f`,
 * a producer that pauses) until its end, though every row was settled as it came; a file is
 * flushed by the checkpoint's commits instead. One timer per buffer, not per line: a fast run
 * (about 1 MB/s of CSV against the emulator) still writes tens of KiB at a time, at most 10 writes
 * a second more than before.
 */
const LINGER_MS = 100;
/** The most bytes one UTF-16 code unit takes in UTF-8: a text of n units takes at most 3n bytes. */
const MAX_UTF8_PER_UNIT = 3;

export interface Sink {
  /** The final target; `-` for stdout. */
  readonly target: string;
  /** The file being written (the temporary one), or the target for a stream. */
  readonly path: string;
  /** Queues text. False asks the caller to `await drain()` before writing more. */
  write(text: string): boolean;
  drain(): Promise<void>;
  /** Everything written so far is handed to the OS and, for a file, fsync'd. Returns its byte length. */
  sync(): Promise<number>;
  /**
   * The byte length the file has once what is written so far is flushed: read as rows are written
   * (at each group's end of a trip or match run), so it neither flushes nor waits.
   */
  length(): number;
  /**
   * Syncs and closes, leaving the complete file at `path` (for a stream: syncs). The run renames it
   * over the target (output/_place.ts) once every file of the run is sealed.
   */
  seal(): Promise<void>;
  /** Seals, then renames the temporary file over the target. */
  commit(): Promise<void>;
  /** Flushes and closes, keeping the temporary file (for a resume). Never throws, never hangs. */
  close(): Promise<void>;
  /** Closes and deletes the temporary file: a stopped run with nothing to resume. Never throws. */
  discard(): Promise<void>;
  /** True once the reading end of a stream went away (EPIPE): later writes are dropped. */
  readonly broken: boolean;
}

/** The temporary file a target is written to until the run succeeds. */
export function partialPath(target: string): string {
  return `${target}.partial`;
}

/**
 * Texts are copied into a byte buffer as they come, and the buffer is what is written. Kept as
 * strings until the 64 KiB write, the output lines lived through a young-generation collection or
 * two and were promoted to the old one; copied at once, a line dies young, and the write needs no
 * join and no encoding pass. 100,000 geocoded rows promoted 124 MB instead of 186, and spent 768
 * ms in collections instead of 829 (--trace-gc-nvp, one run each).
 */
class StreamSink implements Sink {
  broken = false;
  private gathered = Buffer.allocUnsafe(FLUSH_AT);
  private used = 0;
  private written: number;
  private lastWrite: Promise<void> = Promise.resolve();
  private failure: IoError | undefined;
  /** Armed while text is gathered, when `lingerMs` is given. */
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    readonly target: string,
    readonly path: string,
    protected readonly stream: Writable,
    startAt: number,
    private readonly lingerMs?: number,
  ) {
    this.written = startAt;
    stream.on('error', (cause: NodeJS.ErrnoException) => this.fail(cause));
  }

  write(text: string): boolean {
    this.check();
    if (this.broken) return true;
    const room = FLUSH_AT - this.used;
    // Exact byte lengths only for a text that might not fit: most lines fit even at 3 bytes a unit.
    const bytes = text.length * MAX_UTF8_PER_UNIT <= room ? -1 : Buffer.byteLength(text, 'utf8');
    let accepting = true;
    if (bytes > room) {
      accepting = this.flush();
      if (bytes > FLUSH_AT) return this.send(Buffer.from(text, 'utf8')) && accepting;
    }
    this.used += this.gathered.write(text, this.used);
    if (this.used >= FLUSH_AT) return this.flush();
    if (this.lingerMs !== undefined && this.lingering === undefined) this.linger(this.lingerMs);
    return accepting;
  }

  async drain(): Promise<void> {
    this.check();
    // A destroyed stream never emits 'drain' again: waiting for it would hang the run.
    if (this.broken || this.stream.destroyed || !this.stream.writableNeedDrain) return;
    try {
      await once(this.stream, 'drain');
    } catch (cause) {
      if (this.broken) return;
      this.check();
      throw ioError(`Writing ${this.path} failed: ${(cause as Error).message}`, this.path, cause);
    }
  }

  length(): number {
    return this.written + this.used;
  }

  async sync(): Promise<number> {
    this.flush();
    await this.lastWrite;
    this.check();
    return this.written;
  }

  async seal(): Promise<void> {
    await this.sync();
    await this.end();
  }

  async commit(): Promise<void> {
    await this.seal();
  }

  async close(): Promise<void> {
    try {
      this.flush();
      await this.lastWrite;
      await this.end();
    } catch {
      // Closing after a failure: the failure was already reported.
    }
  }

  async discard(): Promise<void> {
    await this.close();
  }

  /**
   * Ends the file and waits until it is closed. Safe to call twice and after a failure: `once(close)`
   * on a stream that already closed (after ENOSPC, or a first end) would wait forever.
   */
  protected async end(): Promise<void> {
    if (this.target === '-') return;
    if (!this.stream.writableEnded && !this.stream.destroyed) this.stream.end();
    try {
      await finished(this.stream);
    } catch (cause) {
      this.failure ??= ioError(`Writing ${this.path} failed: ${(cause as Error).message}`, this.path, cause);
    }
    this.check();
  }

  protected check(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  private fail(cause: NodeJS.ErrnoException): void {
    if (cause.code === 'EPIPE' && this.target === '-') this.broken = true;
    else this.failure ??= ioError(`Writing ${this.path} failed: ${cause.message}`, this.path, cause);
  }

  /**
   * Writes what is gathered once `ms` have passed. Unref'd, as every way a run ends flushes
   * anyway. A failure of that write surfaces as any other's: at the next write, sync or drain.
   */
  private linger(ms: number): void {
    this.lingering = setTimeout(() => {
      this.lingering = undefined;
      this.flush();
    }, ms);
    this.lingering.unref();
  }

  private flush(): boolean {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.used === 0 || this.broken || this.stream.destroyed) return !this.stream.writableNeedDrain;
    const full = this.gathered.subarray(0, this.used);
    // The stream keeps the bytes until they are on disk: the next texts go to a new buffer.
    this.gathered = Buffer.allocUnsafe(FLUSH_AT);
    this.used = 0;
    return this.send(full);
  }

  private send(buffer: Buffer): boolean {
    this.written += buffer.length;
    let done!: () => void;
    this.lastWrite = new Promise<void>((resolve) => {
      done = resolve;
    });
    // The callback learns of a failed write before the 'error' event does: record it here, so
    // that sync() reports the cause (ENOSPC) rather than what fails after it.
    return this.stream.write(buffer, (cause?: Error | null) => {
      if (cause) this.fail(cause);
      done();
    });
  }
}

class FileSink extends StreamSink {
  override async sync(): Promise<number> {
    const bytes = await super.sync();
    try {
      await fsync((this.stream as WriteStream & { fd: number }).fd);
    } catch (cause) {
      throw ioError(`Syncing ${this.path} to disk failed: ${(cause as Error).message}`, this.path, cause);
    }
    return bytes;
  }

  override async discard(): Promise<void> {
    await this.close();
    await unlink(this.path).catch(() => {});
  }

  override async commit(): Promise<void> {
    await this.seal();
    await moveIntoPlace(this.path, this.target);
  }
}

/**
 * Opens the temporary file for `target`: empty, or (resuming) cut back to `resumeAt` bytes, so that
 * whatever a killed run wrote after its last checkpoint is dropped.
 */
export async function openFileSink(target: string, resumeAt?: number): Promise<Sink> {
  const path = partialPath(target);
  try {
    if (resumeAt !== undefined) await cutBack(path, resumeAt);
    const stream = createWriteStream(path, {
      flags: resumeAt === undefined ? 'w' : 'a',
      highWaterMark: FLUSH_AT,
    });
    await once(stream, 'open');
    return new FileSink(target, path, stream, resumeAt ?? 0);
  } catch (cause) {
    if (cause instanceof IoError) throw cause;
    throw ioError(`Cannot open ${path} for writing: ${(cause as Error).message}`, path, cause);
  }
}

async function cutBack(path: string, size: number): Promise<void> {
  await checkPartial(path, size);
  await truncate(path, size);
}

/**
 * Rejects with partialMismatch when the .partial file at `path` is gone or shorter than the
 * checkpoint's `size`: what a resume meets as it opens it (cutBack), and what `geobatch status`
 * and a run without --resume check to say whether --resume can go on.
 */
export async function checkPartial(path: string, size: number): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || info.size < size) throw partialMismatch(path, size, info?.size);
}

/**
 * The refusal of a .partial file shorter than the checkpoint's `size`, or gone (`found`
 * undefined): what --resume meets, and what a run without it says --resume would meet.
 */
export function partialMismatch(path: string, size: number, found: number | undefined): IoError {
  const what =
    found === undefined
      ? `${path} is gone, though the checkpoint holds ${size} bytes of it`
      : `${path} is shorter than the checkpoint says (${found} bytes, not ${size})`;
  return new IoError('CHECKPOINT_MISMATCH', what, {
    file: path,
    expected: `at least ${size} bytes`,
    received: found === undefined ? 'no file' : `${found} bytes`,
    hint: 'The partial output was changed or removed: start over with --resume --restart-if-changed, or delete the checkpoint and run again.',
  });
}

/**
 * A sink over any writable stream (stdout for `-`); nothing is renamed or fsync'd. What is written
 * reaches the stream within LINGER_MS, so that a reader follows a trickling run as it goes.
 */
export function streamSink(stream: Writable, target = '-'): Sink {
  return new StreamSink(target, target, stream, 0, LINGER_MS);
}

/** Deletes a file that may not exist. */
export async function removeFile(path: string): Promise<void> {
  await unlink(path).catch((cause: NodeJS.ErrnoException) => {
    if (cause.code !== 'ENOENT') throw ioError(`Cannot delete ${path}: ${cause.message}`, path, cause);
  });
}

function ioError(message: string, path: string, cause: unknown): IoError {
  return new IoError('IO_ERROR', message, {
    file: path,
    cause,
    hint: 'Check free disk space and permissions.',
  });
}

/**
 * The SQLite file behind a GeoPackage output: written as `<target>.partial` in WAL mode, rows
 * committed in bounded transactions, made durable at each checkpoint, and at the end switched back
 * to a plain rollback journal (a single self-contained file) and renamed over the target.
 */
import { stat } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { IoError } from '../errors.js';
import { moveIntoPlace } from './_place.js';
import { partialPath, removeFile } from './_sink.js';

/** SQLITE_FULL: the disk (or the file system quota) is full. */
const SQLITE_FULL = 13;

/** WAL mode keeps its log and index beside the database: both go with it. */
const SIDE_FILES = ['-wal', '-shm', '-journal'];

/** The files SQLite may keep beside a GeoPackage's `<target>.partial` (none for a text output). */
export function partialSideFiles(target: string): string[] {
  return SIDE_FILES.map((side) => partialPath(target) + side);
}

export class GpkgFile {
  private inTransaction = false;
  private closed = false;

  constructor(
    readonly target: string,
    readonly path: string,
    readonly db: DatabaseSync,
  ) {}

  /** Runs `work`, turning an SQLite failure into an IoError that names the file. */
  guard<T>(doing: string, work: () => T): T {
    try {
      return work();
    } catch (cause) {
      if (cause instanceof IoError) throw cause;
      throw sqliteError(`${doing} ${this.path} failed`, this.path, cause);
    }
  }

  begin(): void {
    if (this.inTransaction) return;
    this.guard('Writing', () => this.db.exec('BEGIN'));
    this.inTransaction = true;
  }

  /** Commits what is pending; the rows are in the file (durable only after `sync`). */
  commitPending(): void {
    if (!this.inTransaction) return;
    this.guard('Writing', () => this.db.exec('COMMIT'));
    this.inTransaction = false;
  }

  /** Commits, copies the log into the database and fsyncs it: resolves to the file's size. */
  async sync(): Promise<number> {
    this.commitPending();
    this.guard('Syncing', () => this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)'));
    return (await stat(this.path)).size;
  }

  /** Leaves one self-contained file (no -wal beside it) at `path`, closed. */
  async seal(): Promise<void> {
    this.commitPending();
    this.guard('Finishing', () => {
      this.db.exec('PRAGMA journal_mode = DELETE');
      this.db.close();
    });
    this.closed = true;
  }

  /** Seals, then renames the file over the target. */
  async commit(): Promise<void> {
    await this.seal();
    await moveIntoPlace(this.path, this.target);
  }

  /** Closes without committing what is pending, keeping the file for a resume. Never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      if (this.inTransaction) this.db.exec('ROLLBACK');
    } catch {
      // A failed rollback leaves the pending rows to SQLite's recovery; a resume cuts them off anyway.
    }
    try {
      this.db.close();
    } catch {
      // Closing after a failure: the failure was already reported.
    }
  }
}

/**
 * Rejects with CHECKPOINT_MISMATCH when the GeoPackage a resume continues at `path` (a .partial)
 * is gone: what openGpkgFile meets, and what `geobatch status` checks. Its length says nothing
 * (its rows are counted in the file itself).
 */
export async function checkGpkgPartial(path: string): Promise<void> {
  const found = await stat(path).catch(() => undefined);
  if (found === undefined)
    throw new IoError('CHECKPOINT_MISMATCH', `${path} is missing, though the checkpoint continues it`, {
      file: path,
      expected: 'the GeoPackage an interrupted run left',
      received: 'no file',
      hint: 'The partial output was removed: start over with --resume --restart-if-changed, or delete the checkpoint and run again.',
    });
}

/**
 * Opens `<target>.partial`: a new, empty file, or (resuming) the one an earlier run left, with
 * whatever its log holds. A fresh start first deletes any leftover log, which SQLite would
 * otherwise replay into the new file.
 */
export async function openGpkgFile(target: string, resuming: boolean): Promise<GpkgFile> {
  const path = partialPath(target);
  if (resuming) {
    await checkGpkgPartial(path);
  } else {
    for (const file of [path, ...SIDE_FILES.map((side) => path + side)]) await removeFile(file);
  }
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
  } catch (cause) {
    throw sqliteError(`Cannot open ${path} for writing`, path, cause);
  }
  const file = new GpkgFile(target, path, db);
  file.guard('Opening', () => {
    // The feature table's column types are set at the end by editing its CREATE statement, which
    // SQLite's defensive mode forbids (Node turns it on by default since 24).
    db.enableDefensive?.(false);
    db.exec('PRAGMA journal_mode = WAL');
    // NORMAL: a crash may lose the last commits but never corrupts; `sync` makes them durable.
    db.exec('PRAGMA synchronous = NORMAL');
  });
  return file;
}

function sqliteError(message: string, path: string, cause: unknown): IoError {
  const errcode = (cause as { errcode?: number }).errcode;
  const full = errcode !== undefined && (errcode & 0xff) === SQLITE_FULL;
  return new IoError('IO_ERROR', `${message}: ${full ? 'the disk is full' : (cause as Error).message}`, {
    file: path,
    cause,
    hint: 'Check free disk space and permissions.',
  });
}

/**
 * Opening the cache file: refusing what is not a geobatch cache (or one this geobatch cannot
 * read), then preparing it for writing (WAL, migration), or for reading without writing anything
 * (_sqlite-read-only.ts).
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { problemOf, sqliteCode, unusable } from './_errors.js';
import { checkFile, create, diagnose } from './_sqlite-file.js';
import { type Connection, type Debug, ReadOnlyFile } from './_sqlite-read-only.js';
import {
  claim,
  damageMark,
  type FileState,
  fileState,
  migrate,
  OLDEST_READABLE,
  SQLITE_SCHEMA_VERSION,
  tableNames,
  userVersion,
} from './_sqlite-schema.js';

export interface SqliteOptions {
  /**
   * Never write: not the file, not beside it (see _sqlite-read-only.ts); never create the file,
   * never migrate it. @default false
   */
  readonly readOnly?: boolean;
  /** How long a write waits for another process's transaction. @default 10000 */
  readonly busyTimeoutMs?: number;
  /**
   * The same, once the file is open: a run's writes block its event loop while they wait, so a
   * run waits little and tries again later (writer.ts). @default busyTimeoutMs
   */
  readonly writeBusyTimeoutMs?: number;
  /**
   * The most the file may hold; writes beyond fail as a full disk does. For tests of the full-disk
   * path, and for capping a cache. @default no limit
   */
  readonly maxBytes?: number;
  /** Where to say how a read-only file was opened. @default nowhere */
  readonly debug?: Debug;
}

/**
 * The page cache a connection may hold, in KiB (SQLite's default is 2 MiB). A nightly run looks up
 * every row's item at a random place in the file; with the default most lookups read two pages
 * from the file (about 1 µs a page, measured); 16 MiB keeps the B-trees' upper levels and much of
 * a 100,000-entry file, and bounds what a cache of any size adds to the run's memory.
 */
const PAGE_CACHE_KIB = 16_384;

/**
 * A connection to the cache file, which is created (mode 0600) when absent; undefined for a
 * read-only cache that does not exist yet or is empty. Throws CACHE_UNUSABLE for a file that is
 * not a geobatch cache, is damaged, or was made by a newer geobatch.
 */
export function openConnection(path: string, options: SqliteOptions = {}): Connection | undefined {
  const readOnly = options.readOnly === true;
  const created = !existsSync(path);
  if (created) {
    if (readOnly) return undefined;
    create(path);
  }
  checkFile(path);
  const busyTimeoutMs = Math.trunc(options.busyTimeoutMs ?? 10_000);
  const configure = (db: DatabaseSync) => {
    db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
    db.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
  };
  let connection: Connection | undefined;
  try {
    if (readOnly) {
      const file = new ReadOnlyFile(path, configure, options.debug);
      connection = file;
      if (file.read(() => checkContents(file.db, path, true)) === 'empty') {
        file.close();
        return undefined;
      }
    } else {
      const db = new DatabaseSync(path);
      connection = fixed(db);
      configure(db);
      prepareForWriting(db, path, options.maxBytes, busyTimeoutMs);
      if (options.writeBusyTimeoutMs !== undefined)
        db.exec(`PRAGMA busy_timeout = ${Math.trunc(options.writeBusyTimeoutMs)}`);
    }
    return connection;
  } catch (error) {
    connection?.close();
    // A file this call created and could not set up (a full disk) is no cache: not left behind.
    if (created) removeIfEmpty(path);
    if (problemOf(error) !== undefined) throw error;
    const { reason, ...rest } = diagnose(error, path, !readOnly);
    throw unusable(path, reason, { ...rest, cause: error });
  }
}

/** Refuses another program's database and a geobatch cache this one cannot read. */
function checkContents(db: DatabaseSync, path: string, readOnly: boolean): FileState {
  const state = fileState(db);
  if (state === 'foreign') {
    const tables = tableNames(db);
    const looksLike = `an SQLite database of another program (tables: ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', ...' : ''})`;
    throw unusable(path, `it is ${looksLike}`, { problem: 'foreign', looksLike });
  }
  const version = userVersion(db);
  if (version > SQLITE_SCHEMA_VERSION) {
    throw unusable(
      path,
      `it was made by a newer geobatch (schema ${version}, this one reads ${SQLITE_SCHEMA_VERSION})`,
      { problem: 'newer' },
    );
  }
  // One lookup in the one-page `meta` table: damage a run found costs nothing to learn at open,
  // where a `PRAGMA quick_check` reads the whole file (36 ms for 100,000 entries, 40 MB).
  const mark = state === 'geobatch' ? damageMark(db) : undefined;
  if (mark !== undefined) {
    throw unusable(path, `a run found it damaged at ${mark.at} (SQLite: ${mark.reason})`, {
      problem: 'damaged',
    });
  }
  if (readOnly && state === 'geobatch' && version < OLDEST_READABLE) {
    throw unusable(
      path,
      `it was made by an older geobatch (schema ${version}) and must be migrated first, which read-only mode does not do`,
      { problem: 'outdated' },
    );
  }
  return state;
}

function prepareForWriting(
  db: DatabaseSync,
  path: string,
  maxBytes: number | undefined,
  busyTimeoutMs: number,
): void {
  checkContents(db, path, false);
  toWal(db, busyTimeoutMs);
  // WAL with NORMAL loses no committed transaction when the process dies, only on power loss.
  db.exec('PRAGMA synchronous = NORMAL');
  if (userVersion(db) < SQLITE_SCHEMA_VERSION) migrate(db);
  try {
    claim(db);
  } catch {
    // The mark only helps to recognise the file once damaged; one this user may not write (a
    // run that then goes on without storing answers) is used without it.
  }
  if (maxBytes !== undefined) {
    const pageSize = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
    db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxBytes / pageSize))}`);
  }
}

/** A synchronous pause: opening runs before anything else of the run, on its own. */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Puts a file still in rollback-journal mode (a new one) into WAL mode. That takes the file to
 * itself, and two runs opening a new cache at once each hold the read lock the other must wait
 * out: SQLite answers that deadlock BUSY at once, without waiting its busy timeout (20 of 40 such
 * pairs failed, one of each refused with "database is locked"). Retried here, within the same
 * timeout, after a short random pause; a file already in WAL mode passes at the first try.
 */
function toWal(db: DatabaseSync, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      Atomics.wait(PAUSE, 0, 0, 5 + Math.random() * 20);
    }
  }
}

/** SQLITE_BUSY, extended codes included. */
function isBusy(error: unknown): boolean {
  return sqliteCode(error) === 5;
}

/** The connection of a store that writes: one for its life, read directly. */
function fixed(db: DatabaseSync): Connection {
  return {
    db,
    generation: 0,
    read: (work) => work(),
    close: () => {
      if (db.isOpen) db.close();
    },
  };
}

/** Removes `path` and its journal files when `path` is still empty: nothing was ever kept in it. */
function removeIfEmpty(path: string): void {
  try {
    if (statSync(path).size !== 0) return;
    for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(file, { force: true });
  } catch {
    // Gone already, or out of reach: the refusal says what matters.
  }
}

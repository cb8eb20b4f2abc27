/**
 * Reading a cache file while writing nothing, not even beside it: a shared file the user may not
 * change, a directory they may not write, a read-only mount, a dry run.
 *
 * SQLite's read-only open of a WAL file creates the `-wal` and `-shm` files when they are missing
 * and, being read-only, cannot remove them when it closes: they would stay behind, owned by this
 * user; and where the directory may not be written the open fails ("unable to open database
 * file"). So:
 * - with a `-wal` there (a writer has the file open, or died with it open), the file is opened
 *   read-only the normal way: it reads the answers committed to the WAL and takes part in the
 *   writers' locking, through the `-shm` beside it. Should that fail (a `-shm` it may not open or
 *   create), it is read immutable, as the last checkpoint left it;
 * - without, it is opened immutable (`file:...?immutable=1`): SQLite takes no lock and opens
 *   no other file. Immutable means SQLite trusts the file not to change, so a read first looks
 *   for a writer that came since (a `-wal` appeared, the file's size or times changed) and opens
 *   again if so, and a read during which the file changed is done again.
 */
import { existsSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { pathToFileURL } from 'node:url';
import { sqliteCode } from './_errors.js';

/** A connection to the file, and what reads go through. */
export interface Connection {
  readonly db: DatabaseSync;
  /** Changes when the connection was replaced: statements prepared on the old one are gone. */
  readonly generation: number;
  read<T>(work: () => T): T;
  close(): void;
}

export type Debug = (fields: Record<string, unknown>, message: string) => void;

/** A writer may change the file while a read runs; a read is done again at most this often. */
const ATTEMPTS = 3;

export class ReadOnlyFile implements Connection {
  #db: DatabaseSync;
  #immutable = false;
  #stamp = '';
  #generation = 0;

  constructor(
    private readonly path: string,
    private readonly configure: (db: DatabaseSync) => void,
    private readonly debug: Debug = () => {},
  ) {
    this.#db = this.#open();
  }

  get db(): DatabaseSync {
    return this.#db;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Whether the connection reads the file immutable (no WAL, no locks). */
  get immutable(): boolean {
    return this.#immutable;
  }

  read<T>(work: () => T): T {
    for (let attempt = 1; ; attempt++) {
      if (this.#changed()) this.#reopen();
      try {
        const result = work();
        if (!this.#changed()) return result;
      } catch (error) {
        // A page torn by a writer's checkpoint can look corrupt: only then is it read again.
        if (!this.#changed()) throw error;
      }
      if (attempt === ATTEMPTS) throw new Error(`${this.path} kept changing while it was read`);
    }
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }

  #changed(): boolean {
    return this.#immutable && stampOf(this.path) !== this.#stamp;
  }

  #reopen(): void {
    this.close();
    this.#db = this.#open();
    this.#generation++;
  }

  #open(): DatabaseSync {
    // Taken before opening: a change while opening shows at the first read.
    this.#stamp = stampOf(this.path);
    if (existsSync(`${this.path}-wal`)) {
      try {
        return this.#openShared();
      } catch (error) {
        if (!cannotShare(error)) throw error;
        this.debug(
          { cache: this.path, err: error },
          'Request cache: its -wal/-shm cannot be used read-only; reading it immutable, as its last checkpoint left it',
        );
      }
    } else {
      this.debug(
        { cache: this.path },
        'Request cache: no process has it open (no -wal beside it); reading it immutable, so that no -wal/-shm is left beside it',
      );
    }
    return this.#openImmutable();
  }

  /** Read-only through the WAL and the shared memory, as a writer's other readers do. */
  #openShared(): DatabaseSync {
    const db = new DatabaseSync(this.path, { readOnly: true });
    try {
      this.configure(db);
      // The first read opens the WAL and the shared memory: where that fails, it fails here.
      db.prepare('SELECT COUNT(*) FROM sqlite_master').get();
    } catch (error) {
      db.close();
      throw error;
    }
    this.#immutable = false;
    return db;
  }

  #openImmutable(): DatabaseSync {
    const url = pathToFileURL(this.path);
    url.searchParams.set('immutable', '1');
    let db: DatabaseSync;
    try {
      db = new DatabaseSync(url, { readOnly: true });
    } catch (error) {
      // Node before 22.15 takes a path only (a URL came with nodejs/node#56991): read-only the
      // plain way, which works wherever -wal/-shm may be created beside the file.
      if ((error as { code?: unknown }).code !== 'ERR_INVALID_ARG_TYPE') throw error;
      this.debug(
        { cache: this.path },
        'Request cache: this Node cannot open it immutable; opening it read-only',
      );
      db = new DatabaseSync(this.path, { readOnly: true });
      this.configure(db);
      this.#immutable = false;
      return db;
    }
    this.configure(db);
    this.#immutable = true;
    return db;
  }
}

/** 8 SQLITE_READONLY, 10 SQLITE_IOERR (the shared memory's), 14 SQLITE_CANTOPEN. */
function cannotShare(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 8 || code === 10 || code === 14;
}

/** What changes when a writer touches the file: its identity, size and times, and a WAL beside it. */
function stampOf(path: string): string {
  try {
    const s = statSync(path, { bigint: true });
    const beside = [existsSync(`${path}-wal`), existsSync(`${path}-shm`)];
    return [s.ino, s.size, s.mtimeNs, s.ctimeNs, ...beside].join(':');
  } catch {
    return 'gone';
  }
}

/**
 * The embedded store: one SQLite file through `node:sqlite` (no native build). WAL mode, so that
 * readers never wait for a writer and two runs can share the file; every write is one
 * transaction, so a process killed at any moment leaves the file as it was after the last commit.
 * Lookups take a batch of items in one SELECT, after reading ahead where the batch before ended
 * (_read-ahead.ts). Opening it, and reading it without writing anything: _sqlite-open.ts.
 */
import { statSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ReadAhead } from './_read-ahead.js';
import { openConnection, type SqliteOptions } from './_sqlite-open.js';
import type { Connection } from './_sqlite-read-only.js';
import { markDamaged, userVersion } from './_sqlite-schema.js';
import { lifetimeOf } from './lifetimes.js';
import {
  CACHE_INTERFACES,
  type CacheInterface,
  type CacheStats,
  type CacheStore,
  type NewEntry,
  type PruneRule,
  RUNS_KEPT,
  type RunRecord,
  type Scope,
  type StoredEntry,
} from './store.js';

export type { SqliteOptions };

/** A looked-up entry as the lookup returns it: item, value, not_found, created_at, rowid. */
type Row = [item: string, value: string, notFound: number, createdAt: number, rowid: number];

interface NamedRow {
  item: string;
  value: string;
  not_found: number;
  created_at: number;
  rowid: number;
}

const COLUMNS = 'item, value, not_found, created_at, rowid';

/**
 * Opens (creating with mode 0600 when absent) the cache file. Resolves to undefined for a
 * read-only cache that does not exist yet. Throws CACHE_UNUSABLE for a file that is not a
 * geobatch cache, is damaged, or was made by a newer geobatch; `context.detail.problem` says which.
 */
export function openSqliteStore(path: string, options: SqliteOptions = {}): SqliteStore | undefined {
  const connection = openConnection(path, options);
  return connection === undefined ? undefined : new SqliteStore(connection, path, options.readOnly === true);
}

export class SqliteStore implements CacheStore {
  readonly kind = 'sqlite' as const;
  readonly #connection: Connection;
  readonly #readOnly: boolean;
  readonly #scopes = new Map<string, number>();
  readonly #statements = new Map<string, StatementSync>();
  /** The connection's generation the statements were prepared on. */
  #prepared = 0;
  readonly #readAhead = new ReadAhead();
  /** Entries found by reading ahead, and by the index: how well the read-ahead guessed. */
  readonly found = { ahead: 0, indexed: 0 };

  constructor(
    connection: Connection,
    readonly location: string,
    readOnly: boolean,
  ) {
    this.#connection = connection;
    this.#readOnly = readOnly;
  }

  get #db(): DatabaseSync {
    return this.#connection.db;
  }

  async getMany(scope: Scope, items: readonly string[]): Promise<Map<string, StoredEntry>> {
    const id = this.#connection.read(() => this.#scopeId(scope, false));
    if (id === undefined || items.length === 0) return new Map();
    const stretch = this.#readAhead.stretch(id, items.length);
    const found = this.#connection.read(() => this.#lookUp(id, items, stretch));
    this.found.ahead += found.ahead;
    this.found.indexed += found.rowids.length - found.ahead;
    this.#readAhead.learn(id, items.length, found.rowids);
    return found.entries;
  }

  /** The entries of `items`: first from the stretch of the table read ahead, the rest by index. */
  #lookUp(id: number, items: readonly string[], stretch: { from: number; to: number } | undefined) {
    const entries = new Map<string, StoredEntry>();
    const rowids: number[] = [];
    let rest = items;
    if (stretch !== undefined) {
      // NOT INDEXED: a range of the table itself; the (scope, item) index would visit the scope.
      const read = this.#statement(
        `SELECT ${COLUMNS} FROM entries NOT INDEXED WHERE rowid >= ? AND rowid < ? AND scope = ?`,
        true,
      ).all(stretch.from, stretch.to, id) as unknown as (Row | NamedRow)[];
      const held = new Map<string, Row | NamedRow>();
      for (const row of read) held.set(Array.isArray(row) ? row[0] : row.item, row);
      const lacking: string[] = [];
      for (const item of items) {
        const row = held.get(item);
        if (row === undefined) lacking.push(item);
        else rowids.push(setEntry(entries, row));
      }
      rest = lacking;
    }
    const ahead = rowids.length;
    if (rest.length > 0) {
      const rows = this.#statement(
        `SELECT ${COLUMNS} FROM entries WHERE scope = ? AND item IN (SELECT value FROM json_each(?))`,
        true,
      ).all(id, JSON.stringify(rest)) as unknown as (Row | NamedRow)[];
      for (const row of rows) rowids.push(setEntry(entries, row));
    }
    return { entries, rowids, ahead };
  }

  async getAll(scope: Scope): Promise<Map<string, StoredEntry>> {
    return this.#connection.read(() => {
      const out = new Map<string, StoredEntry>();
      const id = this.#scopeId(scope, false);
      if (id === undefined) return out;
      const rows = this.#statement(`SELECT ${COLUMNS} FROM entries WHERE scope = ?`, true).all(
        id,
      ) as unknown as (Row | NamedRow)[];
      for (const row of rows) setEntry(out, row);
      return out;
    });
  }

  async putMany(entries: readonly NewEntry[]): Promise<void> {
    if (this.#readOnly || entries.length === 0) return;
    const insert = this.#statement(
      `INSERT INTO entries (scope, item, value, not_found, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (scope, item) DO UPDATE SET
         value = excluded.value, not_found = excluded.not_found, created_at = excluded.created_at`,
    );
    this.#transaction(() => {
      for (const e of entries) {
        const id = this.#scopeId(e.scope, true) as number;
        insert.run(id, e.item, e.value, e.notFound ? 1 : 0, e.createdAt);
      }
    });
  }

  async stats(recentRuns = 10): Promise<CacheStats> {
    const { interfaces, schemaVersion, runs } = this.#connection.read(() => ({
      interfaces: this.#db
        .prepare(
          `SELECT s.interface AS interface, COUNT(*) AS entries, SUM(e.not_found) AS notFound,
                  SUM(length(CAST(e.item AS BLOB)) + length(CAST(e.value AS BLOB))) AS bytes,
                  MIN(e.created_at) AS oldest, MAX(e.created_at) AS newest
           FROM entries e JOIN scopes s ON s.id = e.scope GROUP BY s.interface ORDER BY s.interface`,
        )
        .all() as unknown as CacheStats['interfaces'][number][],
      schemaVersion: userVersion(this.#db),
      runs: this.#runs(recentRuns),
    }));
    return {
      kind: this.kind,
      location: this.location,
      schemaVersion,
      sizeBytes: ['', '-wal'].reduce((sum, suffix) => sum + sizeOf(`${this.location}${suffix}`), 0),
      interfaces: interfaces.map((r) => ({ ...r, notFound: r.notFound ?? 0, bytes: r.bytes ?? 0 })),
      runs,
    };
  }

  async prune(rule: PruneRule): Promise<number> {
    let deleted = 0;
    this.#transaction(() => {
      if (rule.before !== undefined) {
        deleted += Number(
          this.#db.prepare('DELETE FROM entries WHERE created_at < ?').run(rule.before).changes,
        );
      }
      const lifetimes = rule.lifetimes;
      if (lifetimes === undefined) return;
      const now = Date.now();
      const statement = this.#db.prepare(
        `DELETE FROM entries WHERE scope IN (SELECT id FROM scopes WHERE interface = ?)
         AND created_at < CASE not_found WHEN 1 THEN ? ELSE ? END`,
      );
      for (const iface of CACHE_INTERFACES) {
        const notFoundBefore = now - lifetimeOf(true, iface, lifetimes);
        const run = statement.run(iface, notFoundBefore, now - lifetimeOf(false, iface, lifetimes));
        deleted += Number(run.changes);
      }
    });
    if (deleted > 0) this.#compact();
    return deleted;
  }

  async clear(only?: CacheInterface): Promise<number> {
    let deleted = 0;
    this.#transaction(() => {
      // Scopes stay: a run using the file meanwhile keeps valid scope ids.
      const run =
        only === undefined
          ? this.#db.prepare('DELETE FROM entries').run()
          : this.#db
              .prepare('DELETE FROM entries WHERE scope IN (SELECT id FROM scopes WHERE interface = ?)')
              .run(only);
      deleted = Number(run.changes);
    });
    if (deleted > 0) this.#compact();
    return deleted;
  }

  async recordRun(run: RunRecord): Promise<void> {
    if (this.#readOnly) return;
    this.#transaction(() => {
      this.#db
        .prepare(
          `INSERT INTO runs (started_at, ended_at, job, hits, misses, writes, requests_saved)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(run.startedAt, run.endedAt, run.job, run.hits, run.misses, run.writes, run.requestsSaved);
      this.#db.prepare('DELETE FROM runs WHERE id <= (SELECT MAX(id) FROM runs) - ?').run(RUNS_KEPT);
    });
  }

  async markDamaged(reason: string): Promise<boolean> {
    if (this.#readOnly) return false;
    // Outside a transaction of its own: the failed one was rolled back, and a write of one row
    // to the one-page `meta` table is the least a damaged file can be asked.
    markDamaged(this.#db, reason);
    return true;
  }

  async close(): Promise<void> {
    this.#connection.close();
  }

  #runs(limit: number): RunRecord[] {
    const tables = this.#db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'runs'").get();
    if (tables === undefined) return [];
    return this.#db
      .prepare(
        `SELECT started_at AS startedAt, ended_at AS endedAt, job, hits, misses, writes,
                requests_saved AS requestsSaved
         FROM runs ORDER BY id DESC LIMIT ?`,
      )
      .all(limit) as unknown as RunRecord[];
  }

  /** The id of a scope; with `create`, made when missing (inside the caller's transaction). */
  #scopeId(scope: Scope, create: boolean): number | undefined {
    const known = this.#scopes.get(scope.description);
    if (known !== undefined) return known;
    if (create) {
      this.#statement('INSERT OR IGNORE INTO scopes (interface, description) VALUES (?, ?)').run(
        scope.interface,
        scope.description,
      );
    }
    const row = this.#statement('SELECT id FROM scopes WHERE description = ?').get(scope.description) as
      | { id: number }
      | undefined;
    if (row !== undefined) this.#scopes.set(scope.description, row.id);
    return row?.id;
  }

  /** A prepared statement, made once; `arrays`: rows as arrays (no object per row to build). */
  #statement(sql: string, arrays = false): StatementSync {
    if (this.#prepared !== this.#connection.generation) {
      // The read-only file was opened again: the old connection's statements are finalized.
      this.#statements.clear();
      this.#prepared = this.#connection.generation;
    }
    let statement = this.#statements.get(sql);
    if (statement === undefined) {
      statement = this.#db.prepare(sql);
      // setReturnArrays came with Node 22.16 and 24; on 22.13-22.15 rows stay objects (setEntry).
      if (arrays && typeof statement.setReturnArrays === 'function') statement.setReturnArrays(true);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #transaction(work: () => void): void {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.#db.exec('COMMIT');
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Gives the space of deleted entries back to the file system; skipped while others use it. */
  #compact(): void {
    try {
      this.#db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      this.#db.exec('VACUUM');
    } catch {
      // Another process holds the file: the space is reused by later writes instead.
    }
  }
}

/** Adds a looked-up row, an array or (before Node 22.16, see #statement) an object; its rowid. */
function setEntry(out: Map<string, StoredEntry>, row: Row | NamedRow): number {
  const [item, value, notFound, createdAt, rowid] = Array.isArray(row)
    ? row
    : [row.item, row.value, row.not_found, row.created_at, row.rowid];
  out.set(item, { value, notFound: notFound === 1, createdAt });
  return rowid;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

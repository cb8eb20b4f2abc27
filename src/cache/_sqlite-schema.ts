/**
 * The SQLite file's layout, as migration steps: a fresh file runs them all, an older one the
 * rest. `PRAGMA user_version` holds the version; the `meta` table marks the file as geobatch's,
 * so that another program's database is refused rather than written into.
 */
import type { DatabaseSync } from 'node:sqlite';

export const APPLICATION = 'geobatch-cache';

/** Step n brings a file from version n to n + 1. Never edit a step; add one. */
export const SQLITE_MIGRATIONS: readonly string[] = [
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   INSERT INTO meta (key, value) VALUES ('application', '${APPLICATION}');
   CREATE TABLE scopes (
     id INTEGER PRIMARY KEY,
     interface TEXT NOT NULL,
     description TEXT NOT NULL UNIQUE
   );
   CREATE TABLE entries (
     scope INTEGER NOT NULL,
     item TEXT NOT NULL,
     value TEXT NOT NULL,
     not_found INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     PRIMARY KEY (scope, item)
   );`,
  `CREATE TABLE runs (
     id INTEGER PRIMARY KEY,
     started_at INTEGER NOT NULL,
     ended_at INTEGER NOT NULL,
     job TEXT NOT NULL,
     hits INTEGER NOT NULL,
     misses INTEGER NOT NULL,
     writes INTEGER NOT NULL,
     requests_saved INTEGER NOT NULL
   );`,
];

export const SQLITE_SCHEMA_VERSION = SQLITE_MIGRATIONS.length;

export function userVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number } | undefined;
  return row?.user_version ?? 0;
}

/** What is in a file before geobatch uses it. */
export type FileState = 'empty' | 'geobatch' | 'foreign';

export function fileState(db: DatabaseSync): FileState {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
    name: string;
  }[];
  if (tables.length === 0) return 'empty';
  if (!tables.some((t) => t.name === 'meta')) return 'foreign';
  const row = db.prepare("SELECT value FROM meta WHERE key = 'application'").get() as
    | { value: string }
    | undefined;
  return row?.value === APPLICATION ? 'geobatch' : 'foreign';
}

/**
 * Brings the file to `target` in one write transaction. Two runs starting on an old file at once
 * both get here: the second waits for the first's lock and then finds nothing left to do.
 */
export function migrate(db: DatabaseSync, target = SQLITE_SCHEMA_VERSION): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const from = userVersion(db);
    if (from > 0 && fileState(db) === 'foreign') throw new Error('not a geobatch cache');
    for (let step = from; step < target; step++) db.exec(SQLITE_MIGRATIONS[step] as string);
    if (from < target) db.exec(`PRAGMA user_version = ${target}`);
    db.exec('COMMIT');
  } catch (error) {
    // A failed COMMIT (a full disk) has already rolled back: a second ROLLBACK would hide why.
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

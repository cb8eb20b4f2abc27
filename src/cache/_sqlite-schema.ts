/**
 * The SQLite file's layout, as migration steps: a fresh file runs them all, an older one the
 * rest. `PRAGMA user_version` holds the version; the `meta` table marks the file as geobatch's,
 * so that another program's database is refused rather than written into. The header's
 * `application_id` marks it too, where even a damaged file keeps it (see _sqlite-file.ts).
 */
import type { DatabaseSync } from 'node:sqlite';

export const APPLICATION = 'geobatch-cache';

/** `PRAGMA application_id` of a geobatch cache: "gbch". Not a migration: older versions ignore it. */
export const APPLICATION_ID = 0x67626368;

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

/**
 * The oldest version read-only mode reads as it is, never migrating it: every version since has
 * the `scopes` and `entries` tables as this geobatch reads them (version 2 only added `runs`, which
 * `stats` does without). A migration that changes what lookups read must raise it.
 */
export const OLDEST_READABLE = 1;

export function userVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number } | undefined;
  return row?.user_version ?? 0;
}

/** What is in a file before geobatch uses it. */
export type FileState = 'empty' | 'geobatch' | 'foreign';

export function fileState(db: DatabaseSync): FileState {
  const tables = tableNames(db);
  if (tables.length === 0) return 'empty';
  if (!tables.includes('meta')) return 'foreign';
  const row = db.prepare("SELECT value FROM meta WHERE key = 'application'").get() as
    | { value: string }
    | undefined;
  return row?.value === APPLICATION ? 'geobatch' : 'foreign';
}

/** The `meta` row a run writes when it finds the file damaged (_damage.ts); its value: DamageMark. */
export const DAMAGED_KEY = 'damaged';

/** When a run found the file damaged, and what SQLite said. */
export interface DamageMark {
  readonly at: string;
  readonly reason: string;
}

/** The file's damage mark, if a run left one. */
export function damageMark(db: DatabaseSync): DamageMark | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(DAMAGED_KEY) as
    | { value: string }
    | undefined;
  if (row === undefined) return undefined;
  try {
    return JSON.parse(row.value) as DamageMark;
  } catch {
    return { at: 'an earlier run', reason: row.value };
  }
}

export function markDamaged(db: DatabaseSync, reason: string): void {
  const mark: DamageMark = { at: new Date().toISOString(), reason };
  db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(DAMAGED_KEY, JSON.stringify(mark));
}

/** The names of a database's tables (of another program's, for the message refusing it). */
export function tableNames(db: DatabaseSync): string[] {
  const rows = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[];
  return rows.map((row) => row.name);
}

/** Marks a geobatch cache in its header, once: files made before the mark get it when next written. */
export function claim(db: DatabaseSync): void {
  const row = db.prepare('PRAGMA application_id').get() as { application_id: number } | undefined;
  if (row?.application_id !== APPLICATION_ID) db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
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

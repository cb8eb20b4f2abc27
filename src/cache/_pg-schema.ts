/**
 * The PostgreSQL tables, as migration steps like the SQLite file's. Several machines may start
 * at once on a new database: the steps run under a transaction-scoped advisory lock, so one
 * creates the tables and the others find them made.
 */
import type { PoolClient } from 'pg';
import { APPLICATION } from './_sqlite-schema.js';

export const PG_MIGRATIONS: readonly string[] = [
  `CREATE TABLE geobatch_cache_meta (key text PRIMARY KEY, value text NOT NULL);
   INSERT INTO geobatch_cache_meta (key, value) VALUES ('application', '${APPLICATION}'), ('schema', '0');
   CREATE TABLE geobatch_cache_scopes (
     id serial PRIMARY KEY,
     interface text NOT NULL,
     description text NOT NULL UNIQUE
   );
   CREATE TABLE geobatch_cache_entries (
     scope integer NOT NULL,
     item text NOT NULL,
     value text NOT NULL,
     not_found boolean NOT NULL,
     created_at bigint NOT NULL,
     PRIMARY KEY (scope, item)
   );`,
  `CREATE TABLE geobatch_cache_runs (
     id bigserial PRIMARY KEY,
     started_at bigint NOT NULL,
     ended_at bigint NOT NULL,
     job text NOT NULL,
     hits bigint NOT NULL,
     misses bigint NOT NULL,
     writes bigint NOT NULL,
     requests_saved bigint NOT NULL
   );`,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** An arbitrary constant naming geobatch's schema lock among the database's advisory locks. */
const LOCK_ID = 4_711_013;

/** The schema version in the database: 0 when the tables are not there. */
export async function pgVersion(client: PoolClient): Promise<{ version: number; foreign: boolean }> {
  // A plain query on pg_tables, not to_regclass: right after waiting for the advisory lock,
  // to_regclass may still use the catalog snapshot from before the other machine's commit.
  const table = await client.query(
    "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'geobatch_cache_meta'",
  );
  if (table.rowCount === 0) return { version: 0, foreign: false };
  const rows = await client.query<{ key: string; value: string }>(
    'SELECT key, value FROM geobatch_cache_meta',
  );
  const meta = new Map(rows.rows.map((r) => [r.key, r.value]));
  return { version: Number(meta.get('schema') ?? 0), foreign: meta.get('application') !== APPLICATION };
}

export async function pgMigrate(client: PoolClient, target = PG_SCHEMA_VERSION): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    const { version } = await pgVersion(client);
    for (let step = version; step < target; step++) await client.query(PG_MIGRATIONS[step] as string);
    if (version < target) {
      await client.query("UPDATE geobatch_cache_meta SET value = $1 WHERE key = 'schema'", [String(target)]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}

/**
 * The shared rate's table and its three statements. Every time is PostgreSQL's clock in epoch ms
 * (`clock_timestamp()`, not `now()`, which stands still for a transaction), so that machines whose
 * clocks differ still share one schedule.
 *
 * A row is one scope of one run: `global` or an interface name. Its schedule is GCRA (virtual
 * scheduling): `tat` is the theoretical arrival time of the next request; reserving k slots moves
 * it k intervals on, and the caller computes the slot times from what the UPDATE returns. So one
 * statement reserves a whole batch, and nobody polls.
 */
import type pg from 'pg';
import { refusedSetup } from './_db-errors.js';

/** Quotes an identifier for SQL text: a schema name from the caller is never trusted. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** An arbitrary constant naming the rate table's DDL among the database's advisory locks. */
const LOCK_ID = 4_711_015;

const NOW = '(extract(epoch FROM clock_timestamp()) * 1000)::float8';

/**
 * The rate at `c.now`, grown additively since the last statement that touched the row, up to the
 * configured ceiling (none when unlimited). NULL while the scope has never been cut and has no rate.
 */
const GROWN = `CASE WHEN r.rate IS NULL THEN NULL
  ELSE LEAST(COALESCE(r.ceiling, 'Infinity'::float8), r.rate + r.increase * GREATEST(0, c.now - r.updated_at) / 1000) END`;

/**
 * Requests per second granted recently, for the first cut of an unlimited scope: the last whole
 * window if it ended less than a second ago, or the current one (over at least a second). Counts
 * are of reserved slots, which run ahead of the sends by up to a tenth of a second per process:
 * never more than the global rate, which an interface cannot have exceeded.
 */
function measured(table: string): string {
  return `LEAST(
    GREATEST(
      CASE WHEN c.now - r.win_start < 1000 THEN r.last_rate ELSE 0 END,
      r.win_count * 1000 / GREATEST(c.now - r.win_start, 1000)),
    COALESCE((SELECT g.rate FROM ${table} g WHERE g.run = $1 AND g.scope = 'global'), 'Infinity'::float8))`;
}

/** Whether `<schema>.<name>` is there (pg_tables, not to_regclass, for the reason pgVersion gives). */
async function tableExists(client: pg.ClientBase, schema: string, name: string): Promise<boolean> {
  const found = await client.query(
    'SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = $2',
    [schema, name],
  );
  return (found.rowCount ?? 0) > 0;
}

/**
 * Creates `<schema>.rates` when missing. A table there is only looked up: `CREATE ... IF NOT
 * EXISTS` needs CREATE on the database and the schema even when both are there, which a role with
 * data rights alone does not have. Under a session advisory lock, because two processes running
 * `CREATE ... IF NOT EXISTS` at once can both pass the check and one then fails on the catalog's
 * unique index. Call it outside a transaction (or in one that commits soon): the lock is released
 * when this returns. DDL that PostgreSQL refuses the role is thrown as SetupRefused.
 */
export async function ensureRateTable(client: pg.ClientBase, schema: string): Promise<void> {
  if (await tableExists(client, schema, 'rates')) return;
  const table = `${ident(schema)}.rates`;
  await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_ID, schema]);
  try {
    const made = await client.query('SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1', [schema]);
    if ((made.rowCount ?? 0) === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (
      run text NOT NULL,
      scope text NOT NULL,
      ceiling float8,
      rate float8,
      increase float8 NOT NULL,
      tat float8 NOT NULL,
      updated_at float8 NOT NULL,
      cut_at float8 NOT NULL,
      win_start float8 NOT NULL,
      win_count float8 NOT NULL,
      last_rate float8 NOT NULL,
      created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
      PRIMARY KEY (run, scope)
    )`);
  } catch (error) {
    throw await refusedSetup(client, false, error);
  } finally {
    await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_ID, schema]);
  }
}

export interface RateStatements {
  /**
   * $1 run, $2 scopes text[], $3 ceilings float8[], $4 increase share: rows missing are made with
   * these rates; rows there (the coordinator's, see `set`) are kept as they are.
   */
  readonly join: string;
  /**
   * The same parameters: the run's rates become these, in rows made or there already (a resumed
   * run's), each at its configured rate again, a cut forgotten.
   */
  readonly set: string;
  /**
   * $1 run, $2 scopes text[], $3 slots, $4 grants: reserves $3 slots in each scope and counts $4
   * grants (the slots plus those an unlimited scope let pass unreserved).
   */
  readonly take: string;
  /** $1 run, $2 scope, $3 sentAt (server ms), $4 decrease, $5 min rate, $6 increase share. */
  readonly cut: string;
  /** $1 run. */
  readonly drop: string;
}

/** What `take` returns per scope; `base` is where its k slots start (before the burst tolerance). */
export interface TakeRow {
  scope: string;
  rate: number | null;
  base: number;
  now: number;
  cut_at: number;
}

export function rateStatements(schema: string): RateStatements {
  const table = `${ident(schema)}.rates`;
  return {
    join: `WITH c AS (SELECT ${NOW} AS now)
      INSERT INTO ${table} AS r
        (run, scope, ceiling, rate, increase, tat, updated_at, cut_at, win_start, win_count, last_rate)
      SELECT $1, s.scope, s.ceiling, s.ceiling, COALESCE(s.ceiling * $4, 0), c.now, c.now, 0, c.now, 0, 0
      FROM c, unnest($2::text[], $3::float8[]) AS s(scope, ceiling)
      ON CONFLICT (run, scope) DO NOTHING`,
    // The schedule (`tat`) stays: slots reserved at the earlier rate are being sent, and the new
    // rate's follow them. A 429 for a request sent before this (`cut_at`) says nothing of the new rate.
    set: `WITH c AS (SELECT ${NOW} AS now)
      INSERT INTO ${table} AS r
        (run, scope, ceiling, rate, increase, tat, updated_at, cut_at, win_start, win_count, last_rate)
      SELECT $1, s.scope, s.ceiling, s.ceiling, COALESCE(s.ceiling * $4, 0), c.now, c.now, c.now, c.now, 0, 0
      FROM c, unnest($2::text[], $3::float8[]) AS s(scope, ceiling)
      ON CONFLICT (run, scope) DO UPDATE SET
        ceiling = excluded.ceiling,
        rate = excluded.rate,
        increase = excluded.increase,
        updated_at = excluded.updated_at,
        cut_at = excluded.cut_at`,
    // Rows are locked in scope order first (a refresh reads them all, and an UPDATE alone locks
    // in whatever order its plan visits them), and every value is read from `l`, the locked
    // (newest) rows, never from the statement's older snapshot.
    take: `WITH l AS (
        SELECT * FROM ${table} WHERE run = $1 AND scope = ANY($2::text[]) ORDER BY scope FOR UPDATE
      ),
      -- Read after every row is locked: a clock read before waiting for another worker's UPDATE
      -- would date the reservation too early.
      c AS (SELECT ${NOW} AS now FROM (SELECT count(*) FROM l) AS locked),
      g AS (SELECT r.*, c.now, ${GROWN} AS grown, GREATEST(r.tat, c.now) AS base FROM l r, c)
      UPDATE ${table} r SET
        rate = g.grown,
        tat = CASE WHEN g.grown IS NULL OR $3 = 0 THEN g.tat ELSE g.base + $3 * 1000 / g.grown END,
        updated_at = g.now,
        win_start = CASE WHEN g.now - g.win_start >= 1000 THEN g.now ELSE g.win_start END,
        win_count = CASE WHEN g.now - g.win_start >= 1000 THEN $4 ELSE g.win_count + $4 END,
        last_rate = CASE WHEN g.now - g.win_start >= 1000
          THEN g.win_count * 1000 / (g.now - g.win_start) ELSE g.last_rate END
      FROM g WHERE r.run = $1 AND r.scope = g.scope
      RETURNING r.scope, r.rate, g.base, g.now, r.cut_at`,
    // The rate before the cut is the grown one, or for an unlimited scope what it was measured to
    // grant; an unlimited scope grows back by a share of that (at least the floor per second), with
    // no ceiling.
    cut: `WITH c AS (SELECT ${NOW} AS now)
      UPDATE ${table} r SET
        rate = GREATEST($5::float8, LEAST(COALESCE(r.ceiling, 'Infinity'::float8),
          COALESCE(${GROWN}, ${measured(table)}) * $4)),
        increase = CASE WHEN r.ceiling IS NULL
          THEN GREATEST(r.increase, COALESCE(${GROWN}, ${measured(table)}) * $6, $5::float8) ELSE r.increase END,
        cut_at = c.now,
        updated_at = c.now
      FROM c WHERE r.run = $1 AND r.scope = $2 AND r.cut_at < $3
      RETURNING r.rate, r.cut_at`,
    drop: `DELETE FROM ${table} WHERE run = $1`,
  };
}

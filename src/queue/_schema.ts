/**
 * The queue database's tables, in a schema of their own (`geobatch_queue`), as migration steps;
 * pg-boss keeps its jobs in another (`geobatch_boss`). Coordinators and workers may start at once
 * on a new database: the steps run under a transaction-scoped advisory lock, so one creates the
 * tables and the others find them made. No credential is ever stored: the recipe holds the job
 * file's text (whose secrets are `${VAR}` references) and the command line's settings.
 */
import type { PoolClient } from 'pg';
import { refusedSetup } from './_db-errors.js';

export const SCHEMA = 'geobatch_queue';
/** An arbitrary constant naming item claims among the database's advisory locks (with the run's hash). */
const CLAIMS_LOCK = 4_711_016;
export const BOSS_SCHEMA = 'geobatch_boss';
const APPLICATION = 'geobatch-queue';

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE ${SCHEMA}.meta (key text PRIMARY KEY, value text NOT NULL);
   INSERT INTO ${SCHEMA}.meta (key, value) VALUES ('application', '${APPLICATION}'), ('schema', '0');
   CREATE TABLE ${SCHEMA}.runs (
     id text PRIMARY KEY,
     job text NOT NULL,
     kind text NOT NULL,
     recipe jsonb NOT NULL,
     state text NOT NULL,
     chunk_rows integer NOT NULL,
     chunks integer,
     rows bigint NOT NULL DEFAULT 0,
     coordinator text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     seen_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     ended_at timestamptz,
     error jsonb
   );
   CREATE TABLE ${SCHEMA}.files (
     run text NOT NULL REFERENCES ${SCHEMA}.runs (id) ON DELETE CASCADE,
     path text NOT NULL,
     content bytea NOT NULL,
     PRIMARY KEY (run, path)
   );
   CREATE TABLE ${SCHEMA}.chunks (
     run text NOT NULL REFERENCES ${SCHEMA}.runs (id) ON DELETE CASCADE,
     seq integer NOT NULL,
     first_row bigint NOT NULL,
     rows integer NOT NULL,
     items text NOT NULL,
     context jsonb,
     state text NOT NULL DEFAULT 'queued',
     job_id text,
     attempts integer NOT NULL DEFAULT 0,
     worker text,
     started_at timestamptz,
     ended_at timestamptz,
     outcomes text,
     counters jsonb,
     error jsonb,
     PRIMARY KEY (run, seq)
   );
   CREATE TABLE ${SCHEMA}.workers (
     run text NOT NULL REFERENCES ${SCHEMA}.runs (id) ON DELETE CASCADE,
     worker text NOT NULL,
     metrics jsonb NOT NULL,
     seen_at timestamptz NOT NULL DEFAULT clock_timestamp(),
     PRIMARY KEY (run, worker)
   );`,
  // What workers' clients and caches spent on each chunk, one entry per attempt that ended (done
  // or handed back): a run's requests are the sum over its chunks, whatever sessions it took.
  `ALTER TABLE ${SCHEMA}.chunks ADD COLUMN spent jsonb NOT NULL DEFAULT '[]'::jsonb;`,
  // Items a worker is buying and has not answered yet (_item-claims.ts). Unlogged: a claim lives
  // for seconds, and one lost in a crash of PostgreSQL costs at most a request bought twice. No
  // foreign key: checking one locks the run's row for every item claimed, from every worker at
  // once; a run's claims are deleted with it (dropClaims). claim_items makes a lookup's claims in
  // one round trip: under the run's lock (taken first, so that the insert sees every claim made
  // before), the keys not held by another owner, or held past their time, become the owner's.
  `CREATE UNLOGGED TABLE ${SCHEMA}.item_claims (
     run text NOT NULL,
     key text NOT NULL, -- the item's key, hashed
     owner text NOT NULL,
     until timestamptz NOT NULL,
     PRIMARY KEY (run, key)
   );
   CREATE FUNCTION ${SCHEMA}.claim_items(p_run text, p_keys text[], p_owner text, p_seconds double precision)
   RETURNS SETOF text LANGUAGE plpgsql AS $$
   BEGIN
     PERFORM pg_advisory_xact_lock(${CLAIMS_LOCK}, hashtext(p_run));
     RETURN QUERY
       INSERT INTO ${SCHEMA}.item_claims AS c (run, key, owner, until)
       SELECT p_run, k, p_owner, clock_timestamp() + make_interval(secs => p_seconds) FROM unnest(p_keys) AS k
       ON CONFLICT (run, key) DO UPDATE SET owner = excluded.owner, until = excluded.until
         WHERE c.until <= clock_timestamp() OR c.owner = excluded.owner
       RETURNING c.key;
   END $$;`,
  // What a run writes (runs.ts, targetOf): a run started afresh for the same files replaces the
  // one that wrote them before, which nothing could ever finish (_claim.ts). Whether a done
  // chunk's counts, and how many of its spent entries, are in a stopped session's totals already
  // (chunks.ts, settleChunks): the session that writes its rows counts them no second time, while
  // `status` still adds up every entry.
  `ALTER TABLE ${SCHEMA}.runs ADD COLUMN target text;
   CREATE INDEX runs_target ON ${SCHEMA}.runs (target);
   ALTER TABLE ${SCHEMA}.chunks ADD COLUMN counted boolean NOT NULL DEFAULT false;
   ALTER TABLE ${SCHEMA}.chunks ADD COLUMN spent_counted integer NOT NULL DEFAULT 0;`,
  // What a run writes, one value per file (runs.ts, targetsOf): a run that writes any file an
  // earlier run wrote replaces it, not only one writing the very same list. A run of the step
  // before (one value for its whole list) is matched by none and stays to be resumed or pruned.
  `ALTER TABLE ${SCHEMA}.runs ADD COLUMN targets text[];
   CREATE INDEX runs_targets ON ${SCHEMA}.runs USING gin (targets);
   DROP INDEX ${SCHEMA}.runs_target;
   ALTER TABLE ${SCHEMA}.runs DROP COLUMN target;`,
  // When the run's last session began (created, or taken back by --resume): `status` gives a
  // resumed run its pace over this session, not over the idle time since the last one.
  `ALTER TABLE ${SCHEMA}.runs ADD COLUMN session_at timestamptz NOT NULL DEFAULT clock_timestamp();
   UPDATE ${SCHEMA}.runs SET session_at = created_at;`,
];

export const QUEUE_SCHEMA_VERSION = MIGRATIONS.length;

/** An arbitrary constant naming the queue schema's lock among the database's advisory locks. */
const LOCK_ID = 4_711_015;

/** The version in the database: 0 when the schema is not there; `foreign` when it is not ours. */
async function version(client: PoolClient): Promise<{ version: number; foreign: boolean }> {
  const table = await client.query(
    "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'meta'",
    [SCHEMA],
  );
  if (table.rowCount === 0) return { version: 0, foreign: false };
  const rows = await client.query<{ key: string; value: string }>(`SELECT key, value FROM ${SCHEMA}.meta`);
  const meta = new Map(rows.rows.map((r) => [r.key, r.value]));
  return { version: Number(meta.get('schema') ?? 0), foreign: meta.get('application') !== APPLICATION };
}

export type MigrateResult = 'ok' | 'foreign' | 'newer';

/** Whether the schema is there: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when it is. */
async function schemaExists(client: PoolClient, schema: string): Promise<boolean> {
  const found = await client.query('SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1', [schema]);
  return (found.rowCount ?? 0) > 0;
}

function verdict(found: { version: number; foreign: boolean }): MigrateResult | undefined {
  if (found.foreign) return 'foreign';
  if (found.version > QUEUE_SCHEMA_VERSION) return 'newer';
  return found.version === QUEUE_SCHEMA_VERSION ? 'ok' : undefined;
}

/**
 * Creates or migrates the schema; says so when it is another program's or a newer geobatch's.
 * Tables at the current version are only read, without a lock: a role with data rights alone
 * uses a queue an owner set up. DDL that PostgreSQL refuses the role is thrown as SetupRefused.
 */
export async function migrate(client: PoolClient): Promise<MigrateResult> {
  const seen = verdict(await version(client));
  if (seen !== undefined) return seen;
  await client.query('BEGIN');
  let upgrade = false;
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    if (!(await schemaExists(client, SCHEMA))) await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    const found = await version(client);
    const result = verdict(found);
    if (result !== undefined) {
      await client.query('ROLLBACK');
      return result;
    }
    upgrade = found.version > 0;
    for (let step = found.version; step < QUEUE_SCHEMA_VERSION; step++)
      await client.query(MIGRATIONS[step] as string);
    await client.query(`UPDATE ${SCHEMA}.meta SET value = $1 WHERE key = 'schema'`, [
      String(QUEUE_SCHEMA_VERSION),
    ]);
    await client.query('COMMIT');
    return 'ok';
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw await refusedSetup(client, upgrade, error);
  }
}

/**
 * The shared store: the same keys, values and lifetimes as the SQLite file, in PostgreSQL, so
 * that several machines share one cache. Lookups are one `= ANY($1)` query per batch; writes one
 * `INSERT ... SELECT FROM unnest(...)` per batch, sorted so that two machines writing the same
 * keys lock them in the same order and never deadlock.
 */
import pg from 'pg';
import { registerSecret, scrub } from '../secrets.js';
import { unusable } from './_errors.js';
import { isPasswordProblem, passwordNotGiven } from './_pg-password.js';
import { isRefused, type Refused, refusedCache } from './_pg-refused.js';
import { PG_SCHEMA_VERSION, pgMigrate, pgVersion } from './_pg-schema.js';
import { closeFailed, closePool, PgSockets, unanswered } from './_pg-unanswered.js';
import { maskPassword, safeUrl } from './_pg-url.js';
import { quietPgpass } from './_pgpass.js';
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

export interface PostgresOptions {
  /** Never write (and never create the tables). @default false */
  readonly readOnly?: boolean;
  /** Connections held at once. @default 4 */
  readonly connections?: number;
  /**
   * How long a query may go unanswered before it fails: a run's lookups and writes are small, so a
   * longer silence is a frozen database; `cache stats|prune|clear` scan the whole table.
   * @default 30000
   */
  readonly queryTimeoutMs?: number;
  /**
   * The URL is a distributed run's, as a worker has it from the queue database (without a
   * password): a password refused or missing is said as that. @default false
   */
  readonly fromQueue?: boolean;
}

interface Row {
  item: string;
  value: string;
  not_found: boolean;
  created_at: string;
}

/**
 * Connects and brings the tables to the current schema. Resolves to undefined for a read-only
 * cache whose tables do not exist yet; throws CACHE_UNUSABLE when the database cannot be reached
 * or holds tables of a newer geobatch.
 */
export async function openPostgresStore(url: string, options: PostgresOptions = {}) {
  const password = safeUrl(url)?.password;
  if (password) registerSecret(decodeURIComponent(password));
  const location = maskPassword(url);
  // A frozen cache database fails the query (CACHE_UNUSABLE) rather than hold the run for ever,
  // and closing ends the connections still waiting on it.
  const sockets = new PgSockets();
  quietPgpass();
  const pool = new pg.Pool({
    connectionString: url,
    max: options.connections ?? 4,
    ...unanswered(options.queryTimeoutMs, sockets),
  });
  // An idle connection the server drops must not crash the run; the next query reconnects.
  pool.on('error', () => {});
  let version: number;
  try {
    const client = await pool.connect();
    let refused: Refused = 'read';
    try {
      const found = await pgVersion(client);
      version = found.version;
      if (found.foreign) {
        throw unusable(location, 'its geobatch_cache_meta table belongs to another program', {
          problem: 'foreign',
        });
      }
      if (version > PG_SCHEMA_VERSION) {
        throw unusable(
          location,
          `it was made by a newer geobatch (schema ${version}, this one reads ${PG_SCHEMA_VERSION})`,
          { problem: 'newer' },
        );
      }
      if (options.readOnly !== true && version < PG_SCHEMA_VERSION) {
        refused = version === 0 ? 'create' : 'upgrade';
        await pgMigrate(client);
      }
    } catch (error) {
      throw isRefused(error) ? await refusedCache(client, location, refused, error) : error;
    } finally {
      client.release();
    }
  } catch (error) {
    await closeFailed(pool, sockets);
    if ((error as { code?: string }).code === 'CACHE_UNUSABLE') throw error;
    if (options.fromQueue === true && !password && isPasswordProblem(error))
      throw passwordNotGiven(location, error);
    throw unusable(location, `PostgreSQL: ${scrub((error as Error).message)}`, {
      problem: 'failed',
      cause: error,
    });
  }
  if (options.readOnly === true && version === 0) {
    await pool.end();
    return undefined;
  }
  return new PostgresStore(pool, location, options.readOnly === true, sockets);
}

export class PostgresStore implements CacheStore {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #readOnly: boolean;
  readonly #sockets: PgSockets;
  readonly #scopes = new Map<string, number>();

  constructor(
    pool: pg.Pool,
    readonly location: string,
    readOnly: boolean,
    sockets: PgSockets = new PgSockets(),
  ) {
    this.#pool = pool;
    this.#readOnly = readOnly;
    this.#sockets = sockets;
  }

  async getMany(scope: Scope, items: readonly string[]): Promise<Map<string, StoredEntry>> {
    const out = new Map<string, StoredEntry>();
    const id = await this.#scopeId(scope, false);
    if (id === undefined || items.length === 0) return out;
    const result = await this.#pool.query<Row>(
      'SELECT item, value, not_found, created_at FROM geobatch_cache_entries WHERE scope = $1 AND item = ANY($2::text[])',
      [id, items],
    );
    for (const row of result.rows) out.set(row.item, entryOf(row));
    return out;
  }

  async getAll(scope: Scope): Promise<Map<string, StoredEntry>> {
    const out = new Map<string, StoredEntry>();
    const id = await this.#scopeId(scope, false);
    if (id === undefined) return out;
    const result = await this.#pool.query<Row>(
      'SELECT item, value, not_found, created_at FROM geobatch_cache_entries WHERE scope = $1',
      [id],
    );
    for (const row of result.rows) out.set(row.item, entryOf(row));
    return out;
  }

  async putMany(entries: readonly NewEntry[]): Promise<void> {
    if (this.#readOnly || entries.length === 0) return;
    // One row per key (ON CONFLICT may not touch a row twice in one statement), the last written wins.
    const rows = new Map<string, [number, NewEntry]>();
    for (const entry of entries) {
      const id = await this.#scopeId(entry.scope, true);
      rows.set(`${id}\u0000${entry.item}`, [id as number, entry]);
    }
    const sorted = [...rows.values()].sort(
      ([a, x], [b, y]) => a - b || (x.item < y.item ? -1 : x.item > y.item ? 1 : 0),
    );
    await this.#pool.query(
      `INSERT INTO geobatch_cache_entries (scope, item, value, not_found, created_at)
       SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::bool[], $5::bigint[])
       ON CONFLICT (scope, item) DO UPDATE SET
         value = excluded.value, not_found = excluded.not_found, created_at = excluded.created_at`,
      [
        sorted.map(([id]) => id),
        sorted.map(([, e]) => e.item),
        sorted.map(([, e]) => e.value),
        sorted.map(([, e]) => e.notFound),
        sorted.map(([, e]) => e.createdAt),
      ],
    );
  }

  async stats(recentRuns = 10): Promise<CacheStats> {
    const interfaces = await this.#pool.query(
      `SELECT s.interface AS interface, COUNT(*)::float8 AS entries,
              SUM(CASE WHEN e.not_found THEN 1 ELSE 0 END)::float8 AS "notFound",
              SUM(octet_length(e.item) + octet_length(e.value))::float8 AS bytes,
              MIN(e.created_at)::float8 AS oldest, MAX(e.created_at)::float8 AS newest
       FROM geobatch_cache_entries e JOIN geobatch_cache_scopes s ON s.id = e.scope
       GROUP BY s.interface ORDER BY s.interface`,
    );
    const runs = await this.#pool.query(
      `SELECT started_at::float8 AS "startedAt", ended_at::float8 AS "endedAt", job, hits::float8 AS hits,
              misses::float8 AS misses, writes::float8 AS writes, requests_saved::float8 AS "requestsSaved"
       FROM geobatch_cache_runs ORDER BY id DESC LIMIT $1`,
      [recentRuns],
    );
    const size = await this.#pool.query(
      "SELECT pg_total_relation_size('geobatch_cache_entries')::float8 AS bytes",
    );
    return {
      kind: this.kind,
      location: this.location,
      schemaVersion: PG_SCHEMA_VERSION,
      sizeBytes: (size.rows[0] as { bytes: number } | undefined)?.bytes ?? null,
      interfaces: interfaces.rows as CacheStats['interfaces'][number][],
      runs: runs.rows as RunRecord[],
    };
  }

  async prune(rule: PruneRule): Promise<number> {
    let deleted = 0;
    if (rule.before !== undefined) {
      deleted +=
        (await this.#pool.query('DELETE FROM geobatch_cache_entries WHERE created_at < $1', [rule.before]))
          .rowCount ?? 0;
    }
    const lifetimes = rule.lifetimes;
    if (lifetimes === undefined) return deleted;
    const now = Date.now();
    for (const iface of CACHE_INTERFACES) {
      const result = await this.#pool.query(
        `DELETE FROM geobatch_cache_entries
         WHERE scope IN (SELECT id FROM geobatch_cache_scopes WHERE interface = $1)
         AND created_at < CASE WHEN not_found THEN $2::bigint ELSE $3::bigint END`,
        [iface, now - lifetimeOf(true, iface, lifetimes), now - lifetimeOf(false, iface, lifetimes)],
      );
      deleted += result.rowCount ?? 0;
    }
    return deleted;
  }

  async clear(only?: CacheInterface): Promise<number> {
    const result =
      only === undefined
        ? await this.#pool.query('DELETE FROM geobatch_cache_entries')
        : await this.#pool.query(
            'DELETE FROM geobatch_cache_entries WHERE scope IN (SELECT id FROM geobatch_cache_scopes WHERE interface = $1)',
            [only],
          );
    return result.rowCount ?? 0;
  }

  async recordRun(run: RunRecord): Promise<void> {
    if (this.#readOnly) return;
    await this.#pool.query(
      `INSERT INTO geobatch_cache_runs (started_at, ended_at, job, hits, misses, writes, requests_saved)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [run.startedAt, run.endedAt, run.job, run.hits, run.misses, run.writes, run.requestsSaved],
    );
    await this.#pool.query(
      'DELETE FROM geobatch_cache_runs WHERE id <= (SELECT MAX(id) FROM geobatch_cache_runs) - $1',
      [RUNS_KEPT],
    );
  }

  async close(): Promise<void> {
    await closePool(this.#pool, this.#sockets);
  }

  async #scopeId(scope: Scope, create: boolean): Promise<number | undefined> {
    const known = this.#scopes.get(scope.description);
    if (known !== undefined) return known;
    if (create) {
      await this.#pool.query(
        'INSERT INTO geobatch_cache_scopes (interface, description) VALUES ($1, $2) ON CONFLICT (description) DO NOTHING',
        [scope.interface, scope.description],
      );
    }
    const result = await this.#pool.query<{ id: number }>(
      'SELECT id FROM geobatch_cache_scopes WHERE description = $1',
      [scope.description],
    );
    const id = result.rows[0]?.id;
    if (id !== undefined) this.#scopes.set(scope.description, id);
    return id;
  }
}

function entryOf(row: Row): StoredEntry {
  return { value: row.value, notFound: row.not_found, createdAt: Number(row.created_at) };
}

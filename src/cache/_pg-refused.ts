/**
 * The PostgreSQL cache's tables refused to its role (SQLSTATE 42501 insufficient_privilege), as
 * CACHE_UNUSABLE naming the role, the schema and the right it lacks. Tables at the current version
 * take no DDL, so making them (a first run) or upgrading them (a newer geobatch) needs more than
 * the data rights every later run needs.
 */
import type { IoError } from '../errors.js';
import { scrub } from '../secrets.js';
import { unusable } from './_errors.js';

export function isRefused(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '42501';
}

/** What was refused: reading the tables, or making or upgrading them. */
export type Refused = 'read' | 'create' | 'upgrade';

/** An identifier as a GRANT takes it: quoted unless PostgreSQL would read it unquoted as it is. */
function sqlName(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

const DATA_RIGHTS =
  'SELECT, INSERT, UPDATE, DELETE on the geobatch_cache_* tables and USAGE on their sequences';
const ELSEWHERE =
  '--cache-mode read-only uses a cache without writing it (SELECT alone); --no-cache runs without';

export async function refusedCache(
  client: { query(sql: string): Promise<{ rows: { role: string; schema: string | null }[] }> },
  location: string,
  refused: Refused,
  cause: unknown,
): Promise<IoError> {
  const who = await client
    .query('SELECT current_user AS role, current_schema() AS schema')
    .then((r) => r.rows[0])
    .catch(() => undefined);
  const role = who?.role ?? 'the user in the URL';
  const schema = who?.schema ?? 'public';
  const said = scrub(String((cause as { message?: unknown } | null)?.message ?? 'permission denied'));
  const reason =
    refused === 'read'
      ? `the user ${role} may not read its tables (${said})`
      : `the user ${role} may not ${refused} its tables in the schema ${schema} (${said})`;
  const hint =
    refused === 'read'
      ? `grant ${sqlName(role)} ${DATA_RIGHTS} in the schema ${sqlName(schema)}, as the README's "The database role" shows; ${ELSEWHERE}`
      : refused === 'create'
        ? `run geobatch once with this cache as the schema's owner, which makes the tables, or GRANT CREATE ON SCHEMA ${sqlName(schema)} TO ${sqlName(role)}; later runs need only ${DATA_RIGHTS}; ${ELSEWHERE}`
        : `the tables are of an older geobatch, and only their owner (the role that made them) may upgrade them: run geobatch once with this cache as that role; ${ELSEWHERE}`;
  return unusable(location, reason, {
    problem: refused === 'read' ? 'unreadable' : 'not-writable',
    hint,
    detail: { sqlstate: '42501', role, schema },
    cause,
  });
}

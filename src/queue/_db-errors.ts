/**
 * The queue database's failures as geobatch reports them: QUEUE_UNUSABLE, naming the database with
 * its password masked, with a hint that says what to check, by what PostgreSQL answered, and what
 * to run once it is fixed, by the command (`--resume` is advice for a coordinator whose run
 * exists, not for `status`, `prune` or a first connection).
 */

import { isDatabaseGone } from '../cache/_pg-gone.js';
import { IoError, isGeobatchError } from '../errors.js';
import { scrub } from '../secrets.js';

export { isDatabaseGone };

/** What the user should run once the database is back, by the process that met the failure. */
export const ONCE_FIXED = {
  coordinator: 'then run the coordinator again with --resume: the chunks done are kept',
  worker: 'then start the worker again',
} as const;

/** SQLSTATE insufficient_privilege: PostgreSQL refused the role a right. */
const REFUSED = '42501';

export function isRefused(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === REFUSED;
}

/**
 * DDL the queue needed (its schemas or tables missing, or made by an older geobatch) that
 * PostgreSQL refused the role: the role, the database, and whether the tables were being made or
 * upgraded. Tables at the current version need none, so this is a first run's or an upgrade's.
 */
export class SetupRefused extends Error {
  override readonly name = 'SetupRefused';
  readonly code = REFUSED;
  constructor(
    readonly role: string,
    readonly database: string,
    readonly upgrade: boolean,
    override readonly cause: unknown,
  ) {
    super((cause as { message?: unknown } | null)?.message?.toString() ?? 'permission denied');
  }
}

/**
 * `cause` as SetupRefused when PostgreSQL refused the DDL (42501), naming the connection's role
 * and database; any other error as it is.
 */
export async function refusedSetup(
  client: { query(sql: string): Promise<{ rows: { role: string; database: string }[] }> },
  upgrade: boolean,
  cause: unknown,
): Promise<unknown> {
  if (!isRefused(cause)) return cause;
  const who = await client
    .query('SELECT current_user AS role, current_database() AS database')
    .then((r) => r.rows[0])
    .catch(() => undefined);
  return new SetupRefused(
    who?.role ?? 'the user in the URL',
    who?.database ?? 'the database',
    upgrade,
    cause,
  );
}

/** An identifier as a GRANT takes it: quoted unless PostgreSQL would read it unquoted as it is. */
function sqlName(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** What the role lacks and what to do, for DDL it was refused. */
function setupHint(refused: SetupRefused): string {
  if (refused.upgrade)
    return `the queue's tables are of an older geobatch, and only their owner (the role that made them) may upgrade them: run this command once as that role; other roles need no new rights`;
  return `making the queue's schemas (geobatch_queue, geobatch_boss) needs CREATE on the database: run this command once as the database's owner, or GRANT CREATE ON DATABASE ${sqlName(refused.database)} TO ${sqlName(refused.role)}; later runs need only the data rights the README's "The database role" lists`;
}

/**
 * pg's words for a database that answered nothing in time (a query, a new connection), and what
 * they mean: it refused nothing, so the URL and the password are not in question.
 */
const UNANSWERED: readonly [RegExp, string][] = [
  // The shared rate's own deadline (rate.ts) says it so.
  [/^Query read timeout|^no answer within \d+ ms/, 'it did not answer a query in time'],
  [
    /timeout exceeded when trying to connect|^Connection terminated due to connection timeout/,
    'it did not answer a new connection in time',
  ],
];

function unanswered(cause: unknown): string | undefined {
  const message = (cause as { message?: unknown } | null)?.message;
  if (typeof message !== 'string') return undefined;
  return UNANSWERED.find(([pattern]) => pattern.test(message))?.[1];
}

/**
 * The database did not answer in time: unlike a refusal, which comes at once, every query after
 * it waits as long again, so the processes that share the connection stop (QueueDatabase.lose)
 * rather than wait on it once per write.
 */
export function isUnanswered(error: unknown): boolean {
  return unanswered(error) !== undefined;
}

/** What to check, by what PostgreSQL said. */
function checkHint(cause: unknown): string {
  if (cause instanceof SetupRefused) return setupHint(cause);
  if (unanswered(cause) !== undefined)
    return 'the database is not answering (its host frozen or overloaded, or a network that drops packets): wait until it answers again';
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('28'))
    return 'PostgreSQL refused the user or password: check the user in the URL and the password (PGPASSWORD or ~/.pgpass)';
  if (code === '3D000') return 'the database the URL names does not exist: create it, or name another';
  if (code === REFUSED)
    return `PostgreSQL refused the user in the URL a right: a role that did not make the queue's tables needs USAGE on the schemas geobatch_queue, geobatch_boss and public, SELECT, INSERT, UPDATE and DELETE on all their tables and USAGE on their sequences (the README's "The database role" has the GRANTs); making or upgrading the tables needs their owner`;
  return 'check the queue URL (--queue or GEOBATCH_QUEUE), the password (PGPASSWORD or ~/.pgpass) and that PostgreSQL is up and reachable from this machine';
}

/**
 * An error of the queue database as the command reports it; `onceFixed` says what to run once it
 * is fixed (nothing: run the same command again).
 */
export function queueError(shown: string, doing: string, cause: unknown, onceFixed?: string): IoError {
  if (isGeobatchError(cause) && cause.code === 'QUEUE_UNUSABLE') return cause as IoError;
  const e = cause as { message?: unknown; code?: unknown; errors?: { message?: unknown }[] } | null;
  // Node's connect errors to several addresses are an AggregateError with an empty message.
  const message = [e?.message, e?.errors?.[0]?.message, e?.code].find(
    (m): m is string => typeof m === 'string' && m !== '',
  );
  let reason = message === undefined ? 'unknown error' : scrub(message);
  const silent = unanswered(cause);
  if (silent !== undefined) reason = `${silent} (${reason})`;
  if (cause instanceof SetupRefused)
    reason = `the user ${cause.role} may not ${cause.upgrade ? 'upgrade' : 'create'} the queue's tables (${reason})`;
  return new IoError('QUEUE_UNUSABLE', `The queue database ${shown} failed while ${doing}: ${reason}`, {
    path: shown,
    ...(cause instanceof SetupRefused
      ? { detail: { sqlstate: REFUSED, role: cause.role, database: cause.database } }
      : {}),
    hint: onceFixed === undefined ? checkHint(cause) : `${checkHint(cause)}; ${onceFixed}`,
  });
}

/**
 * Runs `work`, turning any failure into QUEUE_UNUSABLE that says what was being done; one of a
 * database that does not answer is recorded as such (`lose`).
 */
export function guarded(db: {
  readonly shown: string;
  readonly onceFixed: string | undefined;
  lose?(error: IoError): void;
}) {
  return async <T>(doing: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      const failure = queueError(db.shown, doing, error, db.onceFixed);
      if (isUnanswered(error)) db.lose?.(failure);
      throw failure;
    }
  };
}

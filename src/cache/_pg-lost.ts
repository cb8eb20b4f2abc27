/**
 * What to do about a PostgreSQL cache that fails under a run (stopped, unreachable, refusing the
 * user or a right), by what PostgreSQL or pg said. Never `cache clear`: on a shared cache it
 * deletes every run's answers and cures no outage, and its URL, shown with the password as `***`,
 * could not be run as printed. The run goes on asking the service; the cache is not damaged.
 */

/** SQLSTATEs of a server going away or not there yet; class 08 (connection) by its prefix. */
const GONE_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03']);
const GONE_SOCKETS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** pg says a connection ended, or none came, or a query went unanswered, by message alone. */
const GONE_MESSAGES =
  /^Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|^Query read timeout/;

const AGAIN = 'the next run uses the cache again (with --resume for a stopped one): nothing to clear';

/** The advice that follows "reading (writing) failed ...; the run goes on ...". */
export function lostCacheAdvice(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown; errors?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  if (code === '42501')
    return `PostgreSQL refused the user a right on the cache's tables: grant it SELECT, INSERT, UPDATE and DELETE on the geobatch_cache_* tables and USAGE on their sequences (the README's "The database role"); then ${AGAIN}`;
  if (code.startsWith('28'))
    return `PostgreSQL refused the user or its password: check them (the URL's user; PGPASSWORD, ~/.pgpass or GEOBATCH_CACHE for the password); then ${AGAIN}`;
  const gone =
    code.startsWith('08') ||
    GONE_STATES.has(code) ||
    GONE_SOCKETS.has(code) ||
    GONE_MESSAGES.test(message) ||
    (Array.isArray(e?.errors) &&
      e.errors.some((x) => GONE_SOCKETS.has(String((x as { code?: unknown }).code))));
  if (gone)
    return `PostgreSQL went away or stopped answering: check that it is up and reachable from this machine; once it is, ${AGAIN}`;
  return `check the database (that it is up, and the user's rights on the geobatch_cache_* tables); once it answers, ${AGAIN}`;
}

/**
 * A PostgreSQL database that went away, as pg reports it: down, going down or unreachable (not a
 * bug, not a bad statement). One test for the queue database (a worker hands its chunk back as
 * QUEUE_UNUSABLE, as the coordinator stops with it) and for a PostgreSQL request cache (advised as
 * an outage, not as damage).
 */

/**
 * SQLSTATEs of a server that is going away or not there yet: admin shutdown, crash shutdown,
 * cannot connect now (starting up, shutting down). Class 08 (connection exceptions) is matched
 * by its prefix.
 */
const GONE_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03']);
/** Socket errors on the way to the server. */
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

/** The database is down, going down or unreachable, by the error pg gave (or its cause). */
export function isDatabaseGone(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const e = error as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (code.startsWith('08') || GONE_STATES.has(code) || GONE_SOCKETS.has(code)) return true;
  // pg reports a connection that ended (under a query, or before one) or a pool that could not
  // get one in time by message alone.
  if (
    typeof e.message === 'string' &&
    /^Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|^Query read timeout/.test(
      e.message,
    )
  )
    return true;
  // Node's connect to several addresses fails with an AggregateError of each attempt's error.
  if (Array.isArray(e.errors) && e.errors.some(isDatabaseGone)) return true;
  return e.cause !== undefined && e.cause !== error && isDatabaseGone(e.cause);
}

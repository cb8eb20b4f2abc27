/**
 * What to do about a PostgreSQL cache that fails under a run (stopped, unreachable, refusing the
 * user or a right), by what PostgreSQL or pg said. Never `cache clear`: on a shared cache it
 * deletes every run's answers and cures no outage, and its URL, shown with the password as `***`,
 * could not be run as printed. The run goes on asking the service; the cache is not damaged.
 */
import { isDatabaseGone } from './_pg-gone.js';

const AGAIN = 'the next run uses the cache again (with --resume for a stopped one): nothing to clear';

/** The advice that follows "reading (writing) failed ...; the run goes on ...". */
export function lostCacheAdvice(error: unknown): string {
  const e = error as { code?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === '42501')
    return `PostgreSQL refused the user a right on the cache's tables: grant it SELECT, INSERT, UPDATE and DELETE on the geobatch_cache_* tables and USAGE on their sequences (the README's "The database role"); then ${AGAIN}`;
  if (code.startsWith('28'))
    return `PostgreSQL refused the user or its password: check them (the URL's user; PGPASSWORD, ~/.pgpass or GEOBATCH_CACHE for the password); then ${AGAIN}`;
  if (isDatabaseGone(error))
    return `PostgreSQL went away or stopped answering: check that it is up and reachable from this machine; once it is, ${AGAIN}`;
  return `check the database (that it is up, and the user's rights on the geobatch_cache_* tables); once it answers, ${AGAIN}`;
}

/** The shared rate's one run-stopping error, and the database as its messages name it. */
import type pg from 'pg';
import { maskPassword, safeUrl } from '../cache/_pg-url.js';
import { IoError } from '../errors.js';
import { registerSecret, scrub } from '../secrets.js';

/** The one error of a gate whose database is gone; the location has no password. */
export function queueUnusable(location: string, error: unknown): IoError {
  if (error instanceof IoError && error.code === 'QUEUE_UNUSABLE') return error;
  // Node's connect errors to several addresses are an AggregateError with an empty message.
  const e = error as { message?: string; code?: string; errors?: { message?: string }[] } | null;
  const reason = scrub(e?.message || e?.errors?.[0]?.message || e?.code || String(error));
  return new IoError(
    'QUEUE_UNUSABLE',
    `The queue database ${location} cannot be used for the run's shared rate limit: ${reason}`,
    {
      file: location,
      hint: 'check that this PostgreSQL is up and reachable from this machine, then start the run again with --resume (and the workers again); done chunks are kept',
      cause: error,
    },
  );
}

/** The pool's database as `postgres://user:***@host:port/db`, its password registered as a secret. */
export function poolLocation(pool: pg.Pool): string {
  const o = pool.options;
  if (typeof o.connectionString === 'string') {
    const password = safeUrl(o.connectionString)?.password;
    if (password) registerSecret(decodeURIComponent(password));
    return maskPassword(o.connectionString);
  }
  if (typeof o.password === 'string' && o.password !== '') registerSecret(o.password);
  const user = o.user === undefined ? '' : `${o.user}${o.password ? ':***' : ''}@`;
  return `postgres://${user}${o.host ?? 'localhost'}:${o.port ?? 5432}/${o.database ?? ''}`;
}

/** The queue database's URL: from `--queue`, else GEOBATCH_QUEUE; refused unless postgres://. */
import { isPostgresUrl } from '../cache/_pg-url.js';
import { UsageError } from '../errors.js';

export const QUEUE_ENV = 'GEOBATCH_QUEUE';

export function queueUrl(flag: string | undefined, name = '--queue', env = process.env): string {
  const url = flag ?? env[QUEUE_ENV];
  if (url === undefined || url === '') {
    throw new UsageError(`${name}: the queue database is needed`, {
      field: name.replace(/^--/, ''),
      expected: 'a postgres:// URL',
      hint: `Give ${name} postgres://user@host/db, or export ${QUEUE_ENV}; put the password in PGPASSWORD or ~/.pgpass to keep it out of process listings.`,
    });
  }
  if (!isPostgresUrl(url)) {
    throw new UsageError(`${name}: expected a postgres:// URL`, {
      field: name.replace(/^--/, ''),
      expected: 'postgres://user@host:5432/database',
      hint: 'The queue lives in PostgreSQL: name its database by URL.',
    });
  }
  return url;
}

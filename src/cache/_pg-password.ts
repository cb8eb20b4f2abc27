/**
 * A distributed run's cache URL reaches its workers without a password: the queue database never
 * keeps one (queue/recipe.ts). A worker that has none of its own for it (PGPASSWORD, ~/.pgpass,
 * its GEOBATCH_CACHE), or one PostgreSQL refuses, is told so, and what to give it, rather than
 * pg's "empty password returned by client". What then (start the worker again, resume the run it
 * stopped) is the worker's and the coordinator's to say: the run has stopped on it, its chunks wait
 * for no worker.
 */
import type { IoError } from '../errors.js';
import { scrub } from '../secrets.js';
import { unusable } from './_errors.js';
import { safeUrl } from './_pg-url.js';

/** PostgreSQL or pg refused the connection for its password: none given, or the wrong one. */
export function isPasswordProblem(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  return e?.code === '28P01' || (typeof e?.message === 'string' && /password/i.test(e.message));
}

/** CACHE_UNUSABLE for a worker's cache URL from the queue database that the password was left out of. */
export function passwordNotGiven(location: string, cause: unknown): IoError {
  const said = scrub(String((cause as { message?: unknown } | null)?.message ?? 'no password'));
  const url = safeUrl(location);
  // The form to set, with a word to replace where the password goes: never `***`, which cannot be run.
  let withPassword = 'the URL with its password';
  if (url !== undefined && url.username !== '') {
    url.password = 'PASSWORD';
    withPassword = `${url.toString()} (PASSWORD replaced by the password)`;
  }
  return unusable(
    location,
    `PostgreSQL: ${said}. The run's cache URL came to this worker without a password, as passwords are never stored in the queue database, and this worker gave none PostgreSQL accepts`,
    {
      problem: 'failed',
      hint: `give this worker the password: PGPASSWORD or a ~/.pgpass line on its machine, or GEOBATCH_CACHE=${withPassword} in its environment`,
      detail: { password: 'not stored in the queue database' },
      cause,
    },
  );
}

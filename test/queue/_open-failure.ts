/** What opening the queue database at a URL fails with: the tests of refusals share it. */
import { expect } from 'vitest';
import { IoError } from '../../src/errors.js';
import { openQueueDatabase } from '../../src/queue/database.js';

/** The error opening `url` fails with; a test fails when it opens (the database then closed). */
export async function openFailure(url: string): Promise<IoError> {
  const error = await openQueueDatabase(url).then(
    async (db) => {
      await db.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IoError);
  return error as IoError;
}

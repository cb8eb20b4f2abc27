/** A chunk's life in a real PostgreSQL: what every attempt at it spent stays with it, once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineCounters } from '../../src/engine/counters.js';
import { chunkError, finishChunk, insertChunk, readChunk, takeChunk } from '../../src/queue/chunks.js';
import { openQueueDatabase, type QueueDatabase } from '../../src/queue/database.js';
import type { Recipe } from '../../src/queue/recipe.js';
import { createRun } from '../../src/queue/runs.js';
import { startPostgres, type TestPostgres } from '../cache/_postgres.js';

let server: TestPostgres;
let db: QueueDatabase;

beforeAll(async () => {
  server = await startPostgres();
  db = await openQueueDatabase(await server.database());
  const recipe = { file: '/j.yaml', text: '', overrides: {}, emulator: false, cache: { location: false } };
  await createRun(db.pool, {
    id: 'r',
    job: 'j',
    kind: 'geocode',
    recipe: recipe as Recipe,
    files: [],
    chunkRows: 2,
  });
});

afterAll(async () => {
  await db?.close();
  await server?.stop();
});

const counts = { counters: { requestsSent: 1 } as EngineCounters };

describe('a chunk handed back and done', () => {
  it('adds up what each attempt spent, and a late second finish changes nothing', async () => {
    await insertChunk(db.pool, 'r', 0, [{ kind: 'row', ref: { index: 0, line: 2 }, fields: {} }]);
    await takeChunk(db.pool, 'r', 0, 'w1');
    // A worker stopped by SIGTERM: its requests were sent and paid for.
    expect(await chunkError(db.pool, 'r', 0, { code: 'ABORTED' }, false, { requests: { total: 5 } })).toBe(
      true,
    );
    await takeChunk(db.pool, 'r', 0, 'w2');
    expect(await finishChunk(db.pool, 'r', 0, [], counts, { requests: { total: 7 } })).toBe(true);
    // A worker thought dead finishes too: refused, so that it hands its count to its next chunk.
    expect(await finishChunk(db.pool, 'r', 0, [], counts, { requests: { total: 7 } })).toBe(false);
    expect(await chunkError(db.pool, 'r', 0, { code: 'INTERNAL' }, false, { requests: { total: 1 } })).toBe(
      false,
    );
    const chunk = await readChunk(db.pool, 'r', 0);
    expect(chunk).toMatchObject({ state: 'done', spent: { requests: { total: 12 } } });
  });
});

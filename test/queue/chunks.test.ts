/** A chunk's life in a real PostgreSQL: what every attempt at it spent stays with it, once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineCounters } from '../../src/engine/counters.js';
import { chunkError, finishChunk, insertChunk, readChunk, takeChunk } from '../../src/queue/chunks.js';
import { openQueueDatabase, type QueueDatabase } from '../../src/queue/database.js';
import type { Recipe } from '../../src/queue/recipe.js';
import { createRun, deleteRun, findRun } from '../../src/queue/runs.js';
import { startPostgres, type TestPostgres } from '../cache/_postgres.js';

let server: TestPostgres;
let db: QueueDatabase;

const recipe = { file: '/j.yaml', text: '', overrides: {}, emulator: false, cache: { location: false } };

/** A run made afresh under `id`; its session, as a chunk's job carries it. */
async function freshRun(id: string): Promise<string> {
  await deleteRun(db.pool, id);
  await createRun(db.pool, {
    id,
    job: 'j',
    kind: 'geocode',
    recipe: recipe as Recipe,
    files: [],
    chunkRows: 2,
  });
  return (await findRun(db.pool, id))?.createdAt.toISOString() ?? '';
}

beforeAll(async () => {
  server = await startPostgres();
  db = await openQueueDatabase(await server.database());
});

afterAll(async () => {
  await db?.close();
  await server?.stop();
});

const counts = { counters: { requestsSent: 1 } as EngineCounters };

describe('a chunk handed back and done', () => {
  it('adds up what each attempt spent, and a late second finish changes nothing', async () => {
    const since = await freshRun('r');
    const ids = { run: 'r', seq: 0, since };
    await insertChunk(db.pool, 'r', 0, [{ kind: 'row', ref: { index: 0, line: 2 }, fields: {} }]);
    await takeChunk(db.pool, 'r', 0, 'w1', since);
    // A worker stopped by SIGTERM: its requests were sent and paid for.
    expect(await chunkError(db.pool, ids, { code: 'ABORTED' }, false, { requests: { total: 5 } })).toBe(true);
    await takeChunk(db.pool, 'r', 0, 'w2', since);
    expect(await finishChunk(db.pool, ids, [], counts, { requests: { total: 7 } })).toBe(true);
    // A worker thought dead finishes too: refused, so that it hands its count to its next chunk.
    expect(await finishChunk(db.pool, ids, [], counts, { requests: { total: 7 } })).toBe(false);
    expect(await chunkError(db.pool, ids, { code: 'INTERNAL' }, false, { requests: { total: 1 } })).toBe(
      false,
    );
    const chunk = await readChunk(db.pool, 'r', 0);
    expect(chunk).toMatchObject({ state: 'done', spent: { requests: { total: 12 } } });
  });

  it("keeps a late write of a dropped session's worker out of the run made afresh under its id", async () => {
    const old = await freshRun('again');
    const row = (index: number) => ({ kind: 'row' as const, ref: { index, line: index + 2 }, fields: {} });
    await insertChunk(db.pool, 'again', 0, [row(0), row(1)]);
    expect(await takeChunk(db.pool, 'again', 0, 'w1', old)).toBeDefined();
    // The coordinator crashed and ran again without --resume: the same id, chunks of other rows.
    const since = await freshRun('again');
    expect(since).not.toBe(old);
    await insertChunk(db.pool, 'again', 0, [row(0)]);
    expect(await finishChunk(db.pool, { run: 'again', seq: 0, since: old }, [], counts, {})).toBe(false);
    expect(await chunkError(db.pool, { run: 'again', seq: 0, since: old }, { code: 'ABORTED' }, false)).toBe(
      false,
    );
    expect(await takeChunk(db.pool, 'again', 0, 'w1', old)).toBeUndefined();
    expect(await readChunk(db.pool, 'again', 0)).toMatchObject({ state: 'queued', error: null });
    // The new session's worker writes as before.
    expect(await takeChunk(db.pool, 'again', 0, 'w2', since)).toBeDefined();
    expect(await finishChunk(db.pool, { run: 'again', seq: 0, since }, [], counts, {})).toBe(true);
  });
});

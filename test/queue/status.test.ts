/**
 * `geobatch status` and `geobatch queue prune` over a real PostgreSQL: the run's rows, pace and
 * ETA as the chunks in the database say, and prune on a queue that no worker has used.
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertChunk } from '../../src/queue/chunks.js';
import { openQueueDatabase, type QueueDatabase } from '../../src/queue/database.js';
import type { Recipe } from '../../src/queue/recipe.js';
import { createRun, endRun, inputRead, reopenRun } from '../../src/queue/runs.js';
import { pruneRuns, runStatuses } from '../../src/queue/status.js';
import type { ReadItem } from '../../src/types.js';
import { startPostgres, type TestPostgres } from '../cache/_postgres.js';

let server: TestPostgres;
const opened: QueueDatabase[] = [];

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(async () => {
  await Promise.allSettled(opened.map((db) => db.close()));
  await server?.stop();
});

async function queue(): Promise<QueueDatabase> {
  const db = await openQueueDatabase(await server.database());
  opened.push(db);
  return db;
}

const recipe = { file: '/j.yaml', text: '', overrides: {}, emulator: false, cache: { location: false } };

/** A run, begun `ago` seconds ago: before the chunks a test gives it were taken. */
async function run(db: QueueDatabase, id: string, ago = 0): Promise<void> {
  await createRun(db.pool, {
    id,
    job: 'j',
    kind: 'geocode',
    recipe: recipe as Recipe,
    files: [],
    chunkRows: 100,
  });
  await db.pool.query(
    `UPDATE geobatch_queue.runs SET created_at = created_at - $2 * interval '1 second',
       session_at = session_at - $2 * interval '1 second' WHERE id = $1`,
    [id, ago],
  );
}

function rows(first: number, n: number): ReadItem[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: 'row' as const,
    ref: { index: first + i, line: first + i + 2 },
    fields: {},
  }));
}

/** A chunk done by a worker that took it `takenAgo` seconds ago and ended it `endedAgo` ago. */
async function doneChunk(
  db: QueueDatabase,
  id: string,
  seq: number,
  items: ReadItem[],
  takenAgo: number,
  endedAgo: number,
  spent: unknown[] = [],
): Promise<void> {
  await insertChunk(db.pool, id, seq, items);
  await db.pool.query(
    `UPDATE geobatch_queue.chunks SET state = 'done',
       started_at = clock_timestamp() - $3 * interval '1 second',
       ended_at = clock_timestamp() - $4 * interval '1 second', spent = $5
     WHERE run = $1 AND seq = $2`,
    [id, seq, takenAgo, endedAgo, JSON.stringify(spent)],
  );
}

describe('status', () => {
  it('gives a run younger than a minute its pace over the time since its first chunk was taken', async () => {
    const db = await queue();
    await run(db, 'young', 600);
    // 4800 rows done in the 12 s since the first chunk was taken: 400 rows/s, not 4800 / 60.
    await doneChunk(db, 'young', 0, rows(0, 2400), 12, 6);
    await doneChunk(db, 'young', 1, rows(2400, 2400), 6, 0.5);
    await insertChunk(db.pool, 'young', 2, rows(4800, 2400));
    const [status] = await runStatuses(db.pool);
    expect(status?.rowsPerSecond).toBeGreaterThan(380);
    expect(status?.rowsPerSecond).toBeLessThanOrEqual(400);
    // 2400 stored rows left at 400 rows/s.
    expect(status?.etaSeconds).toBeGreaterThanOrEqual(6);
    expect(status?.etaSeconds).toBeLessThanOrEqual(7);
  });

  it('divides by at least 5 s: a run one second old shows no burst as its pace', async () => {
    const db = await queue();
    await run(db, 'new', 600);
    await doneChunk(db, 'new', 0, rows(0, 400), 1, 0.2);
    const [status] = await runStatuses(db.pool);
    expect(status?.rowsPerSecond).toBe(80);
  });

  it('keeps a long run at its last minute, and a chunk taken before the minute does not stretch it', async () => {
    const db = await queue();
    await run(db, 'long', 600);
    await doneChunk(db, 'long', 0, rows(0, 6000), 600, 120);
    await doneChunk(db, 'long', 1, rows(6000, 600), 90, 10);
    const [status] = await runStatuses(db.pool);
    expect(status?.rowsPerSecond).toBe(10);
  });

  it('gives a resumed run its pace over this session, not over the idle time since the last one', async () => {
    const db = await queue();
    await run(db, 'resumed', 60);
    // The first session did 2000 rows, taken 50 s ago and ended 40 s ago; then nothing for 31 s.
    await doneChunk(db, 'resumed', 0, rows(0, 2000), 50, 40);
    await reopenRun(db.pool, 'resumed', recipe as Recipe);
    await db.pool.query(
      "UPDATE geobatch_queue.runs SET session_at = clock_timestamp() - interval '9 seconds'",
    );
    // This session: 990 rows in its 9 s, taken 9 s ago (one chunk taken before the stop, too).
    await doneChunk(db, 'resumed', 1, rows(2000, 495), 9, 4);
    await doneChunk(db, 'resumed', 2, rows(2495, 495), 45, 0.5);
    await insertChunk(db.pool, 'resumed', 3, rows(2990, 1100));
    const [status] = await runStatuses(db.pool);
    expect(status?.rowsPerSecond).toBeCloseTo(110, 0);
    // 1100 rows left at that pace (the clock has moved on a little since).
    expect(status?.etaSeconds).toBeGreaterThanOrEqual(10);
    expect(status?.etaSeconds).toBeLessThanOrEqual(11);
    // Ended, the run's pace is its last session's: 990 rows in its 10 s.
    await db.pool.query(
      "UPDATE geobatch_queue.runs SET state = 'done', ended_at = session_at + interval '10 seconds'",
    );
    const [ended] = await runStatuses(db.pool);
    expect(ended?.rowsPerSecond).toBeCloseTo(99, 0);
  });

  it('never shows a negative ETA', async () => {
    const db = await queue();
    await run(db, 'over', 600);
    await doneChunk(db, 'over', 0, rows(0, 300), 10, 1);
    // A total below the rows done (as a resumed coordinator once recorded).
    await db.pool.query("UPDATE geobatch_queue.runs SET chunks = 1, rows = 100 WHERE id = 'over'");
    const [status] = await runStatuses(db.pool);
    expect(status?.etaSeconds).toBe(0);
  });

  it('counts a run whose input was read over two sessions by every chunk stored, not the last session', async () => {
    const db = await queue();
    await run(db, 'resumed');
    await doneChunk(db, 'resumed', 0, rows(0, 100), 10, 9);
    await doneChunk(db, 'resumed', 1, rows(100, 100), 10, 8);
    await insertChunk(db.pool, 'resumed', 2, rows(200, 50));
    await inputRead(db.pool, 'resumed');
    const [status] = await runStatuses(db.pool);
    expect(status?.rows).toEqual({ total: 250, stored: 250, done: 200 });
    expect(status?.chunks.total).toBe(3);
  });

  it('counts the requests every attempt at every chunk reported', async () => {
    const db = await queue();
    await run(db, 'paid');
    await doneChunk(db, 'paid', 0, rows(0, 10), 5, 4, [
      { requests: { total: 7 } },
      { requests: { total: 3 } },
    ]);
    await doneChunk(db, 'paid', 1, rows(10, 10), 5, 4, [{ requests: { total: 10 } }]);
    const [status] = await runStatuses(db.pool);
    expect(status?.requests).toBe(20);
  });
});

describe("status of a run's coordinator", () => {
  /** A pid no process of this machine runs under: one that ran and exited. */
  function exitedPid(): number {
    const child = spawnSync(process.execPath, ['-e', '']);
    return child.pid as number;
  }

  async function coordinatedBy(db: QueueDatabase, id: string, coordinator: string, seenAgo = 0) {
    await run(db, id);
    await db.pool.query(
      `UPDATE geobatch_queue.runs SET coordinator = $2, seen_at = clock_timestamp() - $3 * interval '1 second'
       WHERE id = $1`,
      [id, coordinator, seenAgo],
    );
  }

  it('says at once that a coordinator of this machine whose process exited (kill -9) is gone', async () => {
    const db = await queue();
    // Seen a second ago: well inside the timeout, which alone kept it "running" for 30 s.
    await coordinatedBy(db, 'killed', `${hostname()}:${exitedPid()}`, 1);
    const [status] = await runStatuses(db.pool, 'killed');
    expect(status?.abandoned).toBe(true);
    expect(status?.coordinator).toMatchObject({ here: true, gone: true });
  });

  it('keeps a live coordinator of this machine running', async () => {
    const db = await queue();
    await coordinatedBy(db, 'alive', `${hostname()}:${process.pid}`, 1);
    const [status] = await runStatuses(db.pool, 'alive');
    expect(status?.abandoned).toBe(false);
    expect(status?.coordinator).toMatchObject({ here: true, gone: false });
  });

  it("knows another machine's coordinator by when it was last seen, gone after the timeout", async () => {
    const db = await queue();
    await coordinatedBy(db, 'far-live', `elsewhere-${hostname()}:${exitedPid()}`, 12);
    await coordinatedBy(db, 'far-gone', `elsewhere-${hostname()}:${process.pid}`, 45);
    const live = (await runStatuses(db.pool, 'far-live'))[0];
    expect(live?.abandoned).toBe(false);
    expect(live?.coordinator.here).toBe(false);
    expect(live?.coordinator.gone).toBe(false);
    expect(live?.coordinator.seenSecondsAgo).toBeGreaterThanOrEqual(12);
    expect(live?.coordinator.seenSecondsAgo).toBeLessThan(20);
    const gone = (await runStatuses(db.pool, 'far-gone'))[0];
    expect(gone?.abandoned).toBe(true);
    expect(gone?.coordinator.gone).toBe(false);
  });

  it('leaves an ended run alone, whatever became of its coordinator', async () => {
    const db = await queue();
    await coordinatedBy(db, 'ended', `${hostname()}:${exitedPid()}`, 1);
    await endRun(db.pool, 'ended', 'done');
    const [status] = await runStatuses(db.pool, 'ended');
    expect(status?.abandoned).toBe(false);
    expect(status?.coordinator.gone).toBe(false);
  });
});

describe('queue prune', () => {
  it('removes an ended run on a queue where no worker ever ran', async () => {
    const db = await queue();
    await run(db, 'lonely');
    await endRun(db.pool, 'lonely', 'stopped');
    expect(await pruneRuns(db, 0)).toEqual({ removed: ['lonely'], resumable: [] });
    const left = await db.pool.query('SELECT id FROM geobatch_queue.runs');
    expect(left.rows).toEqual([]);
  });

  it('keeps a stopped run holding finished chunks for --resume, unless told to remove it too', async () => {
    // Removed, a run waiting for --resume had its finished chunks bought again by the resume.
    const db = await queue();
    for (const id of ['done', 'waiting', 'empty']) await run(db, id);
    await doneChunk(db, 'done', 0, rows(0, 10), 5, 4);
    await doneChunk(db, 'waiting', 0, rows(0, 10), 5, 4);
    await endRun(db.pool, 'done', 'done');
    await endRun(db.pool, 'waiting', 'stopped');
    await endRun(db.pool, 'empty', 'stopped');
    expect(await pruneRuns(db, 0)).toEqual({ removed: ['done', 'empty'], resumable: ['waiting'] });
    expect(await pruneRuns(db, 0, { resumable: true })).toEqual({ removed: ['waiting'], resumable: [] });
    const left = await db.pool.query('SELECT id FROM geobatch_queue.runs');
    expect(left.rows).toEqual([]);
  });

  it('finds the rate table on a queue database made before a worker could make it', async () => {
    const url = await server.database();
    // The tables as a coordinator alone leaves them: opened, used, and closed.
    const first = await openQueueDatabase(url);
    await first.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const found = await client.query("SELECT to_regclass('geobatch_queue.rates') AS t");
      expect(found.rows[0]?.t).toBe('geobatch_queue.rates');
    } finally {
      await client.end();
    }
  });
});

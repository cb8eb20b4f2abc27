/**
 * A least-privilege role on the queue database, against a real PostgreSQL: once an owner has made
 * the tables, a role with data rights only (no CREATE on the database) runs status, run and worker,
 * because tables at the current version take no DDL; where DDL is needed and refused, the error
 * names the right that is missing and what to do, not the URL and the password.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_SCHEMA_VERSION } from '../../src/queue/_schema.js';
import { openQueueDatabase } from '../../src/queue/database.js';
import { dataRole, ROLE_PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';
import { cli } from '../cli/_cli.js';
import { openFailure } from './_open-failure.js';
import { type Bench, openBench, worker, writeInput, writeJob } from './_setup.js';

const ROWS = 300;

let postgres: TestPostgres;
let bench: Bench;
let job: string;
/** A job of a few rows, for the owner's first run. */
let firstJob: string;

beforeAll(async () => {
  postgres = await startPostgres();
  bench = await openBench();
  const input = join(bench.dir, 'input.csv');
  writeInput(input, ROWS);
  job = writeJob(bench.dir, input);
  const first = join(bench.dir, 'first');
  mkdirSync(first);
  writeInput(join(first, 'input.csv'), 5);
  firstJob = writeJob(first, join(first, 'input.csv'));
}, 60_000);

afterAll(async () => {
  await bench?.emulator.close();
  await postgres?.stop();
});

function coordinator(file: string, url: string, name: string, ...more: string[]) {
  const output = join(bench.dir, 'out', `${name}.csv`);
  return cli(
    [
      'run',
      file,
      '-o',
      output,
      '--queue',
      url,
      '--chunk-rows',
      '100',
      '--no-progress',
      '--no-report',
      ...more,
    ],
    bench.env,
  );
}

describe('a role with data rights only', () => {
  it('runs status, a coordinator and a worker once the owner has run once', async () => {
    const owner = await postgres.database();
    const first = coordinator(firstJob, owner, 'first');
    expect([0, 3], first.err()).toContain(await first.exited);
    const { url } = await dataRole(postgres, owner);

    const status = cli(['status', '--queue', url], bench.env);
    expect(await status.exited, status.err()).toBe(0);

    const run = coordinator(job, url, 'weak', '--no-work');
    const w = worker(url, bench.env);
    expect([0, 3], run.err()).toContain(await run.exited);
    const summary = JSON.parse(readFileSync(join(bench.dir, 'out', 'weak.csv.summary.json'), 'utf8'));
    expect(summary.rows).toMatchObject({ read: ROWS, written: ROWS });
    // The worker answered every chunk, and cached its answers in the tables the owner made.
    expect(summary.cache).toMatchObject({ store: 'postgres' });
    expect(summary.cache.writes).toBeGreaterThan(0);
    const done = await postgres.query(
      owner,
      `SELECT count(*)::int AS n FROM geobatch_queue.chunks WHERE state = 'done' AND worker = '${hostname()}:${w.child.pid}'`,
    );
    expect(done[0]?.n).toBe(ROWS / 100);
    w.child.kill('SIGTERM');
    expect(await w.exited, w.err()).toBe(0);
  }, 120_000);

  it('opens the queue where the owner only ran status', async () => {
    const owner = await postgres.database();
    const setUp = cli(['status', '--queue', owner], bench.env);
    expect(await setUp.exited, setUp.err()).toBe(0);
    const { url } = await dataRole(postgres, owner);
    const db = await openQueueDatabase(url);
    // pg-boss at work for it: a run's queue made, a chunk sent and read back.
    await db.boss.createQueue('privileges-probe');
    const id = await db.boss.send('privileges-probe', { seq: 0 });
    expect(id).toEqual(expect.any(String));
    expect(await db.boss.getJobById('privileges-probe', id as string)).toMatchObject({ data: { seq: 0 } });
    await db.close();
  }, 60_000);
});

describe('a role refused the DDL the queue needs', () => {
  it('is told to have the owner run once or be granted CREATE on the database, where nothing is set up', async () => {
    const owner = await postgres.database();
    const { name, url } = await dataRole(postgres, owner);
    const database = new URL(owner).pathname.slice(1);
    const error = await openFailure(url);
    expect(error.code).toBe('QUEUE_UNUSABLE');
    expect(error.message).toContain(`the user ${name} may not create the queue's tables`);
    expect(error.context.path).toBe(url.replace(ROLE_PASSWORD, '***'));
    expect(error.context.detail).toEqual({ sqlstate: '42501', role: name, database });
    expect(error.context.hint).toContain(`GRANT CREATE ON DATABASE ${database} TO ${name}`);
    expect(error.context.hint).toContain("once as the database's owner");
    expect(error.context.hint).not.toMatch(/password|reachable/);
    expect(`${error.message} ${error.context.hint}`).not.toContain(ROLE_PASSWORD);
    const made = await postgres.query(
      owner,
      "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'geobatch%'",
    );
    expect(made).toEqual([]);

    const status = cli(['status', '--queue', url], bench.env);
    expect(await status.exited).toBe(1);
    expect(status.err()).toContain(`may not create the queue's tables`);
    expect(status.err()).toContain(`GRANT CREATE ON DATABASE ${database} TO ${name}`);
    expect(status.err()).not.toContain(ROLE_PASSWORD);
  }, 60_000);

  it('is told that only the owner may upgrade tables of an older geobatch', async () => {
    const owner = await postgres.database();
    const first = await openQueueDatabase(owner);
    await first.close();
    // The tables as an older geobatch left them: its last step not taken.
    await postgres.query(
      owner,
      `DROP FUNCTION geobatch_queue.claim_items; DROP TABLE geobatch_queue.item_claims;
       UPDATE geobatch_queue.meta SET value = '${QUEUE_SCHEMA_VERSION - 1}' WHERE key = 'schema'`,
    );
    const { name, url } = await dataRole(postgres, owner);
    const error = await openFailure(url);
    expect(error.code).toBe('QUEUE_UNUSABLE');
    expect(error.message).toContain(`the user ${name} may not upgrade the queue's tables`);
    expect(error.context.detail).toMatchObject({ sqlstate: '42501', role: name });
    expect(error.context.hint).toMatch(
      /only their owner .* may upgrade them: run this command once as that role/,
    );
    const meta = await postgres.query(owner, "SELECT value FROM geobatch_queue.meta WHERE key = 'schema'");
    expect(meta).toEqual([{ value: String(QUEUE_SCHEMA_VERSION - 1) }]);
  }, 60_000);

  it('missing a data right is told which rights a role needs, not to check the URL', async () => {
    const owner = await postgres.database();
    const first = await openQueueDatabase(owner);
    await first.close();
    const { url } = await dataRole(postgres, owner, ['public']);
    const error = await openFailure(url);
    expect(error.code).toBe('QUEUE_UNUSABLE');
    expect(error.message).toMatch(/permission denied for schema geobatch_queue/);
    expect(error.context.hint).toMatch(/needs USAGE on the schemas geobatch_queue, geobatch_boss and public/);
    expect(error.context.hint).not.toMatch(/password|reachable/);
  }, 60_000);
});

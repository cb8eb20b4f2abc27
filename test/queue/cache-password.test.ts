/**
 * A distributed run given a PostgreSQL cache URL with its password (`--cache postgres://u:PW@...`):
 * the queue database never keeps the password, so the workers have the URL without it. The
 * coordinator says so at the start, its own worker uses the password it was given, a worker on
 * another machine that has none says why and what to give it, and no message shows it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';
import { cli } from '../cli/_cli.js';
import { type Bench, openBench, worker, writeInput, writeJob } from './_setup.js';

let postgres: TestPostgres;
let bench: Bench;
let job: string;

beforeAll(async () => {
  postgres = await startPostgres();
  bench = await openBench();
  const input = join(bench.dir, 'input.csv');
  writeInput(input, 200);
  job = writeJob(bench.dir, input);
}, 60_000);

afterAll(async () => {
  await bench?.emulator.close();
  await postgres?.stop();
});

function coordinator(queue: string, cache: string, name: string, ...more: string[]) {
  const output = join(bench.dir, 'out', `${name}.csv`);
  const run = cli(
    ['run', job, '-o', output, '--queue', queue, '--cache', cache, '--chunk-rows', '100'].concat(
      ['--no-progress', '--no-report', '--log-format', 'json'],
      more,
    ),
    bench.env,
  );
  return { run, summary: () => readFileSync(`${output}.summary.json`, 'utf8') };
}

function records(stderr: string): { level: string; msg: string; err?: { code?: string; hint?: string } }[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

describe('a distributed run whose cache URL holds a password the queue database never keeps', () => {
  it('warns at the start, and a worker without the password stops it saying why and what to give', async () => {
    const queue = await postgres.database();
    const cache = await postgres.database();
    const { run, summary } = coordinator(queue, cache, 'no-password', '--no-work');
    const w = worker(queue, bench.env);
    try {
      expect(await run.exited, run.err()).toBe(1);
      const warned = records(run.err()).filter((r) => r.level === 'warn');
      expect(warned[0]?.msg).toBe(
        `The request cache's password (from --cache) is never stored in the queue database: the workers get ${cache.replace(`:${PASSWORD}@`, '@')} without it. Give it on every worker machine with PGPASSWORD or ~/.pgpass, or set GEOBATCH_CACHE to the URL with its password in each worker's environment; a worker without it stops the run with CACHE_UNUSABLE`,
      );
      const said = /never stored in the queue database, and this worker gave none PostgreSQL accepts/;
      expect(run.err()).toMatch(/CACHE_UNUSABLE: Worker \S+ stopped on chunk \d/);
      expect(run.err()).toMatch(said);
      expect(run.err()).toMatch(/hint: give this worker the password: PGPASSWORD or a ~\/\.pgpass line/);
      expect(run.err()).toContain(`GEOBATCH_CACHE=${cache.replace(PASSWORD, 'PASSWORD')} (PASSWORD replaced`);
      // The worker's own log says it too.
      const refused = records(w.err()).find((r) => r.err?.code === 'CACHE_UNUSABLE');
      expect(refused?.err?.hint).toMatch(/^give this worker the password: PGPASSWORD/);
      // It stops, and says what is true: the run stopped on it and waits for --resume, not for it.
      expect(await w.exited).toBe(1);
      const hint = /\nhint: (.*)\n/.exec(w.err())?.[1] ?? '';
      expect(hint).toMatch(
        /^give this worker the password: .* in its environment; this worker stops, as every chunk it took would fail the same way: once its environment is fixed, start it again, and resume the run it stopped from its coordinator$/,
      );
      expect(w.err()).not.toMatch(/wait for it|stay in the queue/);
      expect(JSON.stringify(refused)).toMatch(said);
      for (const text of [run.err(), run.out(), w.err(), w.out(), summary()]) {
        expect(text).not.toContain(PASSWORD);
        expect(text).not.toMatch(/cache clear[^\n]*\*\*\*/);
      }
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  }, 120_000);

  it("is worked on by the coordinator's own worker with the password it was given, and by one with PGPASSWORD", async () => {
    const finished = async (run: ReturnType<typeof coordinator>) => {
      expect([0, 3], run.run.err()).toContain(await run.run.exited);
      const s = JSON.parse(run.summary()) as { error: unknown; cache: { writes: number; problem: unknown } };
      expect(s.error).toBeNull();
      expect(s.cache.problem).toBeNull();
      expect(s.cache.writes).toBeGreaterThan(0);
      for (const text of [run.run.err(), run.summary()]) expect(text).not.toContain(PASSWORD);
    };
    // Alone: the coordinator's own worker does every chunk.
    await finished(coordinator(await postgres.database(), await postgres.database(), 'own-worker'));
    // Another worker, with the password from its environment, does every chunk.
    const queue = await postgres.database();
    const run = coordinator(queue, await postgres.database(), 'pgpassword', '--no-work');
    const w = worker(queue, { ...bench.env, PGPASSWORD: PASSWORD }, '--exit-when-idle');
    try {
      await finished(run);
      expect(await w.exited, w.err()).toBe(0);
      expect(records(w.err()).filter((r) => r.level === 'error')).toEqual([]);
      expect(w.err()).not.toContain(PASSWORD);
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
  }, 120_000);
});

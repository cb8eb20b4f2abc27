/**
 * Distributed runs as a user runs them: a coordinator (`geobatch run --queue`) and worker
 * processes (`geobatch worker`) against a real PostgreSQL and the emulator. The output and the
 * error report must be byte for byte a single-process run's, whatever happens to the workers.
 */
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';
import { cli, ROOT, waitFor } from '../cli/_cli.js';
import {
  type Bench,
  openBench,
  perSecond,
  worker,
  writeInput,
  writeJob,
  writeRepeatingInput,
} from './_setup.js';

const ROWS = 3000;
const BAD = [7, 1500, 2999];

let postgres: TestPostgres;
let bench: Bench;
let job: string;
let single: { output: string; errors: string };
let failed = 0;

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** Chunks done so far; 0 while the coordinator has not made the tables yet. */
async function doneChunks(url: string): Promise<number> {
  try {
    const rows = await query<{ n: string }>(
      url,
      "SELECT count(*) AS n FROM geobatch_queue.chunks WHERE state = 'done'",
    );
    return Number(rows[0]?.n);
  } catch {
    return 0;
  }
}

/** Requests the emulator was asked, each once: a request keeps its X-Request-Id over retries and hedges. */
function requestsServed(): number {
  return new Set(bench.emulator.requestLog().map((entry) => entry.requestId)).size;
}

/**
 * Hedged attempts given up for their twin's answer, reported by every chunk of the run: counted
 * as sent (they were written), while the emulator's log, by request id, shows their request once.
 */
async function abandoned(url: string): Promise<number> {
  const rows = await query<{ n: string }>(
    url,
    `SELECT coalesce(sum((e -> 'requests' -> 'byInterface' -> 'geocoding' ->> 'abandoned')::int), 0) AS n
     FROM geobatch_queue.chunks c CROSS JOIN LATERAL jsonb_array_elements(c.spent) e`,
  );
  return Number(rows[0]?.n);
}

async function untilDone(url: string, chunks: number): Promise<void> {
  while ((await doneChunks(url)) < chunks) await new Promise((resolve) => setTimeout(resolve, 200));
}

function files(name: string) {
  return {
    output: readFileSync(join(bench.dir, 'out', `${name}.csv`), 'utf8'),
    errors: readFileSync(join(bench.dir, 'out', `${name}.errors.csv`), 'utf8'),
  };
}

function coordinator(url: string, name: string, ...more: string[]) {
  return cli(
    [
      'run',
      job,
      '-o',
      join(bench.dir, 'out', `${name}.csv`),
      '--queue',
      url,
      '--no-progress',
      '--no-report',
      '--log-format',
      'json',
      ...more,
    ],
    bench.env,
  );
}

beforeAll(async () => {
  postgres = await startPostgres();
  bench = await openBench();
  const input = join(bench.dir, 'input.csv');
  writeInput(input, ROWS, BAD);
  job = writeJob(bench.dir, input);
  const run = cli(
    ['run', job, '-o', join(bench.dir, 'out', 'single.csv'), '--no-progress', '--no-report', '--no-cache'],
    bench.env,
  );
  expect(await run.exited, run.err()).toBe(3);
  single = files('single');
  failed = single.errors.split('\n').filter(Boolean).length - 1;
  // The planted rows are among the failures (the sample has addresses the emulator cannot place).
  expect(failed).toBeGreaterThanOrEqual(BAD.length);
}, 120_000);

afterAll(async () => {
  await bench?.emulator.close();
  await postgres?.stop();
});

describe('a distributed run', () => {
  it('writes what a single run writes, when one of three workers is killed with -9 midway', async () => {
    const url = await postgres.database();
    const run = coordinator(url, 'killed', '--no-work', '--chunk-rows', '100', '--rate', '400');
    const workers = [worker(url, bench.env), worker(url, bench.env), worker(url, bench.env)];
    const victim = workers[0];
    // Killed once it has chunks in hand: some chunk is active and some are done.
    await waitFor(victim?.err ?? (() => ''), /Working on run/, 30_000);
    await untilDone(url, 3);
    victim?.child.kill('SIGKILL');
    expect(await run.exited, run.err()).toBe(3);
    expect(files('killed')).toEqual(single);
    const chunks = await query<{ seq: number; attempts: number; worker: string }>(
      url,
      'SELECT seq, attempts, worker FROM geobatch_queue.chunks ORDER BY seq',
    );
    expect(chunks).toHaveLength(ROWS / 100);
    // The killed worker's chunks were taken again by another worker.
    expect(Math.max(...chunks.map((c) => c.attempts))).toBeGreaterThanOrEqual(2);
    // What the killed worker spent on them was never reported: the coordinator says so.
    const spent = await query<{ seq: number; attempts: number; entries: number }>(
      url,
      'SELECT seq, attempts, jsonb_array_length(spent) AS entries FROM geobatch_queue.chunks',
    );
    const unreported = spent.reduce((sum, c) => sum + Math.max(0, c.attempts - c.entries), 0);
    expect(unreported).toBeGreaterThan(0);
    expect(run.err()).toContain(
      `${unreported} attempt(s) at the chunks this session wrote ended without saying what they spent (a worker killed, or cut off from the queue database)`,
    );
    const summary = JSON.parse(readFileSync(join(bench.dir, 'out', 'killed.csv.summary.json'), 'utf8'));
    expect(summary.rows).toMatchObject({ read: ROWS, written: ROWS, failed });
    for (const w of workers.slice(1)) w.child.kill('SIGTERM');
    await Promise.all(workers.slice(1).map((w) => w.exited));
  }, 180_000);

  it('holds one rate for all workers together, and a worker stops within seconds of SIGTERM', async () => {
    const url = await postgres.database();
    bench.emulator.resetStats();
    const run = coordinator(url, 'rated', '--no-work', '--chunk-rows', '100', '--rate', '150', '--no-cache');
    const workers = [worker(url, bench.env), worker(url, bench.env), worker(url, bench.env)];
    await waitFor(() => workers.map((w) => w.err()).join(''), /Working on run/, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const stopped = Date.now();
    workers[2]?.child.kill('SIGTERM');
    expect(await workers[2]?.exited).toBe(0);
    const took = Date.now() - stopped;
    expect(took).toBeLessThan(10_000);
    expect(workers[2]?.err()).toMatch(/handed back|chunks done/);
    expect(await run.exited, run.err()).toBe(3);
    expect(files('rated')).toEqual(single);
    const seconds = perSecond(bench.emulator, /geocode/);
    expect(seconds.length).toBeGreaterThan(5);
    // Workers together hold the rate: over the run, within the schedule's 1% burst and a little.
    const mean = seconds.reduce((a, b) => a + b, 0) / seconds.length;
    expect(mean, `requests per whole second: ${seconds.join(', ')}`).toBeLessThanOrEqual(150 * 1.03);
    // Arrival times add every process's timer lateness: on a loaded CI machine a 73 ms stall put 161
    // arrivals into one second. A stall moves arrivals into the next second but adds none, so two
    // seconds together stay within 5%, and one second within 25% (a quarter second of stall). The
    // schedule itself is held to the 1% burst in rate.test.ts, and the benchmark's scale-out
    // scenario holds every whole second to 5% on an idle machine.
    const pairs = seconds.slice(1).map((n, i) => n + (seconds[i] as number));
    expect(Math.max(...pairs), `requests per whole second: ${seconds.join(', ')}`).toBeLessThanOrEqual(
      2 * 150 * 1.05,
    );
    expect(Math.max(...seconds)).toBeLessThanOrEqual(150 * 1.25);
    for (const w of workers.slice(0, 2)) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
  }, 180_000);

  it('stops with the workers fatal error, and a resume with the key fixed keeps the chunks done', async () => {
    const url = await postgres.database();
    const since = Math.max(0, ...bench.emulator.requestLog().map((entry) => entry.seq));
    // 40 requests a second: the good worker's two chunks of 100 take seconds, and are in hand
    // when the bad worker stops the run.
    const run = coordinator(url, 'resumed', '--no-work', '--chunk-rows', '100', '--rate', '40');
    const good = worker(url, bench.env);
    await waitFor(good.err, /Working on run/, 30_000);
    await untilDone(url, 2);
    const bad = worker(url, { ...bench.env, GEOBATCH_API_KEY: 'wrong-key' });
    expect(await run.exited).toBe(1);
    const stoppedAt = Date.now();
    expect(run.err()).toMatch(
      /AUTH_REJECTED: Worker [^ ]+:\d+ stopped on chunk \d+ \(rows \d+-\d+\): the service rejected the API key/,
    );
    expect(run.err()).not.toContain('wrong-key');
    // The run stopped: the good worker stops the chunks it holds at once, rather than buy them
    // whole (279 requests, the last 4.8 s after the stop, in a review's run).
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const log = bench.emulator.requestLog().filter((entry) => entry.seq > since);
    const refusedAt = Math.min(
      ...log.filter((entry) => entry.outcome === 401).map((entry) => entry.receivedAt),
    );
    expect(Math.max(...log.map((entry) => entry.receivedAt)) - refusedAt).toBeLessThan(1500);
    expect(log.filter((entry) => entry.receivedAt > stoppedAt).length).toBe(0);
    expect(good.err()).toContain('Chunk handed back: the run stopped or was dropped');
    // What the chunks handed back had spent is in their counts: a stopped run loses none of it.
    expect(good.err()).not.toContain("in no chunk's count");
    // The bad worker stops by itself: every chunk it took would fail on its key, and stop a run.
    expect(await bad.exited).toBe(1);
    expect(bad.err()).toContain(
      'geobatch: the service rejected the API key (401) for geocoding: check GEOBATCH_API_KEY\nhint: check GEOBATCH_API_KEY; this worker stops, as every chunk it took would fail the same way: once its environment is fixed, start it again, and resume the run it stopped from its coordinator',
    );
    expect(bad.err()).not.toContain('wrong-key');
    const before = await query<{ n: string }>(
      url,
      "SELECT count(*) AS n FROM geobatch_queue.chunks WHERE state = 'done'",
    );
    expect(existsSync(join(bench.dir, 'out', 'resumed.csv.checkpoint.json'))).toBe(true);
    const again = coordinator(url, 'resumed', '--resume', '--chunk-rows', '100');
    expect(await again.exited, again.err()).toBe(3);
    expect(files('resumed')).toEqual(single);
    // The chunks done before the stop were not worked again.
    const redone = await query<{ n: string }>(
      url,
      "SELECT count(*) AS n FROM geobatch_queue.chunks WHERE attempts > 1 AND state = 'done'",
    );
    expect(Number(before[0]?.n)).toBeGreaterThanOrEqual(2);
    expect(Number(redone[0]?.n)).toBeLessThan(ROWS / 100);
    good.child.kill('SIGTERM');
    await good.exited;
  }, 180_000);

  it('stops a worker without a key, which stops the run once, not every --resume', async () => {
    const url = await postgres.database();
    const { GEOBATCH_API_KEY: _key, ...keyless } = bench.env;
    const run = coordinator(url, 'keyless', '--no-work', '--chunk-rows', '100');
    const bad = worker(url, keyless);
    // The worker's setting, not the coordinator's: the run stops (exit 1), no usage error (2).
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain('WORKER_MISCONFIGURED');
    // The worker stops too: left up, it stopped the next --resume within a second (a review's run).
    expect(await bad.exited).toBe(2);
    expect(bad.err()).toContain(
      'this worker stops, as every chunk it took would fail the same way: once its environment is fixed, start it again, and resume the run it stopped from its coordinator',
    );
    const good = worker(url, bench.env);
    try {
      const again = coordinator(url, 'keyless', '--resume', '--no-work', '--chunk-rows', '100');
      expect(await again.exited, again.err()).toBe(3);
      expect(files('keyless')).toEqual(single);
    } finally {
      good.child.kill('SIGTERM');
      await good.exited;
    }
  }, 180_000);

  it('stops a run under way as stopped (exit 1, --resume), not as a usage error, when a worker without a key joins it', async () => {
    const url = await postgres.database();
    const { GEOBATCH_API_KEY: _key, ...keyless } = bench.env;
    // 40 requests a second: the good worker's chunks take seconds, and the run is under way,
    // rows bought and committed, when the keyless worker joins.
    const run = coordinator(url, 'keyless-late', '--no-work', '--chunk-rows', '100', '--rate', '40');
    const good = worker(url, bench.env);
    try {
      await waitFor(good.err, /Working on run/, 30_000);
      await untilDone(url, 2);
      const bad = worker(url, keyless);
      expect(await run.exited, run.err()).toBe(1);
      const said = run.err();
      expect(said).toMatch(
        /\n {2}WORKER_MISCONFIGURED: Worker [^ ]+:\d+ stopped on chunk \d+ \(rows \d+-\d+\), for what its own environment lacks: \S+geocode\.yaml: no credentials for the geocode job\n/,
      );
      // Where to look, said once.
      const hint = /\n {2}hint: (.*)\n/.exec(said)?.[1] ?? '';
      expect(hint).toMatch(
        /^export GEOBATCH_API_KEY .* in the environment of worker [^ ]+:\d+, and start it again/,
      );
      expect(hint.match(/environment/g)).toHaveLength(1);
      expect(said).toMatch(/STOPPED after [1-9]\d* rows/);
      expect(run.err()).not.toMatch(/usage error|nothing was sent/i);
      expect(run.err()).toMatch(/--resume/);
      expect(existsSync(join(bench.dir, 'out', 'keyless-late.csv.checkpoint.json'))).toBe(true);
      expect(await bad.exited).toBe(2);
    } finally {
      good.child.kill('SIGTERM');
      await good.exited;
    }
  }, 180_000);

  it("stops on a worker's wrong service path, saying the cause is that worker's environment and that the run needs --resume", async () => {
    const url = await postgres.database();
    const run = coordinator(url, 'wrong-path', '--no-work', '--chunk-rows', '100');
    const bad = worker(url, { ...bench.env, GEOBATCH_EMULATOR_URL: `${bench.emulator.urls.origin}/wrong` });
    expect(await run.exited, run.err()).toBe(1);
    const said = run.err();
    expect(said).toMatch(/\n {2}ENDPOINT_NOT_FOUND: Worker [^ ]+:\d+ stopped on chunk \d+/);
    expect(/\n {2}hint: (.*)\n/.exec(said)?.[1]).toMatch(
      /the service's address, its path included, is read from the environment of worker [^ ]+:\d+ \(GEOBATCH_EMULATOR_URL or the interface's GEOBATCH_\.\.\._URL\) or the job file, which may not be this process's: look there/,
    );
    // The worker stops too; the run it stopped waits for its coordinator's --resume, not for it.
    expect(await bad.exited).toBe(1);
    const hint = /\nhint: (.*)\n/.exec(bad.err())?.[1] ?? '';
    expect(hint).toMatch(
      /this worker stops, as every chunk it took would fail the same way: once its environment is fixed, start it again, and resume the run it stopped from its coordinator$/,
    );
    expect(hint).not.toMatch(/stay in the queue|wait for it/);
  }, 120_000);

  it('stops every worker at a quota, not each chunk on its own 402s', async () => {
    const url = await postgres.database();
    const since = Math.max(0, ...bench.emulator.requestLog().map((entry) => entry.seq));
    bench.emulator.setFaults({ quotaAfter: 300 });
    const workers = [worker(url, bench.env), worker(url, bench.env)];
    try {
      const run = coordinator(url, 'quota', '--chunk-rows', '50');
      expect(await run.exited, run.err()).toBe(1);
      expect(run.err()).toMatch(/QUOTA_EXCEEDED/);
      // What the fix changes is which chunks are taken after the failure is stored: only those
      // already in hand fail, the rest stay queued for --resume. Before it every chunk left was
      // taken and failed on 402s of its own (93-99 answers of 402; a review's run: 205 against one
      // process's 14). The 402s themselves are what the processes had in flight, which load moves
      // (29-47 idle, 76 in a loaded CI run), so the chunks are counted: three processes, a chunk
      // or two in hand each.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const refused = bench.emulator
        .requestLog()
        .filter((entry) => entry.seq > since && entry.outcome === 402).length;
      expect(refused).toBeGreaterThan(0);
      const failed = await query<{ n: string }>(
        url,
        "SELECT count(*) AS n FROM geobatch_queue.chunks WHERE state = 'failed'",
      );
      expect(Number(failed[0]?.n)).toBeGreaterThan(0);
      expect(Number(failed[0]?.n)).toBeLessThanOrEqual(3 * 2);
    } finally {
      bench.emulator.setFaults({});
      for (const w of workers) w.child.kill('SIGTERM');
      await Promise.all(workers.map((w) => w.exited));
    }
  }, 180_000);

  it('keeps no credential in the database, and status and prune show and remove the run', async () => {
    const url = await postgres.database();
    const run = coordinator(url, 'own', '--chunk-rows', '500');
    expect(await run.exited, run.err()).toBe(3);
    expect(files('own')).toEqual(single);
    const dump = await query<{ t: string }>(
      url,
      `SELECT string_agg(t::text, ' ') AS t FROM (
         SELECT r::text AS t FROM geobatch_queue.runs r
         UNION ALL SELECT w::text FROM geobatch_queue.workers w
         UNION ALL SELECT c.counters::text || coalesce(c.error::text, '') FROM geobatch_queue.chunks c) x`,
    );
    expect(dump[0]?.t).toContain('geocode');
    for (const secret of [
      bench.emulator.credentials.apiKey,
      bench.emulator.credentials.partnerKey,
      'pw-cache',
    ])
      expect(dump[0]?.t).not.toContain(secret);
    // A second run is answered from the cache the workers share in the queue database.
    const again = coordinator(url, 'own-again', '--chunk-rows', '500');
    expect(await again.exited, again.err()).toBe(3);
    expect(files('own-again')).toEqual(single);
    const first = JSON.parse(readFileSync(join(bench.dir, 'out', 'own.csv.summary.json'), 'utf8'));
    const second = JSON.parse(readFileSync(join(bench.dir, 'out', 'own-again.csv.summary.json'), 'utf8'));
    expect(first.client.requests.total).toBeGreaterThan(ROWS / 2);
    expect(second.client.requests.total).toBe(0);
    expect(second.cache).toMatchObject({ store: 'postgres', hits: first.cache.writes });
    const status = cli(['status', '--queue', url], bench.env);
    expect(await status.exited, status.err()).toBe(0);
    expect(status.out()).toMatch(/chunks: 6 done, 0 in flight, 0 queued, 0 failed, of 6/);
    expect(status.out().match(/^run /gm)).toHaveLength(2);
    expect(status.out()).toMatch(new RegExp(`rows: +${ROWS} done of ${ROWS}`));
    expect(status.out()).not.toContain('pw-cache');
    const unknown = cli(['status', 'zzz', '--queue', url], bench.env);
    expect(await unknown.exited).toBe(2);
    expect(unknown.err()).toContain('no run zzz in postgres://');
    expect(unknown.err()).toContain('`geobatch status` without a run lists the runs and their ids');
    expect(unknown.err()).not.toContain('pw-cache');
    const prune = cli(['queue', 'prune', '--queue', url], bench.env);
    expect(await prune.exited, prune.err()).toBe(0);
    expect(prune.out()).toMatch(/removed 2 run/);
    const left = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM geobatch_queue.chunks');
    expect(Number(left[0]?.n)).toBe(0);
  }, 120_000);
});

describe('a distributed run of a job whose rows come in groups', () => {
  it('never splits a trip between chunks: the output is a single run\u2019s with chunks smaller than a trip', async () => {
    const url = await postgres.database();
    const trip = join(ROOT, 'jobs/trip.yaml');
    const one = cli(
      [
        'run',
        trip,
        '-o',
        join(bench.dir, 'out', 'trip-single.csv'),
        '--no-progress',
        '--no-report',
        '--no-cache',
      ],
      bench.env,
    );
    const code = await one.exited;
    expect([0, 3], one.err()).toContain(code);
    const queued = cli(
      [
        'run',
        trip,
        '-o',
        join(bench.dir, 'out', 'trip-queued.csv'),
        '--no-progress',
        '--no-report',
        '--queue',
        url,
        '--chunk-rows',
        '3',
      ],
      bench.env,
    );
    expect(await queued.exited, queued.err()).toBe(code);
    const read = (name: string) => readFileSync(join(bench.dir, 'out', `${name}.csv`), 'utf8');
    expect(read('trip-queued')).toBe(read('trip-single'));
    const chunks = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM geobatch_queue.chunks');
    // Cut at trips: more than one chunk, fewer than rows / 3.
    expect(Number(chunks[0]?.n)).toBeGreaterThan(1);
    expect(Number(chunks[0]?.n)).toBeLessThan(164 / 3);
  }, 120_000);
});

describe('a distributed run whose database goes away', () => {
  it('stops with QUEUE_UNUSABLE and the checkpoint kept, and resumes once PostgreSQL is back', async () => {
    const url = await postgres.database();
    const run = coordinator(url, 'dbgone', '--no-work', '--chunk-rows', '100', '--rate', '300');
    const w = worker(url, bench.env);
    await untilDone(url, 4);
    // Past the first checkpoint (every 2 s), so that the stop keeps one.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await postgres.pause();
    try {
      expect(await run.exited).toBe(1);
      expect(run.err()).toContain('QUEUE_UNUSABLE');
      expect(run.err()).not.toContain(PASSWORD);
      expect(await w.exited).toBe(1);
      expect(w.err()).toMatch(/The queue database postgres:\/\/postgres:\*\*\*@[^ ]+ failed while/);
      expect(existsSync(join(bench.dir, 'out', 'dbgone.csv.checkpoint.json'))).toBe(true);
    } finally {
      await postgres.start();
    }
    const again = coordinator(url, 'dbgone', '--resume', '--chunk-rows', '100');
    expect(await again.exited, again.err()).toBe(3);
    expect(files('dbgone')).toEqual(single);
  }, 180_000);
});

describe('a coordinator killed with -9 and resumed', () => {
  it('counts every request once: the summary says what the service counted, status the whole input', async () => {
    const url = await postgres.database();
    bench.emulator.resetStats();
    const flags = ['--no-work', '--chunk-rows', '100', '--rate', '300', '--no-cache'];
    const first = coordinator(url, 'recount', ...flags);
    const w = worker(url, bench.env);
    await untilDone(url, 8);
    // Past a checkpoint (every 2 s), so that the resumed session starts inside the input.
    const checkpoint = join(bench.dir, 'out', 'recount.csv.checkpoint.json');
    while (!existsSync(checkpoint)) await new Promise((resolve) => setTimeout(resolve, 100));
    first.child.kill('SIGKILL');
    await first.exited;
    // The worker goes on with the chunks while no coordinator takes them.
    const again = coordinator(url, 'recount', '--resume', ...flags);
    expect(await again.exited, again.err()).toBe(3);
    expect(files('recount')).toEqual(single);
    const summary = JSON.parse(readFileSync(join(bench.dir, 'out', 'recount.csv.summary.json'), 'utf8'));
    expect(summary.resume.fromRow).toBeGreaterThan(0);
    const served = requestsServed();
    expect(served).toBeGreaterThan(ROWS / 2);
    // Each chunk's requests once: none of the chunk the checkpoint cut, none of the first session twice.
    expect(summary.requests.sent).toBe(served);
    expect(summary.requests.http - (await abandoned(url))).toBe(served);
    expect(summary.client.requests.total).toBeLessThan(summary.requests.http);
    const status = cli(['status', '--json', '--queue', url], bench.env);
    expect(await status.exited, status.err()).toBe(0);
    const [shown] = JSON.parse(status.out());
    expect(shown.rows).toEqual({ total: ROWS, stored: ROWS, done: ROWS });
    expect(shown.requests).toBe(summary.requests.http);
    w.child.kill('SIGTERM');
    await w.exited;
  }, 180_000);
});

describe('a worker whose database session ends under it', () => {
  it('hands its chunk back as QUEUE_UNUSABLE, not INTERNAL, and the run ends as a single run does', async () => {
    const url = await postgres.database();
    bench.emulator.resetStats();
    const run = coordinator(
      url,
      'severed',
      '--no-work',
      '--chunk-rows',
      '100',
      '--rate',
      '600',
      '--no-cache',
    );
    // Chunk 3's row is held before any worker runs (once the coordinator has set its job id): the
    // worker that takes it waits on the lock...
    const holder = new pg.Client({ connectionString: url });
    holder.on('error', () => {});
    await holder.connect();
    try {
      for (;;) {
        const found = await holder
          .query('SELECT 1 FROM geobatch_queue.chunks WHERE seq = 3 AND job_id IS NOT NULL')
          .catch(() => ({ rowCount: 0 }));
        if (found.rowCount === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM geobatch_queue.chunks WHERE seq = 3 FOR UPDATE');
      const w = worker(url, bench.env, '--concurrency', '1');
      let waiting: number | undefined;
      while (waiting === undefined) {
        const found = await query<{ pid: number }>(
          url,
          `SELECT pid FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE '%UPDATE geobatch_queue.chunks SET state = ''active''%'`,
        );
        waiting = found[0]?.pid;
        if (waiting === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // ...and its session is ended, as a server shutting down ends it (57P01).
      await query(url, `SELECT pg_terminate_backend(${waiting})`);
      await holder.query('ROLLBACK');
      expect(await run.exited, run.err()).toBe(3);
      expect(files('severed')).toEqual(single);
      const records = w
        .err()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg: string; seq?: number; err?: { code?: string } });
      const handedBack = records.filter((r) => r.msg === 'Chunk handed back');
      expect(handedBack).toHaveLength(1);
      expect(handedBack[0]).toMatchObject({ seq: 3, err: { code: 'QUEUE_UNUSABLE' } });
      expect(w.err()).not.toContain('INTERNAL');
      const summary = JSON.parse(readFileSync(join(bench.dir, 'out', 'severed.csv.summary.json'), 'utf8'));
      // A retry keeps its request's id, as a hedge does: on a loaded machine one timed out (2,982
      // attempts over HTTP for 2,981 requests served).
      const retries = summary.client.retries?.total ?? 0;
      expect(summary.requests.http - (await abandoned(url)) - retries).toBe(requestsServed());
      w.child.kill('SIGTERM');
      await w.exited;
    } finally {
      await holder.end().catch(() => {});
    }
  }, 180_000);
});

/**
 * A single run over `rows` rows of `distinct` addresses in turn (`<name>.csv`), and what it cost:
 * the baseline a distributed run of the same input must match, request for request. `run` writes
 * `out/<name>-<which>.csv`; the emulator's count starts afresh for the run after.
 */
async function repeatingBaseline(name: string, rows: number, distinct: number, jobFile = job) {
  const input = join(bench.dir, `${name}.csv`);
  writeRepeatingInput(input, rows, distinct);
  const run = (which: string, ...more: string[]) =>
    cli(
      [
        'run',
        jobFile,
        '-i',
        input,
        '-o',
        join(bench.dir, 'out', `${name}-${which}.csv`),
        '--no-progress',
        '--no-report',
        ...more,
      ],
      bench.env,
    );
  bench.emulator.resetStats();
  const one = run('single');
  const code = await one.exited;
  expect([0, 3], one.err()).toContain(code);
  const once = requestsServed();
  const geocodesOnce = geocodesServed();
  expect(geocodesOnce).toBeGreaterThan(distinct / 2);
  expect(geocodesOnce).toBeLessThanOrEqual(distinct);
  bench.emulator.resetStats();
  return { run, code, once, geocodesOnce };
}

/** Geocode requests the emulator was asked, each once (a pipeline's first step's). */
function geocodesServed(): number {
  const geocodes = bench.emulator.requestLog().filter((entry) => entry.path.endsWith('/geocode'));
  return new Set(geocodes.map((entry) => entry.requestId)).size;
}

/** The queued run wrote what the single run wrote, and sent (and the summary counts) as many requests. */
function expectAsSingle(name: string, once: number): void {
  const read = (which: string) => readFileSync(join(bench.dir, 'out', `${name}-${which}.csv`), 'utf8');
  expect(read('queued')).toBe(read('single'));
  expect(requestsServed()).toBe(once);
  const summary = JSON.parse(readFileSync(join(bench.dir, 'out', `${name}-queued.csv.summary.json`), 'utf8'));
  expect(summary.requests.sent).toBe(once);
}

describe('a worker with two chunks of one run at once', () => {
  it('buys an item both chunks hold once, as a single run does', async () => {
    // Each chunk of 100 rows asks for the same 100 addresses.
    const { run, code, once } = await repeatingBaseline('repeating', 1000, 100);
    const url = await postgres.database();
    // The coordinator's own worker: two chunks at once (its default), the queue database as cache.
    const queued = run('queued', '--queue', url, '--chunk-rows', '100', '--log-format', 'json');
    expect(await queued.exited, queued.err()).toBe(code);
    expectAsSingle('repeating', once);
  }, 120_000);
});

describe('three worker processes with chunks of one run at once', () => {
  it('buy an item their chunks hold once, as a single run does', async () => {
    // Every chunk of 50 rows asks for the same 50 addresses: without claims among the workers,
    // the first chunks of each worker buy all of them.
    const { run, code, once } = await repeatingBaseline('repeating-3', 1200, 50);
    const url = await postgres.database();
    const workers = [worker(url, bench.env), worker(url, bench.env), worker(url, bench.env)];
    const queued = run('queued', '--queue', url, '--no-work', '--chunk-rows', '50', '--log-format', 'json');
    expect(await queued.exited, queued.err()).toBe(code);
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    // Each worker took chunks, so the three of them were there to buy the same items.
    const takers = await query<{ worker: string }>(url, 'SELECT DISTINCT worker FROM geobatch_queue.chunks');
    expect(takers.length).toBe(3);
    expectAsSingle('repeating-3', once);
    // Every claim was let go.
    expect(await query(url, 'SELECT * FROM geobatch_queue.item_claims')).toEqual([]);
  }, 180_000);
});

describe('a pipeline run in chunks at once', () => {
  it("buys its first step's items once, as a single run does", async () => {
    // Every chunk of 50 rows asks for the same 50 addresses. Before, a pipeline's chunks shared
    // only through the cache, and chunks side by side bought the same geocodes: 944 of 413.
    const steps = join(bench.dir, 'steps.yaml');
    writeFileSync(
      steps,
      [
        'input: in.csv',
        'output: out/steps.csv',
        'steps:',
        '  - job: geocode',
        '    mapping: { street: street, houseNo: housenumber, zip: plz, city: city, country: { value: DE } }',
        '    options: { prefix: geo_ }',
        '  - job: elevation',
        '    mapping: { lon: geo_lon, lat: geo_lat }',
        '',
      ].join('\n'),
    );
    const { run, code, geocodesOnce } = await repeatingBaseline('repeating-steps', 600, 50, steps);
    const url = await postgres.database();
    const workers = [worker(url, bench.env), worker(url, bench.env)];
    const queued = run('queued', '--queue', url, '--no-work', '--chunk-rows', '50', '--log-format', 'json');
    expect(await queued.exited, queued.err()).toBe(code);
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    const read = (which: string) =>
      readFileSync(join(bench.dir, 'out', `repeating-steps-${which}.csv`), 'utf8');
    expect(read('queued')).toBe(read('single'));
    expect(geocodesServed()).toBe(geocodesOnce);
  }, 180_000);
});

describe('a distributed run without a request cache', () => {
  it('warns before it starts that its chunks share no answers, and how to get fresh ones bought once', async () => {
    const { run, code } = await repeatingBaseline('uncached', 200, 50);
    const url = await postgres.database();
    const queued = run('queued', '--queue', url, '--no-cache', '--chunk-rows', '100', '--log-format', 'json');
    expect(await queued.exited, queued.err()).toBe(code);
    const warned = queued
      .err()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; msg: string; chunkRows?: number })
      .filter((record) => record.level === 'warn');
    expect(warned).toEqual([
      expect.objectContaining({
        chunkRows: 100,
        msg: 'No request cache: the chunks of a distributed run then share no answers, so an item that several chunks hold is bought once in each (dedup reaches within a chunk of 100 rows). For fresh answers bought once per run, use --cache-mode refresh instead of --no-cache',
      }),
    ]);
  }, 120_000);
});

describe('a chunk that fails on every attempt', () => {
  it('is reported after four attempts, not retried for ever', async () => {
    const url = await postgres.database();
    const run = coordinator(url, 'broken', '--no-work', '--chunk-rows', '1000');
    // Before any worker: chunk 1's stored rows are made unreadable, as a bug would meet them.
    for (;;) {
      const rows = await query<{ n: string }>(
        url,
        'SELECT count(*) AS n FROM geobatch_queue.chunks WHERE seq = 1',
      ).catch(() => []);
      if (Number(rows[0]?.n) === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await query(url, "UPDATE geobatch_queue.chunks SET items = 'not json' WHERE seq = 1");
    const w = worker(url, bench.env);
    expect(await run.exited).toBe(1);
    expect(run.err()).toMatch(/INTERNAL: Chunk 1 \(rows 1001-2000\) failed on every attempt/);
    const [chunk] = await query<{ attempts: number; state: string }>(
      url,
      'SELECT attempts, state FROM geobatch_queue.chunks WHERE seq = 1',
    );
    expect(chunk?.attempts).toBe(4);
    w.child.kill('SIGTERM');
    await w.exited;
  }, 120_000);
});

describe('two coordinators of one job started at the same moment', () => {
  it('lets one run it and refuses the other as LOCKED, not as a database error', async () => {
    const url = await postgres.database();
    const both = [
      coordinator(url, 'twice', '--chunk-rows', '1000', '--no-cache'),
      coordinator(url, 'twice', '--chunk-rows', '1000', '--no-cache'),
    ];
    const codes = await Promise.all(both.map((c) => c.exited));
    expect([...codes].sort(), both.map((c) => c.err()).join('\n')).toEqual([1, 3]);
    const refused = both[codes.indexOf(1)]?.err() ?? '';
    // One process's lock on the output, or the run's claim in the database: LOCKED either way.
    expect(refused).toMatch(/LOCKED/);
    expect(refused).not.toMatch(/QUEUE_UNUSABLE|duplicate key/);
    expect(files('twice')).toEqual(single);
  }, 180_000);
});

describe('workers restarted one after another (SIGTERM or SIGHUP each)', () => {
  it('hand their chunk back without using up its attempts, and the run ends as a single run does', async () => {
    const url = await postgres.database();
    const run = coordinator(
      url,
      'rolling',
      '--no-work',
      '--chunk-rows',
      '3000',
      '--rate',
      '300',
      '--no-cache',
    );
    // Five hand-backs of the one chunk: more than its four attempts, were they counted.
    for (let round = 0; round < 5; round++) {
      const w = worker(url, bench.env);
      await waitFor(() => w.err(), /Working on run/, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // SIGHUP (its terminal closed, its SSH session dropped) stops a worker as SIGTERM does.
      w.child.kill(round % 2 === 0 ? 'SIGTERM' : 'SIGHUP');
      expect(await w.exited, w.err()).toBe(0);
      expect(w.err()).toMatch(/worker: 0 chunks done, 0 failed, 1 handed back/);
    }
    const last = worker(url, bench.env);
    expect(await run.exited, run.err()).toBe(3);
    expect(files('rolling')).toEqual(single);
    const [chunk] = await query<{ attempts: number }>(url, 'SELECT attempts FROM geobatch_queue.chunks');
    expect(chunk?.attempts).toBeGreaterThanOrEqual(5);
    last.child.kill('SIGTERM');
    await last.exited;
  }, 180_000);
});

describe('a run started afresh while workers still hold the earlier one', () => {
  it('is worked on: a worker drops what it knew of the run and takes the new one', async () => {
    const url = await postgres.database();
    const first = coordinator(url, 'restart', '--no-work', '--chunk-rows', '100', '--rate', '300');
    const w = worker(url, bench.env);
    await untilDone(url, 2);
    first.child.kill('SIGKILL');
    await first.exited;
    // Starting over, as the refusal to overwrite a checkpoint says: its files go, the run is new.
    for (const name of readdirSync(join(bench.dir, 'out')))
      if (name.startsWith('restart.')) rmSync(join(bench.dir, 'out', name), { force: true });
    const again = coordinator(url, 'restart', '--no-work', '--chunk-rows', '100');
    expect(await again.exited, again.err()).toBe(3);
    expect(files('restart')).toEqual(single);
    w.child.kill('SIGTERM');
    await w.exited;
  }, 180_000);
});

describe('a run started over for changed input after its coordinator crashed', () => {
  it('replaces the crashed run: its chunks are not bought beside the new one, and the worker goes idle', async () => {
    const url = await postgres.database();
    const input = join(bench.dir, 'input.csv');
    const output = join(bench.dir, 'out', 'nightly.csv');
    // The old run slow (40 requests a second), the new one fast: what the old one buys after the
    // new one began would show as requests once the new one has ended.
    const first = coordinator(
      url,
      'nightly',
      '--no-work',
      '--chunk-rows',
      '100',
      '--rate',
      '40',
      '--no-cache',
    );
    const w = worker(url, bench.env);
    try {
      await untilDone(url, 1);
      first.child.kill('SIGKILL');
      await first.exited;
      // Tonight's file: the same path, written again (another modification time, another run id).
      const later = new Date(Date.now() + 60_000);
      utimesSync(input, later, later);
      const again = coordinator(
        url,
        'nightly',
        '--resume',
        '--restart-if-changed',
        '--no-work',
        '--chunk-rows',
        '100',
        '--rate',
        '600',
        '--no-cache',
      );
      expect(await again.exited, again.err()).toBe(3);
      expect(files('nightly')).toEqual(single);
      expect(again.err()).toMatch(
        /Run [0-9a-f]{16} wrote these files before \(started [^,]+, its coordinator gone, \d+ of \d+ chunks done\)/,
      );
      const runs = await query<{ state: string }>(url, 'SELECT state FROM geobatch_queue.runs');
      expect(runs).toEqual([{ state: 'done' }]);
      // The worker let the old run go: nothing more is bought.
      const served = bench.emulator.requestLog().length;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(bench.emulator.requestLog().length - served).toBe(0);
      expect(existsSync(`${output}.checkpoint.json`)).toBe(false);
    } finally {
      w.child.kill('SIGTERM');
      await w.exited;
    }
    // What it bought for the dropped run's chunks in hand is said as that, not as a chunk's end
    // the database did not take or another worker had done (a review saw 215 and 179 so).
    expect(w.err()).not.toContain("in no chunk's count");
    expect(w.err()).toMatch(
      /"msg":"\d+ HTTP request\(s\) this worker made for run [0-9a-f]{16} are counted by no run: the run was dropped \(a run writing the same files replaced it\) while this worker held chunks of it"/,
    );
  }, 180_000);
});

describe('a distributed run over records with more than one default point', () => {
  it('warns once, from the coordinator that reads them, not from each worker or chunk', async () => {
    // A single run warns at the first record holding lat, lon and latitude, longitude
    // (run/_default-points.ts); a queued run reads its input in the coordinator, as a single run
    // does, and its workers see only chunks: the warning is the coordinator's, once.
    const url = await postgres.database();
    const input = join(bench.dir, 'ambiguous.ndjson');
    const records = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({
        id: i + 1,
        lat: 49 + i / 100,
        lon: 8.4,
        ...(i >= 12 ? { latitude: 48.1, longitude: 11.5 } : {}),
      }),
    );
    writeFileSync(input, `${records.join('\n')}\n`);
    const file = join(bench.dir, 'ambiguous.yaml');
    writeFileSync(file, `job: elevation\ninput: ${input}\noutput: out/ambiguous.ndjson\n`);
    const workers = [worker(url, bench.env), worker(url, bench.env)];
    const run = cli(
      [
        'run',
        file,
        '-o',
        join(bench.dir, 'out', 'ambiguous.ndjson'),
        '--queue',
        url,
        '--no-work',
        '--chunk-rows',
        '5',
        '--no-progress',
        '--no-report',
        '--log-format',
        'json',
      ],
      bench.env,
    );
    expect(await run.exited, run.err()).toBe(0);
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    const warned = (text: string) => text.split('\n').filter((line) => line.includes('more than one key'));
    const [warning, ...more] = warned(run.err());
    expect(more).toEqual([]);
    expect(JSON.parse(warning ?? '{}')).toMatchObject({
      level: 'warn',
      msg: expect.stringMatching(
        /^row 13 of the input has more than one key a point is read from by default/,
      ),
    });
    // Every chunk was worked by a worker, none of which said it again.
    expect(workers.map((w) => w.err()).join('')).toMatch(/Working on run/);
    expect(warned(workers.map((w) => w.err()).join(''))).toEqual([]);
  }, 120_000);
});

describe('a distributed run of a file mapped with longitude and latitude swapped', () => {
  it('warns as a single run does: early in the log, and in the summary with the whole run figures', async () => {
    const url = await postgres.database();
    const swapped = join(bench.dir, 'swapped.yaml');
    writeFileSync(
      swapped,
      [
        'job: elevation',
        `input: ${join(ROOT, 'samples/places.csv')}`,
        'output: out/swapped.csv',
        'mapping: { lon: lat, lat: lon }',
        '',
      ].join('\n'),
    );
    const run = (which: string, ...more: string[]) =>
      cli(
        [
          'run',
          swapped,
          '-o',
          join(bench.dir, 'out', `swapped-${which}.csv`),
          '--no-progress',
          '--no-report',
          '--no-cache',
          '--log-format',
          'json',
          ...more,
        ],
        bench.env,
      );
    const one = run('single');
    const code = await one.exited;
    expect([0, 3], one.err()).toContain(code);
    const queued = run('queued', '--queue', url, '--chunk-rows', '300');
    expect(await queued.exited, queued.err()).toBe(code);
    const read = (which: string, suffix = '') =>
      readFileSync(join(bench.dir, 'out', `swapped-${which}.csv${suffix}`), 'utf8');
    expect(read('queued')).toBe(read('single'));
    const warnings = (which: string) =>
      (JSON.parse(read(which, '.summary.json')) as { warnings: unknown[] }).warnings;
    expect(warnings('single')).toEqual([
      expect.objectContaining({ kind: 'coordinates-swapped', rows: 2002, rowsRead: 2004, exampleRow: 1 }),
    ]);
    expect(warnings('queued')).toEqual(warnings('single'));
    // Told while the run goes on, once its first chunk's rows are counted, and with the final figures.
    const told = queued
      .err()
      .split('\n')
      .filter((line) => line.includes('"coordinates-swapped"'))
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(told).toEqual([
      expect.stringMatching(/^longitude and latitude look swapped: of the first 300 rows, 299 read a point/),
      (warnings('single')[0] as { message: string }).message,
    ]);
  }, 120_000);
});

describe('status while the first chunks are in flight', () => {
  it('lists the workers at work from the chunk they took, before they end one', async () => {
    const url = await postgres.database();
    // 20 requests a second against 200-row chunks: a chunk takes about 10 s.
    const run = coordinator(url, 'slow-status', '--chunk-rows', '200', '--rate', '20');
    try {
      let seen: { chunks: { done: number; inFlight: number }; workers: { worker: string }[] } | undefined;
      for (const until = Date.now() + 40_000; Date.now() < until; ) {
        const status = cli(['status', '--queue', url, '--json'], bench.env);
        if ((await status.exited) === 0) {
          const runs = JSON.parse(status.out()) as NonNullable<typeof seen>[];
          seen = runs[0];
          if (seen !== undefined && seen.chunks.inFlight > 0) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(seen?.chunks).toMatchObject({ done: 0, inFlight: expect.any(Number) });
      expect(seen?.chunks.inFlight).toBeGreaterThan(0);
      expect(seen?.workers.length).toBeGreaterThan(0);
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
    }
  }, 90_000);
});

/**
 * The coordinator stopped while it reads its input. The reader ends quietly when the run's signal
 * stops it, as it does at the input's end; the coordinator must take that for the stop it is:
 * the signal's reason (the log file's IO_ERROR) or ABORTED (Ctrl-C), never an input that ended
 * there, and the run kept in the queue database to be resumed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logWriteError } from '../../src/cli/_log-file.js';
import { createCounters } from '../../src/engine/counters.js';
import type { AnyJob } from '../../src/engine/job.js';
import { isGeobatchError, UsageError } from '../../src/errors.js';
import { openCoordinator } from '../../src/queue/coordinator.js';
import { openQueueDatabase, type QueueDatabase } from '../../src/queue/database.js';
import { openSharedGate, type SharedLimits } from '../../src/queue/rate.js';
import { targetsOf } from '../../src/queue/runs.js';
import type { Outcome, ReadItem } from '../../src/types.js';
import { PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterAll(async () => {
  await postgres?.stop();
});

interface Session {
  readonly url?: string;
  readonly resume?: boolean;
  readonly limits?: SharedLimits;
  /** Where the coordinator's log goes. @default silent */
  readonly logger?: pino.Logger;
  readonly noWorkerMs?: number;
  /** What the run writes (runs.ts, targetsOf). @default null */
  readonly targets?: readonly string[] | null;
}

const NO_RATE: SharedLimits = { global: null, interfaces: {} };

const row = (index: number): ReadItem => ({
  kind: 'row',
  ref: { index, line: index + 2 },
  fields: { street: 'Hauptstraße', housenumber: String(index + 1), plz: '76133', city: 'Karlsruhe' },
});

/**
 * A run's coordinator, as `geobatch run --queue --no-work` opens it: on a fresh queue database
 * unless `url` names one, with no rate unless `limits` give one.
 */
async function coordinatorOf(id: string, { resume = false, limits = NO_RATE, ...given }: Session = {}) {
  const url = given.url ?? (await postgres.database());
  const logger = given.logger ?? pino({ level: 'silent' });
  const db: QueueDatabase = await openQueueDatabase(url, { logger: pino({ level: 'silent' }) });
  const coordinator = openCoordinator({
    db,
    url,
    id,
    job: { kind: 'geocode' } as unknown as AnyJob,
    jobName: 'geocode',
    recipe: {
      file: '/jobs/geocode.yaml',
      text: 'job: geocode\n',
      overrides: {},
      emulator: false,
      cache: { location: false },
    },
    files: [],
    chunkRows: 100,
    targets: given.targets ?? null,
    resume,
    limits,
    logger,
    ...(given.noWorkerMs === undefined ? {} : { noWorkerMs: given.noWorkerMs }),
  });
  return {
    coordinator,
    query: (sql: string) => postgres.query(url, sql),
    async close() {
      await coordinator.close();
      await db.close();
    },
  };
}

/**
 * Drives the coordinator over `items` until it ends: resolves to the error it stopped with, or
 * undefined when it took the items for the whole input.
 */
async function stopOf(
  coordinator: ReturnType<typeof openCoordinator>,
  items: AsyncIterable<ReadItem>,
  signal: AbortSignal,
): Promise<unknown> {
  const outcomes: Outcome[] = [];
  try {
    for await (const outcome of coordinator.process(items, {
      counters: createCounters(),
      stepCounters: undefined,
      signal,
    }))
      outcomes.push(outcome);
  } catch (error) {
    return error;
  }
  expect(outcomes).toEqual([]);
  return undefined;
}

/** What the coordinator ends with when Ctrl-C stops it before the first row. */
function interruptedAtStart(coordinator: ReturnType<typeof openCoordinator>): Promise<unknown> {
  const stop = new AbortController();
  return stopOf(coordinator, stoppedAfter(0, stop, new UsageError('stopped by SIGINT')), stop.signal);
}

/** The rows given, then the signal aborted with `reason`, and the end the reader then comes to. */
async function* stoppedAfter(rows: number, stop: AbortController, reason: unknown): AsyncGenerator<ReadItem> {
  for (let index = 0; index < rows; index++) yield row(index);
  stop.abort(reason);
}

describe('a coordinator stopped while it reads its input', () => {
  it('stops with the signal’s fatal reason (a log file that failed), storing no part chunk', async () => {
    const { coordinator, query, close } = await coordinatorOf('log-failed');
    try {
      const cause = Object.assign(new Error('EPIPE: broken pipe, write'), {
        code: 'EPIPE',
        syscall: 'write',
      });
      const failure = logWriteError('/var/log/geobatch.log', cause);
      const stop = new AbortController();
      const error = await stopOf(coordinator, stoppedAfter(3, stop, failure), stop.signal);
      expect(isGeobatchError(error) && error.code).toBe('IO_ERROR');
      expect(isGeobatchError(error) && error.context).toEqual({
        field: 'log-file',
        file: '/var/log/geobatch.log',
        hint: 'Start again what reads /var/log/geobatch.log (it closed its end), or name another --log-file, then run again with --resume.',
      });
      // The three rows in hand are no chunk (a part chunk may end inside a trip), and the input's
      // size is not known: it was not read to its end.
      expect(await query('SELECT count(*)::int AS n FROM geobatch_queue.chunks')).toEqual([{ n: 0 }]);
      expect(await query('SELECT state, chunks, error FROM geobatch_queue.runs')).toEqual([
        { state: 'stopped', chunks: null, error: { code: 'IO_ERROR', message: failure.message } },
      ]);
    } finally {
      await close();
    }
  });

  it('stops with ABORTED on Ctrl-C before its first row, not as an input without rows, keeping the run', async () => {
    const { coordinator, query, close } = await coordinatorOf('interrupted');
    try {
      const error = await interruptedAtStart(coordinator);
      expect(isGeobatchError(error) && error.code).toBe('ABORTED');
      expect(isGeobatchError(error) && error.context).toEqual({
        hint: 'Run again with --resume to continue from the checkpoint.',
      });
      // Stopped, not done: `--resume` takes the run back with whatever it has.
      expect(await query('SELECT state, chunks FROM geobatch_queue.runs')).toEqual([
        { state: 'stopped', chunks: null },
      ]);
    } finally {
      await close();
    }
  });
});

describe('the rates of a resumed run', () => {
  /** One session of the run: its coordinator claims the run, then Ctrl-C stops it. */
  async function session(url: string, resume: boolean, limits: SharedLimits): Promise<void> {
    const { coordinator, close } = await coordinatorOf('rated', { url, resume, limits });
    try {
      const error = await interruptedAtStart(coordinator);
      expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    } finally {
      await close();
    }
  }

  const rates = (url: string) =>
    postgres.query(
      url,
      "SELECT scope, ceiling, rate FROM geobatch_queue.rates WHERE run = 'rated' AND scope IN ('global', 'geocoding') ORDER BY scope",
    );

  it('are those the resuming command line gives: its --rate, else its job file\u2019s', async () => {
    const url = await postgres.database();
    // The first session, with --rate 20, and a worker that joined the run's rates then.
    await session(url, false, { global: 20, interfaces: {} });
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const limits = { global: 20, interfaces: {} };
    await (await openSharedGate({ pool, schema: 'geobatch_queue', run: 'rated', limits })).close();
    await pool.end();
    expect(await rates(url)).toEqual([
      { scope: 'geocoding', ceiling: null, rate: null },
      { scope: 'global', ceiling: 20, rate: 20 },
    ]);
    // Resumed with --rate 300, from a job file that limits geocoding to 40/s (see rate.test.ts for
    // the workers at work learning them).
    await session(url, true, { global: 300, interfaces: { geocoding: 40 } });
    expect(await rates(url)).toEqual([
      { scope: 'geocoding', ceiling: 40, rate: 40 },
      { scope: 'global', ceiling: 300, rate: 300 },
    ]);
    // Resumed again without --rate, from a job file without rates: no limit, as for a single run.
    await session(url, true, NO_RATE);
    expect(await rates(url)).toEqual([
      { scope: 'geocoding', ceiling: null, rate: null },
      { scope: 'global', ceiling: null, rate: null },
    ]);
  });
});

describe('a coordinator whose chunks no worker finishes', () => {
  /** A logger whose warnings are kept, as `{ msg, chunk, state }`. */
  function warnings() {
    const kept: { msg: string; chunk?: number; state?: string }[] = [];
    const logger = pino(
      { level: 'warn', base: null, timestamp: false },
      {
        write(line: string) {
          const { msg, chunk, state } = JSON.parse(line) as (typeof kept)[number];
          kept.push({ msg, chunk, state });
        },
      },
    );
    return { kept, logger };
  }

  /** Three rows: one chunk, stored as the input ends, which the coordinator then waits on. */
  async function* threeRows(): AsyncGenerator<ReadItem> {
    for (let index = 0; index < 3; index++) yield row(index);
  }

  const until = async (done: () => boolean, ms: number) => {
    for (const end = Date.now() + ms; !done() && Date.now() < end; )
      await new Promise((resolve) => setTimeout(resolve, 100));
  };

  it('says no worker has taken the chunk, and how to start one, after the time given and again after twice as long', async () => {
    const { kept, logger } = warnings();
    const url = await postgres.database();
    const { coordinator, close } = await coordinatorOf('unworked', { url, logger, noWorkerMs: 1500 });
    const stop = new AbortController();
    // A command that runs as printed: the password goes in PGPASSWORD, not as `***` in the URL.
    const bare = url.replace(/:[^:@/]+@/, '@');
    const warning = (waited: string) => ({
      msg: `No worker has taken chunk 0 in ${waited}; still waiting. Start one where the database and the service can be reached: \`geobatch worker --queue ${bare}\`, with the password in PGPASSWORD or ~/.pgpass`,
      chunk: 0,
      state: 'queued',
    });
    try {
      const stopped = stopOf(coordinator, threeRows(), stop.signal);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(kept).toEqual([]);
      await until(() => kept.length > 0, 5000);
      expect(kept).toEqual([warning('1.5 s')]);
      // Still waiting: said again at 3 s, and not before 6 s.
      await until(() => kept.length > 1, 5000);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(kept).toEqual([warning('1.5 s'), warning('3 s')]);
      expect(JSON.stringify(kept)).not.toContain(PASSWORD);
      stop.abort(new UsageError('stopped by SIGINT'));
      const error = await stopped;
      expect(isGeobatchError(error) && error.code).toBe('ABORTED');
    } finally {
      stop.abort();
      await close();
    }
  });

  it('leaves a password in the URL’s query out of the worker command, and quotes the URL for a shell', async () => {
    const { kept, logger } = warnings();
    const given = new URL(await postgres.database());
    const bare = `postgres://postgres@${given.host}${given.pathname}?sslmode=disable&application_name=a%20b`;
    // pg takes `password` from the query as it takes it from the user info.
    const url = `${bare}&password=${PASSWORD}&sslpassword=${PASSWORD}-key`;
    const { coordinator, close } = await coordinatorOf('query-password', { url, logger, noWorkerMs: 1000 });
    const stop = new AbortController();
    try {
      const stopped = stopOf(coordinator, threeRows(), stop.signal);
      await until(() => kept.length > 0, 5000);
      expect(JSON.stringify(kept)).not.toContain(PASSWORD);
      const msg = kept[0]?.msg ?? '';
      expect(msg).toBe(
        `No worker has taken chunk 0 in 1 s; still waiting. Start one where the database and the service can be reached: \`geobatch worker --queue '${bare}'\`, with the password in PGPASSWORD or ~/.pgpass`,
      );
      // Pasted into sh as printed, the command gives the worker the URL as one argument.
      const command = /`([^`]+)`/.exec(msg)?.[1] ?? '';
      const shell = spawnSync('sh', ['-c', `geobatch() { printf '%s\\n' "$@"; }; ${command}`], {
        encoding: 'utf8',
      });
      expect({ status: shell.status, argv: shell.stdout.split('\n').slice(0, -1) }).toEqual({
        status: 0,
        argv: ['worker', '--queue', bare],
      });
      stop.abort(new UsageError('stopped by SIGINT'));
      await stopped;
    } finally {
      stop.abort();
      await close();
    }
  });

  it('says a worker has taken the chunk when one has, and may be retrying what fails', async () => {
    const { kept, logger } = warnings();
    const { coordinator, query, close } = await coordinatorOf('stuck', { logger, noWorkerMs: 1500 });
    const stop = new AbortController();
    try {
      const stopped = stopOf(coordinator, threeRows(), stop.signal);
      // A worker took the chunk and is at it still.
      for (let n = 0; n === 0; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        n = (
          await query("UPDATE geobatch_queue.chunks SET state = 'active' WHERE run = 'stuck' RETURNING seq")
        ).length;
      }
      await until(() => kept.length > 0, 5000);
      expect(kept).toEqual([
        {
          msg: "No chunk done for 1.5 s, though a worker has taken chunk 0: it may be retrying requests that fail (a service its address or network cannot reach, say); see that worker's log",
          chunk: 0,
          state: 'active',
        },
      ]);
      stop.abort(new UsageError('stopped by SIGINT'));
      await stopped;
    } finally {
      stop.abort();
      await close();
    }
  });
});

describe('a run started for the files an earlier run wrote', () => {
  /** A logger whose warnings are kept, as `{ msg, replaced }`. */
  function warnings() {
    const kept: { msg: string; replaced?: string }[] = [];
    const logger = pino(
      { level: 'warn', base: null, timestamp: false },
      {
        write(line: string) {
          const { msg, replaced } = JSON.parse(line) as (typeof kept)[number];
          kept.push({ msg, replaced });
        },
      },
    );
    return { kept, logger };
  }

  /**
   * A session of run `id` holding one chunk, queued, as a coordinator killed with -9 leaves it
   * (or, with `state`, one that stopped).
   */
  async function leftBehind(
    url: string,
    id: string,
    coordinator: string,
    { targets = ['the-files'], state = 'running' }: { targets?: readonly string[]; state?: string } = {},
  ) {
    const session = await coordinatorOf(id, { url, targets });
    const stop = new AbortController();
    const stopped = stopOf(session.coordinator, threeRows(), stop.signal);
    await chunkStored(session, id);
    // Its coordinator is another process now: one that died on this machine, or one elsewhere.
    await session.query(
      `UPDATE geobatch_queue.runs SET coordinator = '${coordinator}', state = '${state}' WHERE id = '${id}'`,
    );
    return {
      async end() {
        stop.abort(new UsageError('stopped by SIGINT'));
        await stopped;
        await session.close();
      },
    };
  }

  /** Three rows: one chunk, stored as the input ends, which the coordinator then waits on. */
  async function* threeRows(): AsyncGenerator<ReadItem> {
    for (let index = 0; index < 3; index++) yield row(index);
  }

  const jobs = (url: string, id: string) =>
    postgres.query(url, `SELECT state FROM geobatch_boss.job WHERE name = 'geobatch-chunks-${id}'`);

  type Started = Awaited<ReturnType<typeof coordinatorOf>>;

  /** Waits until run `id` has stored its chunk. */
  async function chunkStored(session: Started, id: string): Promise<void> {
    for (let n = 0; n === 0; await new Promise((resolve) => setTimeout(resolve, 100)))
      n = (await session.query(`SELECT seq FROM geobatch_queue.chunks WHERE run = '${id}'`)).length;
  }

  /**
   * Run `id` started for `targets` beside `earlier`: `check` once the claim is settled (its chunk
   * stored, or, for a claim refused, once it ended); then stopped with Ctrl-C, and both closed.
   * Resolves to the error the new run ended with.
   */
  async function startedBeside(
    earlier: { end(): Promise<void> },
    id: string,
    {
      url,
      targets,
      logger,
      refused = false,
    }: { url: string; targets: readonly string[] | null; logger?: pino.Logger; refused?: boolean },
    check: (now: Started, ended: unknown) => Promise<void>,
  ): Promise<unknown> {
    const now = await coordinatorOf(id, { url, targets, ...(logger === undefined ? {} : { logger }) });
    const stop = new AbortController();
    try {
      const stopped = stopOf(now.coordinator, threeRows(), stop.signal);
      if (refused) {
        const error = await stopped;
        await check(now, error);
        return error;
      }
      await chunkStored(now, id);
      await check(now, undefined);
      stop.abort(new UsageError('stopped by SIGINT'));
      return await stopped;
    } finally {
      stop.abort();
      await now.close();
      await earlier.end();
    }
  }

  it('replaces one whose coordinator died: its queued chunks are cancelled and the run dropped, with a warning', async () => {
    const url = await postgres.database();
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const earlier = await leftBehind(url, 'last-night', `${hostname()}:${dead}`);
    const { kept, logger } = warnings();
    const error = await startedBeside(
      earlier,
      'tonight',
      { url, targets: ['the-files'], logger },
      async (now) => {
        expect(await now.query('SELECT id, state FROM geobatch_queue.runs ORDER BY id')).toEqual([
          { id: 'tonight', state: 'running' },
        ]);
        expect(await jobs(url, 'last-night')).toEqual([{ state: 'cancelled' }]);
        expect(await jobs(url, 'tonight')).toEqual([{ state: 'created' }]);
        expect(kept).toEqual([
          {
            msg: expect.stringMatching(
              /^Run last-night wrote these files before \(started \S+, its coordinator gone, 0 of 1 chunks done\): no session can finish it now, so its chunks still queued are cancelled and the run is dropped$/,
            ),
            replaced: 'last-night',
          },
        ]);
      },
    );
    expect(isGeobatchError(error) && error.code).toBe('ABORTED');
  });

  it('leaves one whose coordinator is alive, refusing as LOCKED', async () => {
    const url = await postgres.database();
    const earlier = await leftBehind(url, 'still-going', 'another-host:4711');
    const settings = { url, targets: ['the-files'], refused: true };
    const error = await startedBeside(earlier, 'second', settings, async (now) => {
      expect(await now.query('SELECT id, state FROM geobatch_queue.runs')).toEqual([
        { id: 'still-going', state: 'running' },
      ]);
      expect(await jobs(url, 'still-going')).toEqual([{ state: 'created' }]);
    });
    expect(isGeobatchError(error) && error.code).toBe('LOCKED');
    expect(isGeobatchError(error) && error.message).toBe(
      `Another coordinator (another-host:4711) is writing these files on ${url.replace(/:[^:@/]+@/, ':***@')}`,
    );
  });

  it('replaces a stopped one that wrote any of the same files, not only one that wrote the same list', async () => {
    const url = await postgres.database();
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-overlap-'));
    const both = targetsOf({ outputs: [join(dir, 'a.csv'), join(dir, 'a.ndjson')] }) ?? [];
    const earlier = await leftBehind(url, 'two-outputs', 'another-host:4711', {
      targets: both,
      state: 'stopped',
    });
    const { kept, logger } = warnings();
    const targets = targetsOf({ outputs: [join(dir, 'a.csv')] });
    await startedBeside(earlier, 'one-output', { url, targets, logger }, async (now) => {
      expect(await now.query('SELECT id, state FROM geobatch_queue.runs ORDER BY id')).toEqual([
        { id: 'one-output', state: 'running' },
      ]);
      expect(await jobs(url, 'two-outputs')).toEqual([{ state: 'cancelled' }]);
      expect(kept).toEqual([
        {
          msg: expect.stringMatching(
            /^Run two-outputs wrote these files before \(started \S+, stopped, 0 of 1 chunks done\): no session can finish it now, so its chunks still queued are cancelled and the run is dropped$/,
          ),
          replaced: 'two-outputs',
        },
      ]);
    });
  });

  it('counts the files in common when the new run writes more, and takes the error report for one of them', async () => {
    const url = await postgres.database();
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-overlap-'));
    const earlierTargets =
      targetsOf({ outputs: [join(dir, 'b.csv')], others: [join(dir, 'errors.csv')] }) ?? [];
    const earlier = await leftBehind(url, 'b-run', 'another-host:4711', {
      targets: earlierTargets,
      state: 'stopped',
    });
    const { kept, logger } = warnings();
    const targets = targetsOf({
      outputs: [join(dir, 'a.csv')],
      others: [join(dir, 'errors.csv'), join(dir, 'a.html')],
    });
    await startedBeside(earlier, 'a-run', { url, targets, logger }, async (now) => {
      expect(await now.query('SELECT id FROM geobatch_queue.runs ORDER BY id')).toEqual([{ id: 'a-run' }]);
      expect(kept.map((warning) => warning.msg)).toEqual([
        expect.stringMatching(/^Run b-run wrote 1 of these 3 files before \(started \S+, stopped, /),
      ]);
    });
  });

  it('leaves a stopped one whose files are all others, to be resumed', async () => {
    const url = await postgres.database();
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-overlap-'));
    const other = targetsOf({ outputs: [join(dir, 'b.csv'), join(dir, 'b.ndjson')] }) ?? [];
    const earlier = await leftBehind(url, 'other-files', 'another-host:4711', {
      targets: other,
      state: 'stopped',
    });
    const { kept, logger } = warnings();
    const targets = targetsOf({ outputs: [join(dir, 'a.csv')] });
    await startedBeside(earlier, 'these-files', { url, targets, logger }, async (now) => {
      expect(await now.query('SELECT id, state FROM geobatch_queue.runs ORDER BY id')).toEqual([
        { id: 'other-files', state: 'stopped' },
        { id: 'these-files', state: 'running' },
      ]);
      expect(await jobs(url, 'other-files')).toEqual([{ state: 'created' }]);
      expect(kept).toEqual([]);
    });
  });

  it('refuses as LOCKED when a live coordinator writes one of the files', async () => {
    const url = await postgres.database();
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-overlap-'));
    const both = targetsOf({ outputs: [join(dir, 'a.csv'), join(dir, 'a.ndjson')] }) ?? [];
    const earlier = await leftBehind(url, 'alive-two', 'another-host:4711', { targets: both });
    const targets = targetsOf({ outputs: [join(dir, 'a.ndjson')] });
    const error = await startedBeside(earlier, 'alive-one', { url, targets, refused: true }, async (now) => {
      expect(await now.query('SELECT id, state FROM geobatch_queue.runs')).toEqual([
        { id: 'alive-two', state: 'running' },
      ]);
    });
    expect(isGeobatchError(error) && error.code).toBe('LOCKED');
  });
});

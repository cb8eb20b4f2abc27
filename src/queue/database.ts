/**
 * The queue database of a distributed run: one PostgreSQL reached by its URL, holding geobatch's
 * tables (`geobatch_queue`) and pg-boss's (`geobatch_boss`). Every failure to reach or use it
 * becomes QUEUE_UNUSABLE (see _db-errors.ts).
 */

import pg from 'pg';
import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import { maskPassword } from '../cache/_pg-url.js';
import { IoError } from '../errors.js';
import { scrub } from '../secrets.js';
import { queueError } from './_db-errors.js';
import { ensureRateTable } from './_rate-sql.js';
import { BOSS_SCHEMA, migrate, SCHEMA } from './_schema.js';

export { guarded, isDatabaseGone, ONCE_FIXED, queueError } from './_db-errors.js';

/**
 * A worker that stops sending heartbeats (kill -9, a machine gone) has its chunk handed to
 * another after this long, plus up to one supervision pass. pg-boss's floor is 10 s.
 */
export const HEARTBEAT_SECONDS = 10;
/** How often some process checks for missed heartbeats; each process does it. */
const SUPERVISE_SECONDS = 5;
/**
 * Attempts of one chunk before it is reported as failed: a chunk that kills its worker every
 * time (a bug, memory) must not go round for ever.
 */
export const CHUNK_ATTEMPTS = 4;

/** Each run's chunks go through a pg-boss queue of its own, made with these settings. */
export const CHUNK_QUEUE_OPTIONS = {
  heartbeatSeconds: HEARTBEAT_SECONDS,
  retryLimit: CHUNK_ATTEMPTS - 1,
  retryDelay: 1,
  // A chunk at a slow contract rate may take hours; the heartbeat finds dead workers.
  expireInSeconds: 24 * 3600,
  deleteAfterSeconds: 7 * 24 * 3600,
} as const;

export interface QueueDatabase {
  /** The URL as messages show it: the password masked. */
  readonly shown: string;
  /** What to run once the database is fixed, for hints (see OpenOptions.onceFixed). */
  readonly onceFixed: string | undefined;
  readonly pool: pg.Pool;
  readonly boss: PgBoss;
  close(): Promise<void>;
}

export interface OpenOptions {
  readonly logger?: Logger;
  /** pg pool size. @default 4 */
  readonly connections?: number;
  /**
   * What the user runs once the database is fixed, for the hints of errors after it opened (one
   * of ONCE_FIXED). A failure to open gets none: no run may exist yet to resume.
   * @default nothing: the command is run again as it was
   */
  readonly onceFixed?: string;
  /**
   * A query the database does not answer within this fails as the database gone: a frozen host
   * or a network that drops packets answers nothing and refuses nothing, and every process of the
   * run waited for it forever, its run ended but never exited. @default 30,000 ms
   */
  readonly queryTimeoutMs?: number;
}

/** How long closing may wait for the database: a frozen one never lets go of its queries. */
const CLOSE_MS = 5000;

/** Connects, creates or migrates the schema, and starts pg-boss (its chunk queue included). */
export async function openQueueDatabase(url: string, options: OpenOptions = {}): Promise<QueueDatabase> {
  const shown = maskPassword(url);
  const unanswered = {
    connectionTimeoutMillis: 10_000,
    query_timeout: options.queryTimeoutMs ?? 30_000,
    // The kernel then notices a peer gone without a word, for connections idle between queries.
    keepAlive: true,
  };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.connections ?? 4,
    application_name: 'geobatch',
    ...unanswered,
  });
  // An idle client that loses its connection emits here; the next query reports it.
  pool.on('error', (error) =>
    options.logger?.warn({ err: scrub(error.message) }, 'Queue database connection lost'),
  );
  let doing = 'connecting';
  try {
    const client = await pool.connect();
    doing = 'setting up its tables';
    try {
      const result = await migrate(client);
      if (result !== 'ok') {
        throw new IoError(
          'QUEUE_UNUSABLE',
          result === 'foreign'
            ? `The queue database ${shown} has a geobatch_queue schema that another program made`
            : `The queue database ${shown} was set up by a newer geobatch`,
          {
            path: shown,
            hint:
              result === 'foreign'
                ? 'use another database for the queue'
                : 'run the same geobatch version on every machine of the run',
          },
        );
      }
      // The shared rate's table too, as a worker's first gate would make it: prune and status
      // then find every table, whether a worker ever ran or not.
      await ensureRateTable(client, SCHEMA);
    } finally {
      client.release();
    }
  } catch (error) {
    await pool.end().catch(() => {});
    throw queueError(shown, doing, error);
  }
  const boss = new PgBoss({
    connectionString: url,
    schema: BOSS_SCHEMA,
    max: 2,
    application_name: 'geobatch-boss',
    ...unanswered,
    superviseIntervalSeconds: SUPERVISE_SECONDS,
    monitorIntervalSeconds: SUPERVISE_SECONDS,
    schedule: false,
  });
  boss.on('error', (error: Error) =>
    options.logger?.warn({ err: scrub(error.message) }, 'Queue (pg-boss) reported an error'),
  );
  try {
    await boss.start();
  } catch (error) {
    await boss.stop({ graceful: false }).catch(() => {});
    await pool.end().catch(() => {});
    throw queueError(shown, 'starting the job queue', error);
  }
  let closed = false;
  return {
    shown,
    onceFixed: options.onceFixed,
    pool,
    boss,
    async close() {
      if (closed) return;
      closed = true;
      await bounded(boss.stop({ graceful: true, timeout: CLOSE_MS }));
      await bounded(pool.end());
    },
  };
}

/** Waits for `closing` at most CLOSE_MS: a process that ends must not wait on a frozen database. */
async function bounded(closing: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_MS);
    timer.unref();
  });
  await Promise.race([closing.catch(() => {}), late]);
  clearTimeout(timer);
}

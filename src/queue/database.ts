/**
 * The queue database of a distributed run: one PostgreSQL reached by its URL, holding geobatch's
 * tables (`geobatch_queue`) and pg-boss's (`geobatch_boss`). Every failure to reach or use it
 * becomes QUEUE_UNUSABLE (see _db-errors.ts).
 */

import pg from 'pg';
import { PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import {
  bounded,
  closeFailed,
  closePool,
  PgSockets,
  unanswered,
  unansweredElsewhere,
} from '../cache/_pg-unanswered.js';
import { maskPassword } from '../cache/_pg-url.js';
import { quietPgpass } from '../cache/_pgpass.js';
import { IoError } from '../errors.js';
import { scrub } from '../secrets.js';
import { queueError } from './_db-errors.js';
import { ensureRateTable } from './_rate-sql.js';
import { BOSS_SCHEMA, migrate, SCHEMA } from './_schema.js';

export { guarded, isDatabaseGone, isUnanswered, ONCE_FIXED, queueError } from './_db-errors.js';

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
  /**
   * The failure that showed the database not answering (frozen, a network that drops packets),
   * once one has: what shares this handle then stops without waiting on writes that would each
   * wait as long again.
   */
  lost(): IoError | undefined;
  /** Records `error` as the database not answering (the first one is kept), aborting `gone`. */
  lose(error: IoError): void;
  /** Aborted, with that error, once the database is known not to answer. */
  readonly gone: AbortSignal;
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

/** How long pg-boss's stop may wait for its work: a frozen database never lets go of its queries. */
const CLOSE_MS = 5000;

/** Connects, creates or migrates the schema, and starts pg-boss (its chunk queue included). */
export async function openQueueDatabase(url: string, options: OpenOptions = {}): Promise<QueueDatabase> {
  const shown = maskPassword(url);
  // Destroyed when closing has waited its while: queries still waiting on a frozen database kept
  // the process alive for their timeouts after it had said all it had to say.
  const sockets = new PgSockets();
  const settings = unanswered(options.queryTimeoutMs, sockets);
  quietPgpass();
  const pool = new pg.Pool({
    connectionString: url,
    max: options.connections ?? 4,
    application_name: 'geobatch',
    ...settings,
  });
  let closed = false;
  let lost: IoError | undefined;
  // An idle client that loses its connection emits here; the next query reports it. Closing ends
  // the connections left (PgSockets): that is no loss to report.
  pool.on('error', (error) => {
    if (!closed) options.logger?.warn({ err: scrub(error.message) }, 'Queue database connection lost');
  });
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
    await closeFailed(pool, sockets);
    throw queueError(shown, doing, error);
  }
  const boss = new PgBoss({
    connectionString: url,
    schema: BOSS_SCHEMA,
    max: 2,
    application_name: 'geobatch-boss',
    ...settings,
    superviseIntervalSeconds: SUPERVISE_SECONDS,
    monitorIntervalSeconds: SUPERVISE_SECONDS,
    schedule: false,
  });
  boss.on('error', (error: Error) => {
    // Lost, its failures are those of a database already reported as not answering.
    if (closed || lost !== undefined) return;
    if (isRunQueueGone(error)) {
      options.logger?.debug(
        { err: scrub(error.message) },
        "Queue (pg-boss): a run's chunk queue is gone (the run was pruned or replaced); its workers let go of it",
      );
      return;
    }
    options.logger?.warn({ err: scrub(error.message) }, 'Queue (pg-boss) reported an error');
  });
  try {
    await boss.start();
  } catch (error) {
    await boss.stop({ graceful: false }).catch(() => {});
    await pool.end().catch(() => {});
    throw queueError(shown, 'starting the job queue', error);
  }
  const gone = new AbortController();
  return {
    shown,
    onceFixed: options.onceFixed,
    pool,
    boss,
    lost: () => lost,
    lose(error) {
      if (lost !== undefined) return;
      lost = error;
      gone.abort(lost);
      // What still waits on it (a query queued for a connection, a new connection's 10 s) fails
      // now: a chunk waiting there outlasted its worker's bounded stop, unreported as handed back.
      sockets.end(unansweredElsewhere);
    },
    gone: gone.signal,
    async close() {
      if (closed) return;
      closed = true;
      // Not answering, the database is not waited for: its connections are ended first, so that
      // what pg-boss and the pool still wait on fails at once.
      if (lost !== undefined) sockets.end();
      await bounded(boss.stop({ graceful: lost === undefined, timeout: CLOSE_MS }));
      await closePool(pool, sockets);
    },
  };
}

/**
 * pg-boss's word for a run's chunk queue (_claim.ts chunkQueue) deleted under its workers (`queue
 * prune` deletes a run's queue before its rows), or not made yet (a run is written before its
 * queue): each fetch of a worker still following the run says it, twice a second, until the
 * worker's next look at the runs lets go of it or the queue is there. Expected, not a problem;
 * any other queue missing still is one.
 */
function isRunQueueGone(error: { readonly message?: unknown }): boolean {
  return (
    typeof error.message === 'string' &&
    /^Queue geobatch-chunks-[^\s,]+(?:, geobatch-chunks-[^\s,]+)* does not exist\b/.test(error.message)
  );
}

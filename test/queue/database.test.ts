/**
 * The queue database's errors against a real PostgreSQL: what a first connection that fails says,
 * and which failures mean the database is gone (QUEUE_UNUSABLE) rather than a bug.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IoError } from '../../src/errors.js';
import { isDatabaseGone, ONCE_FIXED, openQueueDatabase, queueError } from '../../src/queue/database.js';
import { runWorker } from '../../src/queue/worker.js';
import { PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';
import { cli, until } from '../cli/_cli.js';
import { openFailure } from './_open-failure.js';
import { openBench, writeInput, writeJob } from './_setup.js';

let server: TestPostgres;

beforeAll(async () => {
  server = await startPostgres();
});

afterAll(async () => {
  await server?.stop();
});

/** A loopback port nothing listens on. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

describe('a queue database that cannot be opened', () => {
  it('says to check the URL, the password and that PostgreSQL is up, not to resume a run', async () => {
    const error = await openFailure(`postgres://postgres@127.0.0.1:${await closedPort()}/none`);
    expect(error.code).toBe('QUEUE_UNUSABLE');
    expect(error.message).toMatch(/failed while connecting: .*ECONNREFUSED/);
    expect(error.context.hint).toMatch(/queue URL.*password.*PostgreSQL is up/);
    expect(error.context.hint).not.toContain('--resume');
  });

  it('names the password when PostgreSQL refuses it, and never shows it', async () => {
    const url = (await server.database()).replace(PASSWORD, 'not-the-password');
    const error = await openFailure(url);
    expect(error.code).toBe('QUEUE_UNUSABLE');
    expect(error.context.hint).toMatch(/refused the user or password/);
    expect(error.context.hint).not.toContain('--resume');
    expect(`${error.message} ${error.context.path}`).not.toContain('not-the-password');
  });

  it('appends what to run once the database is fixed, for a process past opening', () => {
    const error = queueError('postgres://h/db', 'reading a chunk', new Error('boom'), 'then resume');
    expect(error.context.hint).toMatch(/PostgreSQL is up.*; then resume$/);
  });
});

describe('isDatabaseGone', () => {
  it('knows a refused connection and a server that ended the session, and not a bad statement', async () => {
    const refused = new pg.Client({ connectionString: `postgres://u@127.0.0.1:${await closedPort()}/d` });
    const connectError = await refused.connect().catch((e: unknown) => e);
    expect(isDatabaseGone(connectError)).toBe(true);

    const url = await server.database();
    const victim = new pg.Client({ connectionString: url });
    victim.on('error', () => {});
    await victim.connect();
    const pid = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    const running = victim.query('SELECT pg_sleep(30)').catch((e: unknown) => e);
    // As a server that shuts down does to its sessions (57P01), under a statement.
    await server.query(url, `SELECT pg_terminate_backend(${pid})`);
    const ended = await running;
    expect((ended as { code?: string }).code).toBe('57P01');
    expect(isDatabaseGone(ended)).toBe(true);
    // The same client afterwards: pg says so by message alone.
    expect(isDatabaseGone(await victim.query('SELECT 1').catch((e: unknown) => e))).toBe(true);
    await victim.end().catch(() => {});

    const fine = new pg.Client({ connectionString: url });
    await fine.connect();
    try {
      const bad = await fine.query('SELEC 1').catch((e: unknown) => e);
      expect((bad as { code?: string }).code).toBe('42601');
      expect(isDatabaseGone(bad)).toBe(false);
      const missing = await fine.query('SELECT * FROM nowhere').catch((e: unknown) => e);
      expect(isDatabaseGone(missing)).toBe(false);
    } finally {
      await fine.end();
    }
  });

  it('knows the shutdown and start-up states by their SQLSTATE, and class 08 by its prefix', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', 'ECONNRESET'])
      expect(isDatabaseGone(Object.assign(new Error('x'), { code })), code).toBe(true);
    expect(isDatabaseGone(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseGone(Object.assign(new Error('x'), { code: '23505' }))).toBe(false);
    expect(isDatabaseGone('the database system is shutting down')).toBe(false);
  });
});

/**
 * A loopback proxy to PostgreSQL that can stop forwarding without closing anything: what a frozen
 * database host or a network that drops packets looks like to the client. Frozen, it answers a
 * client's goodbye (its FIN) with nothing either, as a stopped PostgreSQL does.
 */
async function freezableProxy(target: URL) {
  const sockets: Socket[] = [];
  let frozen = false;
  const proxy = createServer({ allowHalfOpen: true }, (client) => {
    const upstream = connect({ port: Number(target.port), host: target.hostname, allowHalfOpen: true });
    sockets.push(client, upstream);
    client.on('data', (d) => {
      if (!frozen) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!frozen) client.write(d);
    });
    client.on('end', () => {
      if (!frozen) upstream.end();
    });
    upstream.on('end', () => {
      if (!frozen) client.end();
    });
    for (const s of [client, upstream]) s.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      if (!frozen) client.destroy();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  const url = new URL(target.href);
  url.port = String(port);
  return {
    url: url.href,
    freeze: () => {
      frozen = true;
    },
    /**
     * This process's connections to the proxy still open: one waiting for the frozen server's
     * goodbye kept a process alive after it had ended.
     */
    open: () =>
      (process as unknown as { _getActiveHandles(): unknown[] })
        ._getActiveHandles()
        .filter((h) => h instanceof Socket && !h.destroyed && h.remotePort === port).length,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe('a queue database that stops answering', () => {
  it('once lost, fails at once what waits for a connection, as not answering', async () => {
    const proxy = await freezableProxy(new URL(await server.database()));
    try {
      const db = await openQueueDatabase(proxy.url, { queryTimeoutMs: 1000, connections: 1 });
      proxy.freeze();
      const first = db.pool.query('SELECT 1').catch((e: unknown) => e);
      // Queued behind the first for the pool's one connection, then a new connection's 10 s.
      const queued = db.pool.query('SELECT 2').catch((e: unknown) => e);
      const timedOut = await first;
      expect(isDatabaseGone(timedOut)).toBe(true);
      const lostAt = Date.now();
      db.lose(queueError('db', 'reading the run', timedOut, ONCE_FIXED.worker));
      const failure = queueError('db', 'reading a chunk', await queued, ONCE_FIXED.worker);
      expect(Date.now() - lostAt).toBeLessThan(2000);
      expect(failure.code).toBe('QUEUE_UNUSABLE');
      expect(failure.message).toMatch(
        /^The queue database db failed while reading a chunk: it did not answer a query in time/,
      );
      // And what comes later, without waiting.
      const later = Date.now();
      expect(isDatabaseGone(await db.pool.query('SELECT 3').catch((e: unknown) => e))).toBe(true);
      expect(Date.now() - later).toBeLessThan(2000);
      await db.close();
    } finally {
      await proxy.close();
    }
  }, 30_000);

  it('fails a query as the database gone within its timeout, and closes without waiting for it', async () => {
    const proxy = await freezableProxy(new URL(await server.database()));
    try {
      const db = await openQueueDatabase(proxy.url, { queryTimeoutMs: 1000 });
      expect((await db.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      proxy.freeze();
      const started = Date.now();
      const error = await db.pool.query('SELECT 2').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isDatabaseGone(error)).toBe(true);
      const failure = queueError('db', 'reading the run', error, ONCE_FIXED.coordinator);
      expect(failure.code).toBe('QUEUE_UNUSABLE');
      // Said as what it is: not a URL or a password to check, a database to wait for.
      expect(failure.message).toBe(
        'The queue database db failed while reading the run: it did not answer a query in time (Query read timeout)',
      );
      expect(failure.context.hint).toBe(
        `the database is not answering (its host frozen or overloaded, or a network that drops packets): wait until it answers again; ${ONCE_FIXED.coordinator}`,
      );
      await db.close();
      // One query timeout and at most the bounded close, not forever (10 s covers a busy machine).
      expect(Date.now() - started).toBeLessThan(10_000);
      // No connection is left waiting for the frozen server's goodbye: it held the process alive.
      await until(() => proxy.open() === 0, 3000, 'every connection closed');
    } finally {
      await proxy.close();
    }
  }, 30_000);
});

describe('closing the queue database', () => {
  it('reports none of the connections it ends as an error', async () => {
    const warned: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warned.push(line) });
    const db = await openQueueDatabase(await server.database(), { logger });
    await db.boss.createQueue('closing');
    await db.boss.send('closing', {});
    await db.pool.query('SELECT 1');
    await db.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(warned).toEqual([]);
  });
});

describe('a worker whose database stops answering', () => {
  it('ends with QUEUE_UNUSABLE within its timeouts, its chunks handed back as QUEUE_UNUSABLE, every connection closed', async () => {
    const bench = await openBench();
    const url = await server.database();
    const proxy = await freezableProxy(new URL(url));
    writeInput(join(bench.dir, 'input.csv'), 600);
    // Slow answers: chunks are still in the worker's hands when the database freezes.
    bench.emulator.setFaults({ latency: { fixedMs: 200 } });
    const job = writeJob(bench.dir, 'input.csv');
    const coordinator = cli(
      ['run', job, '--queue', url, '--no-work', '--chunk-rows', '100', '--no-cache'],
      bench.env,
    );
    const records: { msg: string; seq?: number; err?: { code?: string; message?: string } }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => records.push(JSON.parse(line)) });
    const db = await openQueueDatabase(proxy.url, {
      queryTimeoutMs: 1000,
      logger,
      onceFixed: ONCE_FIXED.worker,
    });
    try {
      const worker = runWorker({ url: proxy.url, db, logger, env: bench.env }).then(
        () => undefined,
        (e: unknown) => e,
      );
      const held = async () =>
        Number(
          (
            await server.query(url, "SELECT count(*) AS n FROM geobatch_queue.chunks WHERE state = 'active'")
          )[0]?.n,
        ) > 0;
      // Active in the database is not yet in hand: pg-boss marks a chunk active as it gives it out,
      // before the worker has read its rows, and a freeze then met the worker's read, with no chunk
      // of its own to hand back (1 run in 2, at 0520a67). Its requests show it working on one.
      const working = () => (bench.emulator.stats().byInterface.geocoding?.total ?? 0) > 0;
      await until(async () => (await held()) && working(), 60_000, 'a chunk in the worker’s hands');
      proxy.freeze();
      const frozen = Date.now();
      const error = (await worker) as IoError;
      // The search for work or a chunk's query meets it within a timeout or two (1 s each), not
      // never; nor after a new connection's 10 s, which a query waiting for one got, while the
      // shared rate's unanswered query (the first to meet it) stopped only its own chunk.
      expect(Date.now() - frozen).toBeLessThan(6000);
      expect(error).toBeInstanceOf(IoError);
      expect(error.code).toBe('QUEUE_UNUSABLE');
      expect(error.message).toMatch(
        /^The queue database postgres:\/\/postgres:\*\*\*@.* failed while .*: it did not answer/,
      );
      expect(error.context.hint).toMatch(/not answering.*; then start the worker again$/);
      const handedBack = records.filter((r) => r.msg === 'Chunk handed back');
      expect(handedBack.length, JSON.stringify(records.map((r) => r.msg))).toBeGreaterThan(0);
      // The cause, not the stop it made: never ABORTED, INTERNAL or the connections closed under them.
      for (const record of handedBack)
        expect(record.err?.code, JSON.stringify(record)).toBe('QUEUE_UNUSABLE');
      await db.close();
      await until(() => proxy.open() === 0, 3000, 'every connection closed');
    } finally {
      coordinator.child.kill('SIGKILL');
      await coordinator.exited;
      await db.close();
      await proxy.close();
      await bench.emulator.close();
    }
  }, 120_000);
});

describe('a worker following a run whose chunk queue was dropped', () => {
  it('says so at debug level only: pg-boss finding the queue gone is expected, not a warning', async () => {
    const bench = await openBench();
    const url = await server.database();
    writeInput(join(bench.dir, 'input.csv'), 300);
    const job = writeJob(bench.dir, 'input.csv');
    const coordinator = cli(
      ['run', job, '--queue', url, '--no-work', '--chunk-rows', '100', '--no-cache'],
      bench.env,
    );
    const records: { level: number; msg: string; err?: unknown }[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => records.push(JSON.parse(line)) });
    const stop = new AbortController();
    let db: Awaited<ReturnType<typeof openQueueDatabase>> | undefined;
    try {
      const run = async () =>
        (await server.query(url, 'SELECT id FROM geobatch_queue.runs'))[0]?.id as string | undefined;
      await until(async () => (await run().catch(() => undefined)) !== undefined, 30_000, 'the run');
      const id = (await run()) as string;
      // The run left behind (its coordinator killed), its queue dropped as `queue prune` drops it first.
      coordinator.child.kill('SIGKILL');
      await coordinator.exited;
      const pruner = await openQueueDatabase(url);
      await pruner.boss.deleteQueue(`geobatch-chunks-${id}`);
      await pruner.close();
      db = await openQueueDatabase(url, { logger });
      const worker = runWorker({ url, db, logger, env: bench.env, signal: stop.signal });
      const gone = () => records.some((r) => JSON.stringify(r).includes('does not exist'));
      await until(gone, 10_000, 'pg-boss finding the queue gone');
      // Twice a second per fetch loop: a few more rounds, none of them a warning.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      stop.abort();
      await worker.catch(() => undefined);
      const said = records.filter((r) => JSON.stringify(r).includes('does not exist'));
      expect(said.length).toBeGreaterThan(1);
      for (const record of said) expect(record.level, JSON.stringify(record)).toBe(20);
      expect(said[0]?.msg).toBe(
        "Queue (pg-boss): a run's chunk queue is gone (the run was pruned or replaced); its workers let go of it",
      );
      expect(records.filter((r) => r.level >= 40)).toEqual([]);
      // Any other error of pg-boss's is still a warning: another queue missing, a lost connection.
      db.boss.emit('error', new Error('Queue emails does not exist'));
      db.boss.emit('error', new Error('Connection terminated unexpectedly'));
      expect(records.filter((r) => r.level === 40).map((r) => r.err)).toEqual([
        'Queue emails does not exist',
        'Connection terminated unexpectedly',
      ]);
    } finally {
      stop.abort();
      coordinator.child.kill('SIGKILL');
      await coordinator.exited;
      await db?.close();
      await bench.emulator.close();
    }
  }, 90_000);
});

describe('a database URL given without the password the server asks for', () => {
  it.each([
    ['status --queue', (url: string) => ['status', '--queue', url], 'QUEUE'],
    ['cache stats --cache', (url: string) => ['cache', 'stats', '--cache', url], 'CACHE'],
  ])(
    '%s says so and exits at once, not after the server gives up on the connection a minute later',
    async (_, args, which) => {
      expect(process.env.PGPASSWORD).toBeUndefined();
      const url = new URL(await server.database());
      url.password = '';
      const started = Date.now();
      // No ~/.pgpass either: a home of its own.
      const run = cli(args(url.toString()), {
        HOME: mkdtempSync(join(tmpdir(), 'geobatch-nopass-')),
      });
      expect(await run.exited, run.err()).toBe(1);
      // The server's authentication_timeout is 60 s; the command used to wait for it.
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(run.err()).toMatch(/password/);
      expect(run.err()).toMatch(
        which === 'QUEUE'
          ? /PGPASSWORD or ~\/\.pgpass/
          : /the password \(in the URL, PGPASSWORD or ~\/\.pgpass\)/,
      );
    },
    60_000,
  );
});

describe('a worker whose password is in ~/.pgpass', () => {
  it('connects with it, and pg prints no "pgpass support is deprecated" warning', async () => {
    // pgpass reads no file when PGPASSWORD is set at all, even empty: it must not be.
    expect(process.env.PGPASSWORD).toBeUndefined();
    const home = mkdtempSync(join(tmpdir(), 'geobatch-pgpass-'));
    const url = new URL(await server.database());
    writeFileSync(join(home, '.pgpass'), `${url.hostname}:${url.port}:*:${url.username}:${PASSWORD}\n`, {
      mode: 0o600,
    });
    url.password = '';
    const w = cli(['worker', '--queue', url.toString(), '--exit-when-idle', '--log-format', 'json'], {
      HOME: home,
      PGPASSFILE: join(home, '.pgpass'),
    });
    expect(await w.exited, w.err()).toBe(0);
    expect(w.err()).toContain('Worker started');
    expect(w.err()).not.toMatch(/DeprecationWarning|pgpass support is deprecated/);
  }, 60_000);
});

/**
 * The queue database's errors against a real PostgreSQL: what a first connection that fails says,
 * and which failures mean the database is gone (QUEUE_UNUSABLE) rather than a bug.
 */
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IoError } from '../../src/errors.js';
import { isDatabaseGone, openQueueDatabase, queueError } from '../../src/queue/database.js';
import { PASSWORD, startPostgres, type TestPostgres } from '../cache/_postgres.js';

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

async function failure(url: string): Promise<IoError> {
  const error = await openQueueDatabase(url).then(
    async (db) => {
      await db.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IoError);
  return error as IoError;
}

describe('a queue database that cannot be opened', () => {
  it('says to check the URL, the password and that PostgreSQL is up, not to resume a run', async () => {
    const error = await failure(`postgres://postgres@127.0.0.1:${await closedPort()}/none`);
    expect(error.code).toBe('QUEUE_UNUSABLE');
    expect(error.message).toMatch(/failed while connecting: .*ECONNREFUSED/);
    expect(error.context.hint).toMatch(/queue URL.*password.*PostgreSQL is up/);
    expect(error.context.hint).not.toContain('--resume');
  });

  it('names the password when PostgreSQL refuses it, and never shows it', async () => {
    const url = (await server.database()).replace(PASSWORD, 'not-the-password');
    const error = await failure(url);
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
 * database host or a network that drops packets looks like to the client.
 */
async function freezableProxy(target: URL) {
  const sockets: Socket[] = [];
  let frozen = false;
  const proxy = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    client.on('data', (d) => {
      if (!frozen) upstream.write(d);
    });
    upstream.on('data', (d) => {
      if (!frozen) client.write(d);
    });
    for (const s of [client, upstream]) s.on('error', () => {});
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
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
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

describe('a queue database that stops answering', () => {
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
      expect(queueError('db', 'reading the run', error).code).toBe('QUEUE_UNUSABLE');
      await db.close();
      // One query timeout and at most the bounded close, not forever (10 s covers a busy machine).
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await proxy.close();
    }
  }, 30_000);
});

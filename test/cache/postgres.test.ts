import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_SCHEMA_VERSION } from '../../src/cache/_pg-schema.js';
import { openPostgresStore, type PostgresStore } from '../../src/cache/postgres.js';
import { isGeobatchError } from '../../src/errors.js';
import { scrub } from '../../src/secrets.js';
import { entry, scope, storeContract } from './_contract.js';
import { PASSWORD, startPostgres, type TestPostgres } from './_postgres.js';

let postgres: TestPostgres;

beforeAll(async () => {
  postgres = await startPostgres();
});

afterAll(async () => {
  await postgres?.stop();
});

async function open(url: string, options = {}): Promise<PostgresStore> {
  const store = await openPostgresStore(url, options);
  if (store === undefined) throw new Error('no store');
  return store;
}

describe('PostgreSQL store: the store contract', () => {
  storeContract(async () => open(await postgres.database()));
});

describe('PostgreSQL store: shared use', () => {
  it('shows its location with the password masked, and registers the password as a secret', async () => {
    const url = await postgres.database();
    const store = await open(url);
    expect(store.location).not.toContain(PASSWORD);
    expect(store.location).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/cache_\d+$/);
    expect(scrub(`connect ${PASSWORD}`)).toBe('connect [redacted]');
    await store.close();
  });

  it('several machines opening a new database at once: one creates the tables, all work', async () => {
    const url = await postgres.database();
    const stores = await Promise.all([open(url), open(url), open(url)]);
    await Promise.all(stores.map((s, i) => s.putMany([entry(scope(), `from${i}`, i)])));
    expect((await stores[0]?.getAll(scope()))?.size).toBe(3);
    const meta = await postgres.query(url, "SELECT value FROM geobatch_cache_meta WHERE key = 'schema'");
    expect(meta).toEqual([{ value: String(PG_SCHEMA_VERSION) }]);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('two writers upserting the same keys in different orders at once neither deadlock nor lose a key', async () => {
    const url = await postgres.database();
    const [a, b] = [await open(url), await open(url)];
    const items = Array.from({ length: 300 }, (_, i) => `k${i}`);
    const s = scope();
    await Promise.all([
      ...[0, 1, 2].map(() => a.putMany(items.map((k) => entry(s, k, 'a')))),
      ...[0, 1, 2].map(() => b.putMany([...items].reverse().map((k) => entry(s, k, 'b')))),
    ]);
    expect((await a.getAll(s)).size).toBe(300);
    await Promise.all([a.close(), b.close()]);
  });

  it('read-only on a database without the tables creates nothing', async () => {
    const url = await postgres.database();
    expect(await openPostgresStore(url, { readOnly: true })).toBeUndefined();
    expect(await postgres.query(url, "SELECT to_regclass('geobatch_cache_entries') AS t")).toEqual([
      { t: null },
    ]);
  });

  it('an unreachable server is CACHE_UNUSABLE naming the (masked) URL, never the password', async () => {
    const url = `postgres://postgres:${PASSWORD}@127.0.0.1:1/none`;
    const error = await openPostgresStore(url).catch((e: unknown) => e);
    expect(isGeobatchError(error) && error.code).toBe('CACHE_UNUSABLE');
    expect(String((error as Error).message)).toContain('127.0.0.1:1/none');
    expect(String((error as Error).message)).not.toContain(PASSWORD);
  });
});

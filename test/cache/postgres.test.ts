import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedReads } from '../../src/cache/_guarded-reads.js';
import { PG_SCHEMA_VERSION } from '../../src/cache/_pg-schema.js';
import { createAnswerCache } from '../../src/cache/answers.js';
import { resolveLifetimes } from '../../src/cache/lifetimes.js';
import { openPostgresStore, type PostgresStore } from '../../src/cache/postgres.js';
import { createTally } from '../../src/cache/tally.js';
import { CacheWriter } from '../../src/cache/writer.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { IoError, isGeobatchError } from '../../src/errors.js';
import { scrub } from '../../src/secrets.js';
import { cli, emulatorEnv, ROOT } from '../cli/_cli.js';
import { memoryLogger } from '../fixtures/run-helpers.js';
import { entry, scope, storeContract } from './_contract.js';
import { dataRole, PASSWORD, ROLE_PASSWORD, startPostgres, type TestPostgres } from './_postgres.js';

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

describe("PostgreSQL store: a distributed run's URL, which comes without its password", () => {
  it('tells a worker without one that the queue database keeps none, and what to give it', async () => {
    const url = new URL(await postgres.database());
    url.password = '';
    const error = await openPostgresStore(url.toString(), { fromQueue: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IoError);
    const e = error as IoError;
    expect(e.code).toBe('CACHE_UNUSABLE');
    expect(e.context.file).toBe(url.toString().replace(/\/$/, ''));
    expect(e.context.detail).toEqual({ problem: 'failed', password: 'not stored in the queue database' });
    expect(e.message).toMatch(
      /^The request cache postgres:\/\/postgres@127\.0\.0\.1:\d+\/cache_\d+ cannot be used: PostgreSQL: .*password.*\. The run's cache URL came to this worker without a password, as passwords are never stored in the queue database, and this worker gave none PostgreSQL accepts$/,
    );
    // Forms that can be run as printed: a word to replace, never `***`.
    expect(e.context.hint).toBe(
      `give this worker the password: PGPASSWORD or a ~/.pgpass line on its machine, or GEOBATCH_CACHE=postgres://postgres:PASSWORD@${url.host}${url.pathname} (PASSWORD replaced by the password) in its environment`,
    );
  });

  it('says nothing of the queue for a URL a user gave without a password', async () => {
    const url = new URL(await postgres.database());
    url.password = '';
    const e = (await openPostgresStore(url.toString()).catch((x: unknown) => x)) as IoError;
    expect(e.code).toBe('CACHE_UNUSABLE');
    expect(e.message).not.toContain('queue');
    expect(e.context.detail).toEqual({ problem: 'failed' });
  });
});

/** A run's answer cache and writer over `store`, and the problems they report. */
function runOver(store: PostgresStore) {
  const tally = createTally();
  const { logger, lines } = memoryLogger();
  const answers = createAnswerCache({
    store,
    scope: scope(),
    policy: {
      interface: 'geocoding',
      endpoint: 'geojson',
      operation: 'op',
      presentation: [],
      notFound: () => false,
      format: 1,
    },
    lifetimes: resolveLifetimes({}),
    mode: 'use',
    writer: undefined,
    tally,
    logger,
  });
  const reads = guardedReads({ store, mode: 'use', tally, logger });
  return { answers, writer: new CacheWriter(store, tally, logger), reads, tally, lines };
}

/** No advice to clear, and no command holding a masked password, which cannot be run as printed. */
function expectNoClearing(text: string): void {
  expect(text).not.toContain('cache clear');
  expect(text).not.toMatch(/`[^`]*\*\*\*[^`]*`/);
  expect(text).not.toContain(PASSWORD);
}

const AGAIN = 'the next run uses the cache again (with --resume for a stopped one): nothing to clear';

describe('PostgreSQL store: lost under a run', () => {
  it('stopped: the run goes on asking the service, told to check the database, never to clear it', async () => {
    const store = await open(await postgres.database());
    const { answers, writer, reads, tally, lines } = runOver(store);
    const lookup = () => answers.lookup([{ key: 'k1', item: 'a', row: 0 }]);
    expect((await lookup()).size).toBe(0);
    await postgres.pause();
    try {
      expect((await lookup()).size).toBe(0);
      writer.add(entry(scope(), 'k1', 'v'));
      await writer.flush();
      // The areas', trips' and tracks' reads, around the client.
      expect(await reads(() => store.getAll(scope('area')))).toBeUndefined();
    } finally {
      await postgres.start();
    }
    await store.close();
    expect(tally.problems).toHaveLength(3);
    const [reading, writing, around] = tally.problems as [string, string, string];
    const gone = `PostgreSQL went away or stopped answering: check that it is up and reachable from this machine; once it is, ${AGAIN}`;
    expect(reading).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/cache_\d+: reading failed \(/);
    expect(reading.endsWith(`); the run goes on asking the service. ${gone}`)).toBe(true);
    expect(writing.endsWith(`; the run goes on without caching new answers. ${gone}`)).toBe(true);
    expect(around.endsWith(`); the run goes on asking the service. ${gone}`)).toBe(true);
    for (const text of [...tally.problems, JSON.stringify(lines())]) expectNoClearing(text);
  }, 60_000);

  it('a right revoked: told which rights to grant', async () => {
    const url = await postgres.database();
    await (await open(url)).close();
    const role = await dataRole(postgres, url, ['public']);
    const store = await open(role.url);
    const { answers, tally } = runOver(store);
    await postgres.query(url, `REVOKE SELECT ON ALL TABLES IN SCHEMA public FROM ${role.name}`);
    expect((await answers.lookup([{ key: 'k1', item: 'a', row: 0 }])).size).toBe(0);
    await store.close();
    expect(tally.problems).toHaveLength(1);
    expect(tally.problems[0]).toMatch(
      /: reading failed \(permission denied for table geobatch_cache_\w+\); the run goes on asking the service\. /,
    );
    expect(
      tally.problems[0]?.endsWith(
        `PostgreSQL refused the user a right on the cache's tables: grant it SELECT, INSERT, UPDATE and DELETE on the geobatch_cache_* tables and USAGE on their sequences (the README's "The database role"); then ${AGAIN}`,
      ),
    ).toBe(true);
    expectNoClearing(tally.problems[0] ?? '');
  });
});

async function refusal(url: string): Promise<IoError> {
  const error = await openPostgresStore(url).then(
    async (store) => {
      await store?.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IoError);
  return error as IoError;
}

describe('PostgreSQL store: a role with data rights only', () => {
  it('reads and writes tables the owner made, which take no DDL', async () => {
    const owner = await postgres.database();
    await (await open(owner)).close();
    const { url } = await dataRole(postgres, owner, ['public']);
    const store = await open(url);
    const s = scope();
    await store.putMany([entry(s, 'k', 'v')]);
    expect([...(await store.getMany(s, ['k'])).keys()]).toEqual(['k']);
    await store.close();
  });

  it('where the tables are missing, is told to have the owner run once or be granted CREATE on the schema', async () => {
    const owner = await postgres.database();
    const { name, url } = await dataRole(postgres, owner, ['public']);
    const error = await refusal(url);
    expect(error.code).toBe('CACHE_UNUSABLE');
    expect(error.message).toContain(`the user ${name} may not create its tables in the schema public`);
    expect(error.context.file).toBe(url.replace(ROLE_PASSWORD, '***'));
    expect(error.context.detail).toEqual({
      sqlstate: '42501',
      role: name,
      schema: 'public',
      problem: 'not-writable',
    });
    expect(error.context.hint).toContain(`GRANT CREATE ON SCHEMA public TO ${name}`);
    expect(error.context.hint).toContain("once with this cache as the schema's owner");
    expect(error.context.hint).not.toMatch(/check the URL/);
    expect(`${error.message} ${error.context.hint}`).not.toContain(ROLE_PASSWORD);
    expect(await postgres.query(owner, "SELECT to_regclass('geobatch_cache_meta') AS t")).toEqual([
      { t: null },
    ]);
  });

  it('where the tables are of an older geobatch, is told that only their owner may upgrade them', async () => {
    const owner = await postgres.database();
    await (await open(owner)).close();
    await postgres.query(
      owner,
      `DROP TABLE geobatch_cache_runs; UPDATE geobatch_cache_meta SET value = '${PG_SCHEMA_VERSION - 1}' WHERE key = 'schema'`,
    );
    const { name, url } = await dataRole(postgres, owner, ['public']);
    const error = await refusal(url);
    expect(error.code).toBe('CACHE_UNUSABLE');
    expect(error.message).toContain(`the user ${name} may not upgrade its tables`);
    expect(error.context.detail).toMatchObject({ sqlstate: '42501', role: name, problem: 'not-writable' });
    expect(error.context.hint).toMatch(/only their owner .* may upgrade them/);
  });

  it('without rights on the tables, is told which rights it needs', async () => {
    const owner = await postgres.database();
    await (await open(owner)).close();
    const { name, url } = await dataRole(postgres, owner, []);
    await postgres.query(owner, `GRANT USAGE ON SCHEMA public TO ${name}`);
    const error = await refusal(url);
    expect(error.code).toBe('CACHE_UNUSABLE');
    expect(error.message).toContain(`the user ${name} may not read its tables`);
    expect(error.context.detail).toMatchObject({ sqlstate: '42501', problem: 'unreadable' });
    expect(error.context.hint).toContain('SELECT, INSERT, UPDATE, DELETE on the geobatch_cache_* tables');
  });
});

describe('geobatch run with a PostgreSQL cache', () => {
  let emulator: EmulatorHandle;
  let dir: string;
  let geocodes = 0;
  /** The logical geocoding requests, by X-Request-Id: a hedged second attempt of one is not another. */
  const geocodeIds = new Set<string>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'geobatch-pg-run-'));
    emulator = await startEmulator({
      preload: true,
      onRequest: (info) => {
        if (info.interface !== 'geocoding') return;
        geocodes++;
        if (info.requestId !== undefined) geocodeIds.add(info.requestId);
      },
    });
  });

  afterAll(async () => {
    await emulator.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a second machine (another run on the same URL) sends nothing, and no table holds a credential', async () => {
    const url = await postgres.database();
    const job = join(dir, 'geocode.yaml');
    writeFileSync(
      job,
      [
        'job: geocode',
        `input: ${join(ROOT, 'samples', 'community-centres.csv')}`,
        'output: out/result.csv',
        'mapping: { street: street, houseNo: housenumber, zip: plz, city: city, country: { value: DE } }',
      ].join('\n'),
    );
    const run = async (output: string) => {
      const child = cli(
        ['run', job, '--no-progress', '--cache', url, '-o', join(dir, output)],
        emulatorEnv(emulator),
      );
      expect(await child.exited, child.err()).toBe(3);
      expect(child.err()).not.toContain(PASSWORD);
      return child.err();
    };
    geocodes = 0;
    geocodeIds.clear();
    await run('first.csv');
    // Counted as the summary counts them: on a loaded machine a hedge sends one twice.
    const sent = geocodeIds.size;
    expect(sent).toBeGreaterThan(300);
    geocodes = 0;
    const second = await run('second.csv');
    expect(geocodes).toBe(0);
    expect(second).toContain(`the cache answered ${sent} requests (${sent} items wholly)`);
    expect(readFileSync(join(dir, 'second.csv')).equals(readFileSync(join(dir, 'first.csv')))).toBe(true);
    const summary = readFileSync(join(dir, 'second.csv.summary.json'), 'utf8');
    expect(summary).toContain('"store": "postgres"');
    expect(summary).not.toContain(PASSWORD);

    const tables = [
      'geobatch_cache_meta',
      'geobatch_cache_scopes',
      'geobatch_cache_entries',
      'geobatch_cache_runs',
    ];
    const dump = JSON.stringify(
      await Promise.all(tables.map((t) => postgres.query(url, `SELECT * FROM ${t}`))),
    );
    expect(dump).toContain('kanzem'); // the addresses are there (normalised)...
    for (const secret of [emulator.credentials.apiKey, emulator.credentials.partnerKey, PASSWORD]) {
      expect(dump.includes(secret), 'a credential is in the cache tables').toBe(false); // ...no key is
    }
  });
});

/**
 * A new cache database whose entries table another session holds, as a long prune or a VACUUM FULL
 * would, while `work` runs; `holder` is that session, in its transaction.
 */
async function whileHeld(work: (url: string, holder: pg.Client) => Promise<void>): Promise<void> {
  const url = await postgres.database();
  await (await open(url)).close();
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE geobatch_cache_entries IN ACCESS EXCLUSIVE MODE');
    await work(url, holder);
  } finally {
    await holder.end();
  }
}

describe('PostgreSQL store: a query that runs long', () => {
  it('fails after the query timeout it was opened with, and a longer one waits it out', async () => {
    await whileHeld(async (url, holder) => {
      const short = await open(url, { queryTimeoutMs: 300 });
      const asked = Date.now();
      const error = await short.prune({ before: Date.now() }).catch((e: unknown) => e);
      // Its own limit, not the run's 30 s (a bound wide enough for a loaded machine).
      expect(Date.now() - asked).toBeLessThan(15_000);
      await short.close();
      expect((error as Error).message).toBe('Query read timeout');
      const long = await open(url, { queryTimeoutMs: 20_000 });
      const pruned = long.prune({ before: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await holder.query('COMMIT');
      await expect(pruned).resolves.toBe(0);
      await long.close();
    });
  }, 60_000);

  it('geobatch cache prune whose session the server ends is CACHE_UNUSABLE with the fix, not pg\u2019s bare message', async () => {
    await whileHeld(async (url, holder) => {
      const prune = cli(['cache', 'prune', '--cache', url]);
      // The prune waits for the lock; its session is ended under it, as a restarted server would.
      // Asked from a session of its own: the holder's transaction sees pg_stat_activity as it was
      // when it first looked.
      for (;;) {
        const ended = await postgres.query(
          url,
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
        );
        if (ended.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(await prune.exited, prune.err()).toBe(1);
      const masked = url.replace(PASSWORD, '***');
      expect(prune.err()).toBe(
        `geobatch: The request cache ${masked} cannot be used: PostgreSQL: terminating connection due to administrator command\n` +
          'hint: check the URL, the password (in the URL, PGPASSWORD or ~/.pgpass) and that PostgreSQL is up; --cache PATH uses another one, --no-cache runs without\n',
      );
      expect(prune.err()).not.toContain(PASSWORD);
      await holder.query('ROLLBACK');
    });
  }, 60_000);
});

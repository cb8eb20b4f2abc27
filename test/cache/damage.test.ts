/**
 * A cache file damaged where opening it never looks, found by a run's reads or writes: said once,
 * marked in the file, and from then on neither read nor written; the next open refuses it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { isDamage, watchedForDamage } from '../../src/cache/_damage.js';
import { openSqliteStore, type SqliteOptions } from '../../src/cache/sqlite.js';
import type { CacheStore } from '../../src/cache/store.js';
import { createTally } from '../../src/cache/tally.js';
import { caught, memoryLogger } from '../fixtures/run-helpers.js';
import { entry, scope } from './_contract.js';
import { damageEntries } from './_damage.js';

const dir = mkdtempSync(join(tmpdir(), 'geobatch-damage-'));
let files = 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A cache of 3,000 entries k0..k2999 with its entries' pages damaged. */
async function damagedCache(): Promise<string> {
  const path = join(dir, `c${++files}`, 'cache.sqlite');
  const store = openSqliteStore(path) as CacheStore;
  await store.putMany(Array.from({ length: 3000 }, (_, i) => entry(scope(), `k${i}`, 'x'.repeat(100))));
  await store.close();
  expect(damageEntries(path)).toBeGreaterThan(10);
  return path;
}

function watched(path: string, options: SqliteOptions = {}) {
  const { logger, lines } = memoryLogger();
  const tally = createTally();
  const store = watchedForDamage(openSqliteStore(path, options) as CacheStore, tally, logger);
  return { store, tally, lines };
}

describe('a cache found damaged mid-run', () => {
  it('answers nothing once a read finds the damage, says so once at warn level, and marks the file', async () => {
    const path = await damagedCache();
    const { store, tally, lines } = watched(path);
    expect(await store.getMany(scope(), ['k1', 'k2'])).toEqual(new Map());
    expect(await store.getMany(scope(), ['k3'])).toEqual(new Map());
    const problem = `${path} is damaged (SQLite: database disk image is malformed): this run goes on without it, asking the service for every item it would have read from it; later runs refuse it (CACHE_UNUSABLE) until \`geobatch cache clear --cache ${path}\` deletes it (the next run starts an empty cache)`;
    expect(tally.problems).toEqual([problem]);
    const said = lines().filter((line) => String(line.msg).includes('is damaged'));
    expect(said).toEqual([
      expect.objectContaining({ level: 40, cache: path, msg: `Request cache: ${problem}` }),
    ]);
    await store.close();

    const refused = await caught(Promise.resolve().then(() => openSqliteStore(path)));
    expect(refused).toMatchObject({
      code: 'CACHE_UNUSABLE',
      context: { file: path, detail: { problem: 'damaged' } },
    });
    expect(refused.message).toMatch(
      /^The request cache .* cannot be used: a run found it damaged at \d{4}-\d\d-\d\dT[\d:.]+Z \(SQLite: database disk image is malformed\)$/,
    );
    expect(refused.context.hint).toContain(`\`geobatch cache clear --cache ${path}\` deletes it`);
  });

  it('stops writing once the damage is found: a write is refused as CACHE_UNUSABLE (damaged), the run not recorded', async () => {
    const path = await damagedCache();
    const { store } = watched(path);
    await store.getMany(scope(), ['k1']);
    const refused = await caught(store.putMany([entry(scope(), 'new', 1)]));
    expect(refused).toMatchObject({
      code: 'CACHE_UNUSABLE',
      context: { file: path, detail: { problem: 'damaged' } },
    });
    await store.recordRun({
      startedAt: 1,
      endedAt: 2,
      job: 'j',
      hits: 0,
      misses: 1,
      writes: 0,
      requestsSaved: 0,
    });
    await store.close();
    const db = new DatabaseSync(path, { readOnly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM runs').get()).toEqual({ n: 0 });
    db.close();
  });

  it('read-only: finds the damage, writes nothing (not even the mark), and says later runs will find it too', async () => {
    const path = await damagedCache();
    const before = readFileSync(path);
    const { store, tally } = watched(path, { readOnly: true });
    expect(await store.getMany(scope(), ['k1'])).toEqual(new Map());
    await store.close();
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(tally.problems[0]).toContain(
      'it could not be marked for later runs (the cache is read-only in this run), which find the damage only as they read it',
    );
  });

  it('lets every other failure through to its caller, and tells damage by SQLite code only', async () => {
    const path = join(dir, `c${++files}`, 'cache.sqlite');
    const { store, tally } = watched(path);
    await store.close();
    const error = await caught(store.getMany(scope(), ['k1']));
    expect(error).toBeInstanceOf(Error);
    expect(isDamage(error)).toBe(false);
    expect(tally.problems).toEqual([]);
    expect(isDamage(Object.assign(new Error('x'), { errcode: 11 }))).toBe(true);
    expect(isDamage(Object.assign(new Error('x'), { errcode: 26 }))).toBe(true);
    expect(isDamage(Object.assign(new Error('x'), { errcode: 11 | (1 << 8) }))).toBe(true);
    expect(isDamage(Object.assign(new Error('x'), { errcode: 13 }))).toBe(false);
  });
});

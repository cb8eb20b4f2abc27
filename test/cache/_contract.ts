/** What every store must do, run against the SQLite file and a real PostgreSQL alike. */
import { expect, it } from 'vitest';
import { scopeOf } from '../../src/cache/key.js';
import { resolveLifetimes } from '../../src/cache/lifetimes.js';
import type { CacheStore, NewEntry, Scope } from '../../src/cache/store.js';

const DAY = 24 * 60 * 60 * 1000;

export function scope(iface: Scope['interface'] = 'geocoding', params: Record<string, unknown> = {}): Scope {
  return scopeOf({ interface: iface, service: 'test', operation: 'op', params, format: 1 });
}

export function entry(
  s: Scope,
  item: string,
  value: unknown,
  createdAt = Date.now(),
  notFound = false,
): NewEntry {
  return { scope: s, item, value: JSON.stringify(value), notFound, createdAt };
}

/** `open` gives a fresh, empty store each time it is called. */
export function storeContract(open: () => Promise<CacheStore>): void {
  it('returns, in one call, the entries of the items it holds and leaves the others out', async () => {
    const store = await open();
    const s = scope();
    await store.putMany([entry(s, 'a', { n: 1 }), entry(s, 'b', { n: 2 }, 1000, true)]);
    const found = await store.getMany(s, ['a', 'b', 'c']);
    expect([...found.keys()].sort()).toEqual(['a', 'b']);
    expect(found.get('a')).toMatchObject({ value: '{"n":1}', notFound: false });
    expect(found.get('b')).toEqual({ value: '{"n":2}', notFound: true, createdAt: 1000 });
    await store.close();
  });

  it('keeps scopes apart: the same item under other parameters is another entry', async () => {
    const store = await open();
    const fast = scope('routing', { speedProfile: 'FAST' });
    const slow = scope('routing', { speedProfile: 'SLOW' });
    await store.putMany([entry(fast, 'x', 1)]);
    expect((await store.getMany(slow, ['x'])).size).toBe(0);
    expect((await store.getMany(fast, ['x'])).size).toBe(1);
    await store.close();
  });

  it('replaces an entry written again, the last write of a batch winning', async () => {
    const store = await open();
    const s = scope();
    await store.putMany([entry(s, 'a', 'old', 1)]);
    await store.putMany([entry(s, 'a', 'newer', 2), entry(s, 'a', 'newest', 3)]);
    expect((await store.getMany(s, ['a'])).get('a')).toEqual({
      value: '"newest"',
      notFound: false,
      createdAt: 3,
    });
    await store.close();
  });

  it('answers a batch of 500 items, keys with quotes and commas included', async () => {
    const store = await open();
    const s = scope('elevation');
    const items = Array.from({ length: 500 }, (_, i) => `${i},"'${i}'`);
    await store.putMany(items.map((item, i) => entry(s, item, i)));
    const found = await store.getMany(s, items);
    expect(found.size).toBe(500);
    expect(found.get(items[499] as string)?.value).toBe('499');
    expect((await store.getAll(s)).size).toBe(500);
    await store.close();
  });

  it('counts entries, not-found entries and bytes per interface, with the oldest and newest', async () => {
    const store = await open();
    await store.putMany([
      entry(scope('geocoding'), 'a', 'xx', 100),
      entry(scope('geocoding'), 'b', 'y', 300, true),
      entry(scope('elevation'), 'c', 1, 200),
    ]);
    const stats = await store.stats();
    expect(stats.kind).toBe(store.kind);
    expect(stats.interfaces).toEqual([
      { interface: 'elevation', entries: 1, notFound: 0, bytes: 2, oldest: 200, newest: 200 },
      { interface: 'geocoding', entries: 2, notFound: 1, bytes: 1 + 4 + 1 + 3, oldest: 100, newest: 300 },
    ]);
    await store.close();
  });

  it('prunes entries past their lifetime (not-found ones sooner), or all older than a date', async () => {
    const store = await open();
    const now = Date.now();
    const g = scope('geocoding');
    const e = scope('elevation');
    await store.putMany([
      entry(g, 'fresh', 1, now - 10 * DAY),
      entry(g, 'old', 1, now - 100 * DAY),
      entry(g, 'missing', null, now - 2 * DAY, true),
      entry(e, 'ground', 1, now - 100 * DAY),
    ]);
    expect(await store.prune({ lifetimes: resolveLifetimes() })).toBe(2);
    expect([...(await store.getAll(g)).keys()]).toEqual(['fresh']);
    expect((await store.getAll(e)).size).toBe(1);
    expect(await store.prune({ before: now - 50 * DAY })).toBe(1);
    expect((await store.getAll(e)).size).toBe(0);
    await store.close();
  });

  it("prunes a not-found entry by the shorter of its interface's and the not-found lifetime", async () => {
    const store = await open();
    const now = Date.now();
    const g = scope('geocoding');
    await store.putMany([
      entry(g, 'missing', null, now - 0.75 * DAY, true),
      entry(g, 'recent', null, now - 0.25 * DAY, true),
    ]);
    expect(await store.prune({ lifetimes: resolveLifetimes({ geocoding: 0.5 }) })).toBe(1);
    expect([...(await store.getAll(g)).keys()]).toEqual(['recent']);
    await store.close();
  });

  it('clears one interface, or everything', async () => {
    const store = await open();
    await store.putMany([entry(scope('geocoding'), 'a', 1), entry(scope('elevation'), 'b', 1)]);
    expect(await store.clear('elevation')).toBe(1);
    expect((await store.getAll(scope('geocoding'))).size).toBe(1);
    expect(await store.clear()).toBe(1);
    expect((await store.stats()).interfaces).toEqual([]);
    // Writing after a clear works: the scopes a running job holds stay valid.
    await store.putMany([entry(scope('geocoding'), 'a', 2)]);
    expect((await store.getMany(scope('geocoding'), ['a'])).get('a')?.value).toBe('2');
    await store.close();
  });

  it('records runs for `cache stats`, most recent first, and keeps the last 100', async () => {
    const store = await open();
    for (let i = 1; i <= 102; i++) {
      await store.recordRun({
        startedAt: i,
        endedAt: i + 1,
        job: `job${i}`,
        hits: i,
        misses: 0,
        writes: 0,
        requestsSaved: i,
      });
    }
    const runs = (await store.stats(200)).runs;
    expect(runs).toHaveLength(100);
    expect(runs[0]).toEqual({
      startedAt: 102,
      endedAt: 103,
      job: 'job102',
      hits: 102,
      misses: 0,
      writes: 0,
      requestsSaved: 102,
    });
    expect(runs[99]?.job).toBe('job3');
    await store.close();
  });
}

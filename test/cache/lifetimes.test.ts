import { describe, expect, it } from 'vitest';
import { isFresh, lifetimeOf, resolveLifetimes } from '../../src/cache/lifetimes.js';
import type { StoredEntry } from '../../src/cache/store.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = 1_000 * DAY;

const written = (daysAgo: number, notFound: boolean): StoredEntry => ({
  value: notFound ? 'null' : '"answer"',
  notFound,
  createdAt: NOW - daysAgo * DAY,
});

describe('cache lifetimes', () => {
  it('keep an answer for its interface, a "nothing found" answer for a day by default', () => {
    const lifetimes = resolveLifetimes();
    expect(isFresh(written(89, false), 'geocoding', lifetimes, NOW)).toBe(true);
    expect(isFresh(written(91, false), 'geocoding', lifetimes, NOW)).toBe(false);
    expect(isFresh(written(0.9, true), 'geocoding', lifetimes, NOW)).toBe(true);
    expect(isFresh(written(1.1, true), 'geocoding', lifetimes, NOW)).toBe(false);
  });

  it('never keep a "nothing found" answer longer than its interface keeps answers', () => {
    const off = resolveLifetimes({ geocoding: 0 });
    expect(isFresh(written(0, true), 'geocoding', off, NOW)).toBe(false);
    expect(isFresh(written(0, false), 'geocoding', off, NOW)).toBe(false);
    const short = resolveLifetimes({ addressSearch: 0.5, notFound: 3 });
    expect(isFresh(written(0.4, true), 'addressSearch', short, NOW)).toBe(true);
    expect(isFresh(written(0.6, true), 'addressSearch', short, NOW)).toBe(false);
    // Another interface keeps the not-found lifetime, shorter than its own.
    expect(isFresh(written(2, true), 'elevation', short, NOW)).toBe(true);
    expect(lifetimeOf(true, 'addressSearch', short)).toBe(0.5 * DAY);
    expect(lifetimeOf(true, 'elevation', short)).toBe(3 * DAY);
  });
});

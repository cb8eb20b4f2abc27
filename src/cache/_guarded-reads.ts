/**
 * Reads of the store for the caches around the client (areas, trips and tracks): a read that
 * fails stops all reading for the run, is said once (log and the summary's cache problem), and
 * the run goes on asking the service. A refresh run takes only entries written since it began
 * (`since`): those a resumed refresh's interrupted session bought are not bought again.
 */
import type { Logger } from 'pino';
import type { CacheMode } from '../config/cache.js';
import { lostCacheAdvice } from './_pg-lost.js';
import type { CacheStore } from './store.js';
import type { CacheTally } from './tally.js';

export type GuardedRead = <T>(query: () => Promise<T>) => Promise<T | undefined>;

/** Whether an entry may be used as this run's: any, or (refreshing) one written since it began. */
export function takenSince(o: {
  readonly mode: CacheMode;
  readonly runStartedAt?: number | (() => number);
  readonly now?: () => number;
}): (entry: { readonly createdAt: number }) => boolean {
  if (o.mode !== 'refresh') return () => true;
  const fixed = o.runStartedAt ?? (o.now ?? Date.now)();
  return (entry) => entry.createdAt >= (typeof fixed === 'function' ? fixed() : fixed);
}

export function guardedReads(o: {
  readonly store: CacheStore;
  readonly mode: CacheMode;
  readonly tally: CacheTally;
  readonly logger: Logger;
}): GuardedRead {
  let reading = true;
  return async (query) => {
    if (!reading) return undefined;
    try {
      return await query();
    } catch (error) {
      reading = false;
      const advice = o.store.kind === 'postgres' ? `. ${lostCacheAdvice(error)}` : '';
      const problem = `${o.store.location}: reading failed (${(error as Error).message}); the run goes on asking the service${advice}`;
      o.tally.problems.push(problem);
      o.logger.error({ cache: o.store.location }, `Request cache: ${problem}`);
      return undefined;
    }
  };
}

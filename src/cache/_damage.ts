/**
 * A cache file found damaged while a run uses it: SQLite answers a read or a write with CORRUPT or
 * NOTADB, for pages past the header and schema that opening the file never reads. The run goes on
 * without the cache (asking the service for what it would have read), and says so once, at warn
 * level and in the summary. The file is marked damaged (_sqlite-schema.ts DAMAGED_KEY), so that
 * the next run refuses it at open with CACHE_UNUSABLE, as it refuses a file damaged at its start,
 * instead of paying for every row again, night after night, with one line in its summary.
 */
import type { Logger } from 'pino';
import { sqliteCode, unusable } from './_errors.js';
import type { CacheStore } from './store.js';
import type { CacheTally } from './tally.js';

/** SQLite's own word for damage: SQLITE_CORRUPT (11) or SQLITE_NOTADB (26), extended codes included. */
export function isDamage(error: unknown): boolean {
  const code = sqliteCode(error);
  return code === 11 || code === 26;
}

/**
 * The store as a run uses it: once a read or a write finds damage, reads answer nothing (the
 * items are misses, asked of the service), writes fail as CACHE_UNUSABLE with problem `damaged`
 * (the writer stops without a word of its own), and the run is not recorded in the file.
 */
export function watchedForDamage(store: CacheStore, tally: CacheTally, logger: Logger): CacheStore {
  let damage: Error | undefined;
  const found = async (error: unknown): Promise<Error> => {
    if (damage !== undefined) return damage;
    damage = error as Error;
    const unmarked = await (store.markDamaged?.(damage.message) ?? Promise.resolve(false)).then(
      (marked) => (marked ? undefined : 'the cache is read-only in this run'),
      (failure: unknown) => (failure as Error).message,
    );
    const problem = damaged(store.location, damage.message, unmarked);
    tally.problems.push(problem);
    logger.warn({ cache: store.location }, `Request cache: ${problem}`);
    return damage;
  };
  const stopped = (cause: Error) =>
    unusable(store.location, `it is damaged (SQLite: ${cause.message})`, { problem: 'damaged', cause });
  return {
    kind: store.kind,
    location: store.location,
    async getMany(scope, items) {
      if (damage !== undefined) return new Map();
      try {
        return await store.getMany(scope, items);
      } catch (error) {
        if (!isDamage(error)) throw error;
        await found(error);
        return new Map();
      }
    },
    async getAll(scope) {
      if (damage !== undefined) return new Map();
      try {
        return await store.getAll(scope);
      } catch (error) {
        if (!isDamage(error)) throw error;
        await found(error);
        return new Map();
      }
    },
    async putMany(entries) {
      if (damage !== undefined) throw stopped(damage);
      try {
        await store.putMany(entries);
      } catch (error) {
        if (!isDamage(error)) throw error;
        throw stopped(await found(error));
      }
    },
    stats: (recentRuns) => store.stats(recentRuns),
    prune: (rule) => store.prune(rule),
    clear: (only) => store.clear(only),
    async recordRun(run) {
      if (damage === undefined) await store.recordRun(run);
    },
    close: () => store.close(),
  };
}

/** The problem in words; `unmarked`: why the file could not be marked damaged, if it was not. */
function damaged(location: string, message: string, unmarked: string | undefined): string {
  const clear = `\`geobatch cache clear --cache ${location}\` deletes it (the next run starts an empty cache)`;
  const later =
    unmarked === undefined
      ? `later runs refuse it (CACHE_UNUSABLE) until ${clear}`
      : `it could not be marked for later runs (${unmarked}), which find the damage only as they read it: ${clear}`;
  return `${location} is damaged (SQLite: ${message}): this run goes on without it, asking the service for every item it would have read from it; ${later}`;
}

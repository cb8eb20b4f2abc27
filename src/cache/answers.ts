/**
 * The engine's answer cache over a store: per job, one scope; per item, its dedup key. Lookups
 * take the engine's batch in one query and keep only fresh entries; fresh answers from the
 * service are classified (answer, not found, or not to keep) and handed to the writer.
 */
import type { Logger } from 'pino';
import type { CacheMode } from '../config/cache.js';
import type { AnswerCache, AnswerLookup } from '../engine/answers.js';
import type { Batching, ItemResult } from '../engine/job.js';
import { ENGINE_DEFAULTS } from '../engine/options.js';
import { classify, type KindPolicy } from './_kinds.js';
import { lostCacheAdvice } from './_pg-lost.js';
import { SeenKeys } from './_seen-keys.js';
import { StaleKeys } from './_stale-keys.js';
import { isFresh, type Lifetimes } from './lifetimes.js';
import type { CacheStore, Scope, StoredEntry } from './store.js';
import { type CacheTally, countFor } from './tally.js';
import type { CacheWriter } from './writer.js';

export interface AnswerCacheOptions {
  readonly store: CacheStore;
  readonly scope: Scope;
  readonly policy: KindPolicy;
  readonly lifetimes: Lifetimes;
  readonly mode: CacheMode;
  /** Absent: nothing is written (read-only, dry run). */
  readonly writer: CacheWriter | undefined;
  readonly tally: CacheTally;
  readonly logger: Logger;
  /** The job's batching, to count the requests the hits saved as the job would have packed them. */
  readonly batching?: Batching<unknown>;
  /**
   * Answers the engine's dedup remembers (`run.dedupCacheSize`): a key hit again within that many
   * spared no request of its own, as dedup would have answered it (_seen-keys.ts). @default 10000
   */
  readonly dedupMemory?: number;
  /**
   * The keys met by the other steps that share this one's dedup (pipeline steps of one scope):
   * a key another step met spared no request either, as their shared dedup would have answered it.
   * @default this cache's own
   */
  readonly seen?: SeenKeys;
  readonly now?: () => number;
  /**
   * When the run began (ms since the epoch), if before this cache was made: a distributed run's
   * worker makes one per chunk, and a refresh run takes answers written since the run began. A
   * function is asked at each lookup: a run that starts over (--restart-if-changed) moves it.
   */
  readonly runStartedAt?: number | (() => number);
}

/** `[`: a packed answer (_packing.ts); a plain result is a JSON object. */
const LEFT_BRACKET = 0x5b;

/** Groups whose partial requests are tracked for the saving estimate; beyond, counting restarts. */
const MAX_GROUPS = 10_000;

/** The cache's answers for one step, as the engine and a distributed run's workers use them. */
export interface CacheAnswers extends AnswerCache {
  /**
   * Items a lookup missed, read again once another worker that was buying them has written its
   * answers: a hit found now is counted as a hit (a miss is counted only when an item is sent:
   * `asked`). A refresh run takes only the answers written since it began, as its lookups do:
   * they are as fresh as the ones it would buy. Resolves to an empty map when reading fails.
   */
  recheck(items: readonly AnswerLookup[]): Promise<ReadonlyMap<string, ItemResult<unknown>>>;
}

export function createAnswerCache(o: AnswerCacheOptions): CacheAnswers {
  const now = o.now ?? Date.now;
  const savings = savingsCounter(
    o.batching,
    o.tally,
    o.seen ?? new SeenKeys(o.dedupMemory ?? ENGINE_DEFAULTS.dedupCacheSize),
  );
  let reading = true;
  let failed = false;
  /**
   * Keys a lookup found past their lifetime: counted as `expired` with their miss, when they are
   * sent (`asked`). Those answered otherwise (a recheck) or never sent (a stop) are dropped.
   */
  const stale = new StaleKeys();
  /**
   * A refresh run takes no answer written before it, but does take one written during it: an
   * item met again beyond the dedup window, or in another worker's chunk, is not bought twice.
   */
  const started = o.runStartedAt ?? now();
  const sinceOf = (): number | undefined =>
    o.mode !== 'refresh' ? undefined : typeof started === 'function' ? started() : started;

  const packing = o.policy.packing;

  function decode(value: string): ItemResult<unknown> | undefined {
    try {
      if (packing !== undefined && value.charCodeAt(0) === LEFT_BRACKET) {
        const packed = JSON.parse(value) as unknown;
        const answer = Array.isArray(packed) ? packing.unpack(packed) : undefined;
        return answer === undefined ? undefined : { ok: true, value: answer };
      }
      const result = JSON.parse(value) as ItemResult<unknown> | null;
      if (result?.ok === true && 'value' in result) return result;
      if (result?.ok === false && typeof result.failure?.code === 'string') return result;
    } catch {
      // An entry that is not ours to read is a miss, never an answer.
    }
    return undefined;
  }

  /** The answer an entry holds, if it is fresh, ours to read and (refreshing) written by this run. */
  function fresh(entry: StoredEntry | undefined, at: number): ItemResult<unknown> | undefined {
    if (entry === undefined) return undefined;
    const since = sinceOf();
    return (since === undefined || entry.createdAt >= since) &&
      isFresh(entry, o.scope.interface, o.lifetimes, at)
      ? decode(entry.value)
      : undefined;
  }

  /** An entry that is there but past its lifetime (one a refresh replaces is not counted). */
  function expired(entry: StoredEntry | undefined, at: number): boolean {
    return (
      entry !== undefined && sinceOf() === undefined && !isFresh(entry, o.scope.interface, o.lifetimes, at)
    );
  }

  function encode(result: ItemResult<unknown>): string {
    const packed = result.ok ? packing?.pack(result.value) : undefined;
    return JSON.stringify(packed ?? result);
  }

  return {
    async lookup(items: readonly AnswerLookup[]) {
      const found = new Map<string, ItemResult<unknown>>();
      // Misses are counted when sent (`asked`), not here: an item read ahead of a stop is never sent.
      if (!reading) return found;
      let entries: Awaited<ReturnType<CacheStore['getMany']>>;
      try {
        entries = await o.store.getMany(
          o.scope,
          items.map((i) => i.key),
        );
      } catch (error) {
        reading = false;
        failed = true;
        const advice =
          o.store.kind === 'postgres'
            ? lostCacheAdvice(error)
            : `\`geobatch cache clear --cache ${o.store.location}\` starts an empty cache`;
        const problem = `${o.store.location}: reading failed (${(error as Error).message}); the run goes on asking the service. ${advice}`;
        o.tally.problems.push(problem);
        o.logger.error({ cache: o.store.location }, `Request cache: ${problem}`);
        return found;
      }
      const at = now();
      for (const { key, item, row } of items) {
        const entry = entries.get(key);
        const result = fresh(entry, at);
        if (result === undefined) {
          if (expired(entry, at)) stale.add(key);
          continue;
        }
        found.set(key, result);
        countFor(o.tally, 'hits', row);
        savings(key, item, row);
      }
      return found;
    },
    async recheck(items: readonly AnswerLookup[]) {
      const found = new Map<string, ItemResult<unknown>>();
      if (failed || items.length === 0) return found;
      let entries: Awaited<ReturnType<CacheStore['getMany']>>;
      try {
        entries = await o.store.getMany(
          o.scope,
          items.map((i) => i.key),
        );
      } catch {
        // The items stay misses and are asked of the service; a store that fails is reported by
        // the lookups, which stop reading.
        return found;
      }
      const at = now();
      for (const { key, item, row } of items) {
        const entry = entries.get(key);
        const result = fresh(entry, at);
        if (result === undefined) continue;
        found.set(key, result);
        stale.delete(key);
        countFor(o.tally, 'hits', row);
        savings(key, item, row);
      }
      return found;
    },
    asked(items: readonly AnswerLookup[]) {
      for (const { key, row } of items) {
        countFor(o.tally, 'misses', row);
        if (stale.delete(key)) countFor(o.tally, 'expired', row);
      }
    },
    remember(key, _item, result) {
      if (o.writer === undefined || o.mode === 'read-only') return;
      const kind = classify(o.policy, result);
      if (kind === 'skip') return;
      o.writer.add({
        scope: o.scope,
        item: key,
        value: encode(result),
        notFound: kind === 'not-found',
        createdAt: now(),
      });
    },
  };
}

/**
 * Counts the requests the hits would have cost: one each for a job that sends items alone; for a
 * batching job, the hits of each group packed up to maxItems (and maxWeight). An estimate: the
 * real packing also depends on timing (linger). A key hit before in this run spared nothing more:
 * without the cache, dedup would have answered it (_seen-keys.ts).
 */
function savingsCounter(
  batching: Batching<unknown> | undefined,
  tally: CacheTally,
  seen: SeenKeys,
): (key: string, item: unknown, row: number | undefined) => void {
  if (batching === undefined) {
    return (key, _item, row) => {
      if (!seen.seenBefore(key)) countFor(tally, 'requestsSaved', row);
    };
  }
  let groups = new Map<string, { count: number; weight: number; requests: number }>();
  return (key, item, row) => {
    if (seen.seenBefore(key)) return;
    const group = batching.group?.(item) ?? '';
    let g = groups.get(group);
    if (g === undefined) {
      if (groups.size >= MAX_GROUPS) groups = new Map();
      g = { count: 0, weight: 0, requests: 0 };
      groups.set(group, g);
    }
    g.count++;
    g.weight += batching.weight?.(item) ?? 0;
    const byItems = Math.ceil(g.count / batching.maxItems);
    const byWeight = batching.maxWeight === undefined ? 0 : Math.ceil(g.weight / batching.maxWeight);
    const requests = Math.max(byItems, byWeight);
    // Counted on the row whose hit made the request: a request's worth belongs to one row.
    if (requests > g.requests) countFor(tally, 'requestsSaved', row, requests - g.requests);
    g.requests = requests;
  };
}

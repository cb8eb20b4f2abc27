/**
 * The engine's port to a persistent answer cache (src/cache implements it). The engine asks it
 * about items that dedup and local answers could not settle, before they are batched, so that
 * only the items it does not know are packed into requests: a nightly run with 1% new rows sends
 * about 1% of the requests, not every request with 1% of the items.
 */
import type { ItemResult } from './job.js';

export interface AnswerLookup {
  readonly key: string;
  readonly item: unknown;
  /**
   * The input row (RowRef.index) that first needed the item, when the engine asks: the cache
   * counts its hit or miss on that row's behalf, so that a checkpoint carries only the counts of
   * the rows it committed.
   */
  readonly row?: number;
}

export interface AnswerCache {
  /**
   * The answers known for these items, by key; a key missing from the map must be requested.
   * Resolves to an empty map rather than rejecting: a cache that fails costs requests, not rows.
   */
  lookup(items: readonly AnswerLookup[]): Promise<ReadonlyMap<string, ItemResult<unknown>>>;
  /** A fresh answer from the service, as it arrives; the cache decides whether it keeps it. */
  remember(key: string, item: unknown, result: ItemResult<unknown>): void;
  /**
   * These items, which the lookup did not answer, went to the service in a request that reached
   * it (answered or failed; not one a stop abandoned), each told once (a second pass is not): the
   * cache's misses. Counted at lookup, a run stopped by a quota and resumed counted the items read
   * ahead of the stop, never sent, as misses of both sessions (168 misses for 99 rows).
   */
  asked?(items: readonly AnswerLookup[]): void;
  /**
   * The lookup claims the items it misses among a distributed run's chunks (queue/_shared-flights.ts):
   * an item of this step must go through it, not wait on another step's flight, which no claim
   * covers (another chunk then bought it too). @default false
   */
  readonly claimsItems?: boolean;
}

/** Engine options: one commented defaults object, validated once at the boundary. */
import { UsageError } from '../errors.js';
import type { AnswerCache } from './answers.js';

export interface EngineOptions {
  /** Requests (single items or batches) in flight at once. @default 8 */
  concurrency?: number;
  /**
   * Rows read but not yet written: the reorder window. Output leaves in input order, so a slow
   * row holds back at most this many finished ones. Keep it a few times the job's batch size.
   * @default 2048
   */
  window?: number;
  /**
   * Finished answers remembered so that an identical item later in the run is not requested
   * again. 0 keeps only the sharing of requests in flight. @default 50000
   */
  dedupCacheSize?: number;
  /**
   * The reorder window's byte budget: rows are read only while the rows in it (their fields,
   * input geometry and, once rendered, their output records, as estimated in memory) take less.
   * One row is always let in, however large. @default 33554432 (32 MiB)
   */
  windowBytes?: number;
  /**
   * The dedup cache's byte budget (keys and answers, as estimated in memory), besides its count
   * of answers; 0 keeps only the sharing of requests in flight. @default 33554432 (32 MiB)
   */
  dedupCacheBytes?: number;
  /** Answers of earlier runs, asked before an item is batched (the persistent cache). @default none */
  answers?: AnswerCache;
}

export type ResolvedEngineOptions = Required<Omit<EngineOptions, 'answers'>>;

export const ENGINE_DEFAULTS: ResolvedEngineOptions = {
  // The client throttles per service; this only bounds what is queued at it.
  concurrency: 8,
  // ~2k rows of a few hundred bytes each: megabytes, not more, whatever the input size.
  window: 2048,
  // Bounded so that a 10 GB file with unique keys keeps flat memory.
  dedupCacheSize: 50_000,
  // Byte budgets, so that large rows (polygons, long texts) or large answers cannot make a window
  // or a cache of a sensible count hold gigabytes; together with the write buffers (64 KiB per
  // file) they keep a run's own data well under 100 MB, whatever its rows are like.
  windowBytes: 32 * 1024 * 1024,
  dedupCacheBytes: 32 * 1024 * 1024,
};

function positiveInteger(name: string, value: number, allowZero = false): number {
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new UsageError(
      `Expected \`${name}\` to be a ${allowZero ? 'non-negative' : 'positive'} integer, got \`${value}\``,
      { expected: allowZero ? 'an integer >= 0' : 'an integer >= 1', received: String(value) },
    );
  }
  return value;
}

export function resolveEngineOptions(options: EngineOptions = {}): ResolvedEngineOptions {
  return {
    concurrency: positiveInteger('concurrency', options.concurrency ?? ENGINE_DEFAULTS.concurrency),
    window: positiveInteger('window', options.window ?? ENGINE_DEFAULTS.window),
    dedupCacheSize: positiveInteger(
      'dedupCacheSize',
      options.dedupCacheSize ?? ENGINE_DEFAULTS.dedupCacheSize,
      true,
    ),
    windowBytes: positiveInteger('windowBytes', options.windowBytes ?? ENGINE_DEFAULTS.windowBytes),
    dedupCacheBytes: positiveInteger(
      'dedupCacheBytes',
      options.dedupCacheBytes ?? ENGINE_DEFAULTS.dedupCacheBytes,
      true,
    ),
  };
}

/** Engine options: one commented defaults object, validated once at the boundary. */
import { UsageError } from '../errors.js';
import type { RetrySleeps } from '../retry-sleeps.js';
import type { AnswerCache } from './answers.js';

export interface EngineOptions {
  /** Requests (single items or batches) in flight at once. @default 8 */
  concurrency?: number;
  /**
   * Rows read and still waiting for their answers: the work in flight, and the largest group (a
   * trip's stops, a track's window) a request can take. Output leaves in input order; finished rows
   * waiting behind a slow one do not count here, only against `windowBytes`, so that a row sleeping
   * out a Retry-After does not stop the rows behind it. Keep it a few times the job's batch size.
   * Rows are read only while fewer than `concurrency` requests wait for a slot: the window fills
   * with finished rows behind a slow one, not with rows that could not be sent yet.
   * @default 2048
   */
  window?: number;
  /**
   * Finished answers remembered so that an identical item later in the run is not requested
   * again. 0 keeps only the sharing of requests in flight. @default 10000
   */
  dedupCacheSize?: number;
  /**
   * The reorder window's byte budget: rows are read only while the rows in it, finished or not
   * (their fields, input geometry and, once rendered, their output records, as estimated in
   * memory), take less. It alone bounds the finished rows waiting behind a slow one. One row is
   * always let in, however large. @default 16777216 (16 MiB)
   */
  windowBytes?: number;
  /**
   * The dedup cache's byte budget (keys and answers, as estimated in memory), besides its count
   * of answers; 0 keeps only the sharing of requests in flight. @default 8388608 (8 MiB)
   */
  dedupCacheBytes?: number;
  /** Answers of earlier runs, asked before an item is batched (the persistent cache). @default none */
  answers?: AnswerCache;
  /**
   * The client's requests asleep before a retry: they do not count against `concurrency`, so
   * that requests sleeping out a Retry-After do not stop the others (src/retry-sleeps.ts).
   * @default none: every request counts until it settles
   */
  retrySleeps?: RetrySleeps;
}

export type ResolvedEngineOptions = Required<Omit<EngineOptions, 'answers' | 'retrySleeps'>>;

export const ENGINE_DEFAULTS: ResolvedEngineOptions = {
  // The client throttles per service; this only bounds what is queued at it.
  concurrency: 8,
  // ~2k rows in flight of a few hundred bytes each: megabytes, not more, whatever the input size.
  // More kept elevation's 500-point batches 16 in flight instead of 4, and a 100,000-point run
  // peaked at 162 MB instead of 141 (BENCHMARKS.md). Finished rows behind a slow one are bounded
  // by `windowBytes` only (engine.ts, hasRoom).
  window: 2048,
  // Bounded so that a 10 GB file with unique keys keeps flat memory. What it saves beyond the
  // sharing of requests in flight is an identical item further back than the window: with the
  // request cache (on by default) such an item is answered from the cache file anyway, so the
  // count is sized for memory. 50,000 geocoding answers held about 30 MB more at the peak of a
  // 100,000-row run than none; 10,000 about 2 MB (BENCHMARKS.md, memory).
  dedupCacheSize: 10_000,
  // Byte budgets, so that large rows (polygons, long texts) or large answers cannot make a window
  // or a cache of a sensible count hold gigabytes. What a run holds alive is paid about one and a
  // half times in resident memory (the CLI's standard heap lets the old generation grow by half
  // of what survived its last collection; GEOBATCH_HEAP=large, twice), so these 24 MiB with the
  // write buffers (64 KiB per file) add at most about 40 MB to the process (50 with the large
  // heap), whatever the rows are like (32 + 32 MiB could add more than 120).
  windowBytes: 16 * 1024 * 1024,
  dedupCacheBytes: 8 * 1024 * 1024,
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

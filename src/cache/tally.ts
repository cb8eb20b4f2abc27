/** What a run did with the cache, for the summary, the closing line and `cache stats`. */
export interface CacheTally {
  /** Items answered from the cache. */
  hits: number;
  /** Items looked up and not found (or found too old), so asked of the service. */
  misses: number;
  /** Of the misses: entries found but past their lifetime. */
  expired: number;
  /** Entries written (new answers, and refreshed ones). */
  writes: number;
  /** Requests not sent thanks to the hits (for batched jobs, the hits packed as the job packs). */
  requestsSaved: number;
  /** Problems that made the run go on without (part of) the cache, in words. */
  problems: string[];
}

/** A tally's counts, as a checkpoint carries them from one session of a run to the next. */
export type CacheCounts = Pick<CacheTally, 'hits' | 'misses' | 'expired' | 'writes' | 'requestsSaved'>;

/** `more` added to `into` (a resumed run's cache counts on top of the earlier sessions'). */
export function addCacheCounts<T extends CacheCounts>(into: T, more: CacheCounts | undefined): T {
  if (more === undefined) return into;
  return {
    ...into,
    hits: into.hits + more.hits,
    misses: into.misses + more.misses,
    expired: into.expired + more.expired,
    writes: into.writes + more.writes,
    requestsSaved: into.requestsSaved + more.requestsSaved,
  };
}

export function createTally(): CacheTally {
  return { hits: 0, misses: 0, expired: 0, writes: 0, requestsSaved: 0, problems: [] };
}

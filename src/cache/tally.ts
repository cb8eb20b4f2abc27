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
  /**
   * The counts of each row a checkpoint has not committed yet, while a run keeps a checkpoint
   * (RunCache.rowCounts): a row a stop leaves uncommitted is answered again by the resume.
   */
  rows?: RowCounts;
}

/** The counts a row is answered with: its items' hits and misses, and what they spared. */
export type RowCounted = 'hits' | 'misses' | 'expired' | 'requestsSaved';

/**
 * Adds `n` to one of the tally's counts, on behalf of the input row `row` (RowRef.index) when the
 * engine says which: the row that first needed the item, or for a request, its last row.
 */
export function countFor(tally: CacheTally, field: RowCounted, row: number | undefined, n = 1): void {
  tally[field] += n;
  if (row !== undefined) tally.rows?.add(row, field, n);
}

/**
 * The cache's counts by input row, for the rows a checkpoint has not committed yet. A checkpoint
 * carries the counts to the next session of the run, and the rows a stop caught in flight are read
 * and answered again by that session: carried as well, a resumed geocode run counted 405 items for
 * 403 rows. Rows below the last committed one are forgotten, so it holds what is in flight and
 * what was written since the last checkpoint.
 */
export class RowCounts {
  /** Per count, the rows that have some: a map of numbers each, no object per row. */
  private readonly byField: Record<RowCounted, Map<number, number>> = {
    hits: new Map(),
    misses: new Map(),
    expired: new Map(),
    requestsSaved: new Map(),
  };

  add(row: number, field: RowCounted, n: number): void {
    const rows = this.byField[field];
    rows.set(row, (rows.get(row) ?? 0) + n);
  }

  /** The counts of the rows from `committedRows` on; those below are committed for good. */
  from(committedRows: number): CacheCounts {
    const sum = (rows: Map<number, number>): number => {
      let total = 0;
      for (const [row, n] of rows) {
        if (row < committedRows) rows.delete(row);
        else total += n;
      }
      return total;
    };
    const f = this.byField;
    return {
      hits: sum(f.hits),
      misses: sum(f.misses),
      expired: sum(f.expired),
      writes: 0,
      requestsSaved: sum(f.requestsSaved),
    };
  }
}

/** `less` taken from `counts` (what a checkpoint carries: the counts less the uncommitted rows'). */
export function subtractCacheCounts<T extends CacheCounts>(counts: T, less: CacheCounts): T {
  return {
    ...counts,
    hits: counts.hits - less.hits,
    misses: counts.misses - less.misses,
    expired: counts.expired - less.expired,
    writes: counts.writes - less.writes,
    requestsSaved: counts.requestsSaved - less.requestsSaved,
  };
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

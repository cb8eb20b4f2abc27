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
  /**
   * What was counted, in the order it was: the row, which count (FIELD_INDEX) and by how much,
   * in typed arrays grown by doubling. Appending is what a fully cached run does for every row,
   * twice: a Map per count (get, set, and deleting the committed rows) made such a run 10-15%
   * slower, plain arrays about 7%. `from` sums the rest and drops what is committed, once per
   * checkpoint.
   */
  private rows = new Float64Array(1024);
  private fields = new Uint8Array(1024);
  private ns = new Float64Array(1024);
  private length = 0;

  add(row: number, field: RowCounted, n: number): void {
    if (this.length === this.rows.length) this.grow();
    const i = this.length++;
    this.rows[i] = row;
    this.fields[i] = FIELD_INDEX[field];
    this.ns[i] = n;
  }

  /** The counts of the rows from `committedRows` on; those below are committed for good. */
  from(committedRows: number): CacheCounts {
    const totals = [0, 0, 0, 0];
    const { rows, fields, ns } = this;
    let kept = 0;
    for (let i = 0; i < this.length; i++) {
      const row = rows[i] as number;
      if (row < committedRows) continue;
      const field = fields[i] as number;
      const n = ns[i] as number;
      totals[field] = (totals[field] as number) + n;
      rows[kept] = row;
      fields[kept] = field;
      ns[kept] = n;
      kept++;
    }
    this.length = kept;
    const [hits = 0, misses = 0, expired = 0, requestsSaved = 0] = totals;
    return { hits, misses, expired, writes: 0, requestsSaved };
  }

  private grow(): void {
    const size = this.rows.length * 2;
    const rows = new Float64Array(size);
    const fields = new Uint8Array(size);
    const ns = new Float64Array(size);
    rows.set(this.rows);
    fields.set(this.fields);
    ns.set(this.ns);
    this.rows = rows;
    this.fields = fields;
    this.ns = ns;
  }
}

const FIELD_INDEX: Readonly<Record<RowCounted, number>> = {
  hits: 0,
  misses: 1,
  expired: 2,
  requestsSaved: 3,
};

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

/**
 * The one interface both stores implement (SQLite for one machine, PostgreSQL for several). A
 * store keeps answers as text under a scope (service, operation, parameters) and an item key; it
 * knows nothing of lifetimes, which are applied by whoever reads, so that a job file that shortens
 * a lifetime takes effect on entries written before.
 */

/** The service interfaces answers are cached for; lifetimes and `cache stats` go by these. */
export type CacheInterface =
  | 'geocoding'
  | 'elevation'
  | 'area'
  | 'addressSearch'
  | 'routing'
  | 'autocomplete';

export const CACHE_INTERFACES: readonly CacheInterface[] = [
  'geocoding',
  'elevation',
  'area',
  'addressSearch',
  'routing',
  'autocomplete',
];

/** What answers are keyed under, besides the item: see key.ts. */
export interface Scope {
  readonly interface: CacheInterface;
  /** Canonical JSON of service, operation, parameters and answer format; unique per scope. */
  readonly description: string;
}

export interface StoredEntry {
  /** The answer, as the layer above encoded it. */
  readonly value: string;
  /** A "nothing found" answer: kept with the shorter not-found lifetime. */
  readonly notFound: boolean;
  /** When it was written, in ms since the epoch. */
  readonly createdAt: number;
}

export interface NewEntry extends StoredEntry {
  readonly scope: Scope;
  readonly item: string;
}

export interface InterfaceStats {
  readonly interface: string;
  readonly entries: number;
  readonly notFound: number;
  /** Keys and values, not the store's own overhead. */
  readonly bytes: number;
  readonly oldest: number | null;
  readonly newest: number | null;
}

/** One run's use of the cache, as `cache stats` lists it. */
export interface RunRecord {
  readonly startedAt: number;
  readonly endedAt: number;
  readonly job: string;
  readonly hits: number;
  readonly misses: number;
  readonly writes: number;
  readonly requestsSaved: number;
}

export interface CacheStats {
  readonly kind: 'sqlite' | 'postgres';
  readonly location: string;
  readonly schemaVersion: number;
  /** The store's size on disk (SQLite: the file and its WAL), when it can tell. */
  readonly sizeBytes: number | null;
  readonly interfaces: readonly InterfaceStats[];
  /** Most recent first. */
  readonly runs: readonly RunRecord[];
}

export interface PruneRule {
  /** Entries written before this instant go, whatever their interface. */
  readonly before?: number;
  /** Otherwise: entries older than their interface's lifetime (ms), or the not-found one. */
  readonly lifetimes?: {
    readonly byInterface: Readonly<Record<CacheInterface, number>>;
    readonly notFound: number;
  };
}

export interface CacheStore {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, fit to print (a PostgreSQL password is masked). */
  readonly location: string;
  /** Entries of these items under one scope, whatever their age; unknown items are absent. */
  getMany(scope: Scope, items: readonly string[]): Promise<Map<string, StoredEntry>>;
  /** Every entry of a scope (the areas of one boundary level). */
  getAll(scope: Scope): Promise<Map<string, StoredEntry>>;
  /** Writes (or replaces) entries in one transaction: all of them are durable once it resolves. */
  putMany(entries: readonly NewEntry[]): Promise<void>;
  stats(recentRuns?: number): Promise<CacheStats>;
  /** Deletes what the rule says; resolves to the number of entries deleted. */
  prune(rule: PruneRule): Promise<number>;
  /** Deletes every entry, or those of one interface; resolves to the number deleted. */
  clear(only?: CacheInterface): Promise<number>;
  recordRun(run: RunRecord): Promise<void>;
  /**
   * Records in the store that a read or a write found it damaged, so that opening it again refuses
   * it (_damage.ts); resolves to false when it may not write (read-only). Absent where damage is
   * not the store's to find (PostgreSQL).
   */
  markDamaged?(reason: string): Promise<boolean>;
  close(): Promise<void>;
}

/** How many runs a store remembers for `cache stats`. */
export const RUNS_KEPT = 100;

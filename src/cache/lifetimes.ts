/**
 * How long a cached answer is used. Answers age at different speeds: the ground's elevation
 * hardly changes, district borders rarely, addresses now and then, and company records daily.
 * A "nothing found" answer is kept briefly, since the service may learn the address tomorrow,
 * and never longer than its interface's answers.
 */
import type { CacheInterface, StoredEntry } from './store.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Lifetimes in days. A job file's `cache.lifetimes` overrides any of them. */
export const DEFAULT_LIFETIME_DAYS: Readonly<Record<CacheInterface | 'notFound', number>> = {
  /** Terrain elevation. @default 365 */
  elevation: 365,
  /** Administrative boundaries (the areas of the boundaries job). @default 180 */
  area: 180,
  /** Geocoding and reverse geocoding. @default 90 */
  geocoding: 90,
  /** Company records (customer lookup, address search). @default 1 */
  addressSearch: 1,
  /** Matrix cells, routes and isochrones. @default 7 */
  routing: 7,
  /** The best suggestion for a text. @default 90 */
  autocomplete: 90,
  /** Any "nothing found" answer, whatever its interface (at most the interface's). @default 1 */
  notFound: 1,
};

export type LifetimeDays = Partial<Record<CacheInterface | 'notFound', number>>;

export interface Lifetimes {
  readonly byInterface: Readonly<Record<CacheInterface, number>>;
  readonly notFound: number;
}

/** Days (the job file's unit) to milliseconds, the defaults filled in. */
export function resolveLifetimes(days: LifetimeDays = {}): Lifetimes {
  const merged = { ...DEFAULT_LIFETIME_DAYS, ...days };
  return {
    byInterface: {
      elevation: merged.elevation * DAY_MS,
      area: merged.area * DAY_MS,
      geocoding: merged.geocoding * DAY_MS,
      addressSearch: merged.addressSearch * DAY_MS,
      routing: merged.routing * DAY_MS,
      autocomplete: merged.autocomplete * DAY_MS,
    },
    notFound: merged.notFound * DAY_MS,
  };
}

/**
 * How long an entry answers, in ms. A "nothing found" answer is an answer of its interface too:
 * it lives the shorter of the two lifetimes, so that `geocoding: 0` stops every geocoding answer.
 * Reads (isFresh) and prune go by this one rule.
 */
export function lifetimeOf(notFound: boolean, iface: CacheInterface, lifetimes: Lifetimes): number {
  const ofInterface = lifetimes.byInterface[iface];
  return notFound ? Math.min(ofInterface, lifetimes.notFound) : ofInterface;
}

/** Whether an entry may still answer at `now`. */
export function isFresh(
  entry: StoredEntry,
  iface: CacheInterface,
  lifetimes: Lifetimes,
  now: number,
): boolean {
  // Another machine's clock may run a little ahead: a negative age is young, not invalid.
  return now - entry.createdAt < lifetimeOf(entry.notFound, iface, lifetimes);
}

/** `30d`, `12h`, `90m`, `45s` -> milliseconds; undefined for anything else. */
export function parseAge(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(d|h|m|s)$/.exec(text.trim());
  if (match === null) return undefined;
  const unit = { d: DAY_MS, h: 3_600_000, m: 60_000, s: 1000 }[match[2] as 'd' | 'h' | 'm' | 's'];
  return Number(match[1]) * unit;
}

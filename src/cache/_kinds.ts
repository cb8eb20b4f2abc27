/**
 * What the cache needs to know per job kind: the interface it bills, the operation, which options
 * only shape the output (so changing them keeps the cache), and which answers mean "nothing
 * found". An option not listed as presentation is part of the key: an option added later makes a
 * new scope (requests again) rather than a wrong answer.
 */
import type { EndpointName } from '../config/load.js';
import type { ItemResult } from '../engine/job.js';
import { GEOCODE_PACKING, type Packing } from './_packing.js';
import type { CacheInterface } from './store.js';

export interface KindPolicy {
  readonly interface: CacheInterface;
  readonly endpoint: EndpointName;
  readonly operation: string;
  /** Options that change the columns or the pacing, never the answer. */
  readonly presentation: readonly string[];
  /** Option defaults that change the answer, so that leaving one out and writing it agree. */
  readonly defaults?: (options: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** A kept answer that says nothing was found (lives with the not-found lifetime). */
  readonly notFound: (value: unknown) => boolean;
  /** Raise when the stored form of this kind's answers changes. */
  readonly format: number;
  /** A compact stored form for its answers (_packing.ts); absent: kept as plain JSON. */
  readonly packing?: Packing;
}

const noMatch = (value: unknown) => (value as { match?: unknown } | null)?.match === null;

/** Boundaries are cached as areas (areas.ts), not per item: a polygon per row would be wasteful. */
export const ITEM_POLICIES: Readonly<Partial<Record<string, KindPolicy>>> = {
  geocode: {
    interface: 'geocoding',
    endpoint: 'geojson',
    operation: 'geocode',
    presentation: ['prefix'],
    notFound: noMatch,
    format: 1,
    packing: GEOCODE_PACKING,
  },
  'reverse-geocode': {
    interface: 'geocoding',
    endpoint: 'geojson',
    operation: 'reverse-geocode',
    presentation: ['prefix'],
    notFound: noMatch,
    format: 1,
    packing: GEOCODE_PACKING,
  },
  elevation: {
    interface: 'elevation',
    endpoint: 'elevation',
    operation: 'elevation',
    presentation: ['prefix', 'batchSize', 'lingerMs'],
    notFound: (value) => value === null,
    format: 1,
  },
  'customer-lookup': {
    interface: 'addressSearch',
    endpoint: 'addressSearch',
    operation: 'by-customer-id',
    presentation: ['prefix', 'batchSize', 'maxUrlLength', 'fields', 'onMultiple', 'lingerMs'],
    notFound: (value) => Array.isArray(value) && value.length === 0,
    format: 1,
  },
  'address-search': {
    interface: 'addressSearch',
    endpoint: 'addressSearch',
    operation: 'nearby',
    presentation: ['prefix', 'mode'],
    defaults: (o) => {
      const nearest = typeof o.nearest === 'number' ? o.nearest : 1;
      return { radiusMeters: 5000, nearest, orderBy: 'DISTANCE', pageSize: Math.min(nearest, 100) };
    },
    notFound: (value) => (value as { total?: unknown } | null)?.total === 0,
    // 2: a position search sends its own point as Addition, without which the spec leaves every
    // Distance empty; an answer kept before may have none, so each search is asked once more.
    format: 2,
  },
  matrix: {
    interface: 'routing',
    endpoint: 'geojson',
    operation: 'matrix',
    presentation: ['prefix', 'destinations', 'tileSize', 'lingerMs'],
    defaults: () => ({ speedProfile: 'FAST' }),
    notFound: () => false,
    format: 1,
  },
  route: {
    interface: 'routing',
    endpoint: 'geojson',
    operation: 'route',
    presentation: ['prefix', 'wkt', 'coordFormat'],
    defaults: () => ({ speedProfile: 'FAST' }),
    notFound: () => false,
    format: 1,
  },
  isochrone: {
    interface: 'routing',
    endpoint: 'geojson',
    operation: 'isochrone',
    presentation: ['prefix', 'wkt', 'coordFormat'],
    defaults: () => ({ speedProfile: 'FAST' }),
    notFound: () => false,
    format: 1,
  },
  // The suggestions for a normalised text; `minScore` and `coordFormat` act when the row is
  // rendered, on the answer as it is.
  autocomplete: {
    interface: 'autocomplete',
    endpoint: 'autocomplete',
    operation: 'autocomplete',
    presentation: ['prefix', 'minScore', 'coordFormat'],
    defaults: () => ({ top: 5 }),
    notFound: (value) => Array.isArray(value) && value.length === 0,
    format: 1,
  },
  // Polygons by OSM id or rectangle, kept apart from the boundaries job's areas (another operation).
  'area-export': {
    interface: 'area',
    endpoint: 'area',
    operation: 'area-export',
    presentation: ['prefix', 'batchSize', 'lingerMs', 'geometryColumn'],
    notFound: (value) => Array.isArray(value) && value.length === 0,
    format: 1,
  },
  'identifier-lookup': {
    interface: 'addressSearch',
    endpoint: 'addressSearch',
    operation: 'by-identifier',
    presentation: ['prefix', 'fields', 'coordFormat'],
    notFound: (value) => value === null,
    format: 1,
  },
};

/** The answer-changing parameters of a job's options. */
export function answerParams(policy: KindPolicy, options: Readonly<Record<string, unknown>> | undefined) {
  const given = options ?? {};
  const params: Record<string, unknown> = { ...policy.defaults?.(given) };
  for (const [name, value] of Object.entries(given)) {
    if (!policy.presentation.includes(name) && value !== undefined) params[name] = value;
  }
  return params;
}

/**
 * Failures that are the service's answer about the item, not a failure to get one: an unknown key,
 * and an address the service cannot locate (address search by address, StatusCode 4), which is
 * the "nothing found" of that form as a geocoding no-match is of geocoding.
 */
const KEPT_FAILURES: ReadonlySet<string> = new Set(['NOT_FOUND', 'NO_MATCH']);

/** Whether a result is an answer worth keeping, and whether it is a "nothing found". */
export function classify(policy: KindPolicy, result: ItemResult<unknown>): 'answer' | 'not-found' | 'skip' {
  if (!result.ok)
    return result.failure.stage === 'response' && KEPT_FAILURES.has(result.failure.code)
      ? 'not-found'
      : 'skip';
  return policy.notFound(result.value) ? 'not-found' : 'answer';
}

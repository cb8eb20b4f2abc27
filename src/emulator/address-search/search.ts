/** Candidate selection, filtering and ordering of address records. */
import type { OrderBy } from '../../client/wire.js';
import { haversine, radiusBox } from '../lib/_geo.js';
import { fold } from '../lib/_text.js';
import type { BranchExpression } from './branches.js';
import { matchesBranches } from './branches.js';
import type { AddressIndex, AddressRecord } from './records.js';

export interface Hit {
  record: AddressRecord;
  /** Metres to the search location, where the search has one. */
  distance: number | null;
}

export interface Filter {
  expression: BranchExpression;
  catchwords: readonly string[];
}

/** Records within `radius` metres of any centre, with the distance to the nearest centre. */
export function nearby(index: AddressIndex, centres: readonly [number, number][], radius: number): Hit[] {
  const best = new Map<AddressRecord, number>();
  for (const [lon, lat] of centres) {
    const [w, s, e, n] = radiusBox(lon, lat, radius);
    for (const i of index.points.within(w, s, e, n)) {
      const record = index.records[i] as AddressRecord;
      const d = haversine(lon, lat, record.row.lon, record.row.lat);
      if (d <= radius && d < (best.get(record) ?? Number.POSITIVE_INFINITY)) best.set(record, d);
    }
  }
  return [...best].map(([record, distance]) => ({ record, distance }));
}

export function inRectangle(index: AddressIndex, w: number, s: number, e: number, n: number): Hit[] {
  return index.points
    .within(w, s, e, n)
    .map((i) => index.records[i] as AddressRecord)
    .filter((r) => r.row.lon >= w && r.row.lon <= e && r.row.lat >= s && r.row.lat <= n)
    .map((record) => ({ record, distance: null }));
}

export function filterHits(hits: Hit[], filter: Filter): Hit[] {
  const words = filter.catchwords.map(fold).filter(Boolean);
  return hits.filter(
    ({ record }) =>
      matchesBranches(record.codes, filter.expression) && words.every((w) => record.foldedName.includes(w)),
  );
}

const BY_NAME = new Set<OrderBy>(['COMPANY_NAME', 'MATRIX_COMPANY_NAME', 'PHONE_BOOK_SEARCH_NAME']);

/**
 * Sorts in place. Name orders use the German collation (precomputed ranks); every distance order
 * (the EVENT_* ones too: there are no events) sorts by `distanceOf`, then name; NONE keeps data order.
 */
export function orderHits(hits: Hit[], orderBy: OrderBy, distanceOf: (hit: Hit) => number): Hit[] {
  if (orderBy === 'NONE') return hits.sort((a, b) => a.record.seq - b.record.seq);
  if (BY_NAME.has(orderBy)) return hits.sort((a, b) => a.record.nameRank - b.record.nameRank);
  const keyed = hits.map((hit) => ({ hit, d: distanceOf(hit) }));
  keyed.sort((a, b) => a.d - b.d || a.hit.record.nameRank - b.hit.record.nameRank);
  return keyed.map((k) => k.hit);
}

/** Candidate selection, filtering and ordering of address records. */
import type { OrderBy } from '../../contract/index.js';
import { haversine, radiusBox } from '../lib/_geo.js';
import { fold } from '../lib/_text.js';
import type { BranchExpression } from './branches.js';
import { compileBranches, matchesMasks } from './branches.js';
import type { AddressIndex, AddressRecord } from './records.js';

export interface Hit {
  record: AddressRecord;
  /** Metres to the search location, where the search has one. */
  distance: number | null;
}

/** Which records a search accepts, whatever its area: categories and catchwords. */
export function recordFilter(expression: BranchExpression, catchwords: readonly string[]) {
  const terms = compileBranches(expression);
  const words = catchwords.map(fold).filter(Boolean);
  return (r: AddressRecord): boolean =>
    matchesMasks(r.branches, terms) && (words.length === 0 || words.every((w) => r.foldedName.includes(w)));
}

/** Accepted records within `radius` metres of any centre, with the distance to the nearest centre. */
export function nearby(
  index: AddressIndex,
  centres: readonly [number, number][],
  radius: number,
  accept: (r: AddressRecord) => boolean,
): Hit[] {
  // Several centres (several zips) may reach one record: keep it once, at its nearest centre.
  const best = centres.length > 1 ? new Map<AddressRecord, Hit>() : null;
  const hits: Hit[] = [];
  for (const [lon, lat] of centres) {
    const [w, s, e, n] = radiusBox(lon, lat, radius);
    for (const i of index.points.within(w, s, e, n)) {
      const record = index.records[i] as AddressRecord;
      if (!accept(record)) continue;
      const distance = haversine(lon, lat, record.row.lon, record.row.lat);
      if (distance > radius) continue;
      const known = best?.get(record);
      if (!known) {
        const hit = { record, distance };
        best?.set(record, hit);
        hits.push(hit);
      } else if (distance < (known.distance ?? 0)) known.distance = distance;
    }
  }
  return hits;
}

export function inRectangle(
  index: AddressIndex,
  [w, s, e, n]: readonly [number, number, number, number],
  accept: (r: AddressRecord) => boolean,
): Hit[] {
  const hits: Hit[] = [];
  for (const i of index.points.within(w, s, e, n)) {
    const record = index.records[i] as AddressRecord;
    const { lon, lat } = record.row;
    if (lon >= w && lon <= e && lat >= s && lat <= n && accept(record)) hits.push({ record, distance: null });
  }
  return hits;
}

const BY_NAME = new Set<OrderBy>(['COMPANY_NAME', 'MATRIX_COMPANY_NAME', 'PHONE_BOOK_SEARCH_NAME']);

/**
 * The hits from `start` to `end` in the requested order. Name orders use the German collation
 * through precomputed ranks and NONE the data order: both are a bucket sweep over the ranks, not a
 * sort. Every distance order (the EVENT_* ones too: there are no events) sorts by `distanceOf`,
 * then name.
 */
export function pageOfHits(
  hits: readonly Hit[],
  orderBy: OrderBy,
  distanceOf: (hit: Hit) => number,
  start: number,
  end: number,
): Hit[] {
  if (start >= hits.length) return [];
  const byName = BY_NAME.has(orderBy);
  if (byName || orderBy === 'NONE') {
    const slots: (Hit | undefined)[] = [];
    for (const hit of hits) slots[byName ? hit.record.nameRank : hit.record.seq] = hit;
    const out: Hit[] = [];
    let seen = 0;
    for (const hit of slots) {
      if (hit === undefined) continue;
      if (seen++ >= start) out.push(hit);
      if (seen >= end) break;
    }
    return out;
  }
  const keyed = hits.map((hit) => ({ hit, d: distanceOf(hit) }));
  keyed.sort((a, b) => a.d - b.d || a.hit.record.nameRank - b.hit.record.nameRank);
  return keyed.slice(start, end).map((k) => k.hit);
}

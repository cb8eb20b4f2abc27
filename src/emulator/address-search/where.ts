/** Where a ByBranchesAnd* search looks: around located addresses, around a position, or in a rectangle. */
import type { GeoItem } from '../../contract/index.js';
import { ADDRESS_SEARCH_STATUS } from '../../contract/index.js';
import type { Datasets } from '../datasets/index.js';
import type { Centre } from './locate.js';
import { geoItemFor, locateAddress } from './locate.js';
import type { Problem } from './params.js';
import * as P from './params.js';

export type SearchKind = 'address' | 'position' | 'rectangle';

export interface SearchArea {
  centres: Centre[];
  /** [west, south, east, north] for rectangle searches. */
  rect: [number, number, number, number] | null;
}

/** Position searches describe their point by the nearest place within this distance. */
const REVERSE_MAX_METRES = 25_000;

export function searchArea(data: Datasets, q: URLSearchParams, kind: SearchKind): SearchArea | Problem {
  if (kind === 'address') {
    const located = locateAddress(data.locator, q);
    return P.isProblem(located) ? located : { centres: located, rect: null };
  }
  const format = P.coordFormat(q);
  if (P.isProblem(format)) return format;
  if (kind === 'position') {
    const at = P.coordinate(q, 'LocX', 'LocY', format);
    if (P.isProblem(at)) return at;
    return { centres: [{ lon: at[0], lat: at[1], geoItem: reverseItem(data, at[0], at[1]) }], rect: null };
  }
  const ul = P.coordinate(q, 'Lux', 'Luy', format);
  if (P.isProblem(ul)) return ul;
  const lr = P.coordinate(q, 'Rlx', 'Rly', format);
  if (P.isProblem(lr)) return lr;
  if (ul[0] > lr[0] || ul[1] < lr[1]) {
    const report = 'Das Rechteck ist ungültig: Lux/Luy ist die linke obere, Rlx/Rly die rechte untere Ecke.';
    return { kind: 'status', code: ADDRESS_SEARCH_STATUS.INVALID_PARAMETER, report };
  }
  return { centres: [], rect: [ul[0], lr[1], lr[0], ul[1]] };
}

function reverseItem(data: Datasets, lon: number, lat: number): GeoItem {
  const near = data.postal.placeIndex.nearest(lon, lat, 1, REVERSE_MAX_METRES)[0];
  return geoItemFor(near ? data.postal.places[near.index] : undefined, 'COORDINATE', lon, lat);
}

/** Where a ByBranchesAnd* search looks: around located addresses, around a position, or in a rectangle. */
import type { GeoItem } from '../../contract/index.js';
import { ADDRESS_SEARCH_STATUS } from '../../contract/index.js';
import type { Datasets } from '../datasets/index.js';
import { fromFormat, toFormat } from '../lib/_coords.js';
import type { Centre } from './locate.js';
import { geoItemFor, locateAddress } from './locate.js';
import type { Problem } from './params.js';
import * as P from './params.js';

export type SearchKind = 'address' | 'position' | 'rectangle';

export interface SearchArea {
  centres: Centre[];
  /** [west, south, east, north] for rectangle searches. */
  rect: [number, number, number, number] | null;
  /**
   * For a rectangle given in SUPERKONFORM, whose edges bend in degrees: whether a point in
   * degrees lies in it (`rect` is then the box of degrees holding it).
   */
  within?: (lon: number, lat: number) => boolean;
}

/** Points per edge of a SUPERKONFORM rectangle converted to find the box of degrees holding it. */
const EDGE_POINTS = 256;

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
  // Compared as given: SUPERKONFORM's x and y are not longitude and latitude.
  const [west, north, east, south] = ['Lux', 'Luy', 'Rlx', 'Rly'].map((name) => Number(q.get(name)));
  const given = format === 'SUPERKONFORM' ? [west, north, east, south] : [ul[0], ul[1], lr[0], lr[1]];
  if ((given[0] as number) > (given[2] as number) || (given[1] as number) < (given[3] as number)) {
    const report = 'Das Rechteck ist ungültig: Lux/Luy ist die linke obere, Rlx/Rly die rechte untere Ecke.';
    return { kind: 'status', code: ADDRESS_SEARCH_STATUS.INVALID_PARAMETER, report };
  }
  if (format !== 'SUPERKONFORM') return { centres: [], rect: [ul[0], lr[1], lr[0], ul[1]] };
  // EMULATOR CHOICE: the rectangle is the one given, in its format: records whose point lies in
  // it, found in the box of degrees its outline spans.
  const sheet = {
    west: west as number,
    south: south as number,
    east: east as number,
    north: north as number,
  };
  return { centres: [], rect: outlineBox(sheet), within: (lon, lat) => inSheet(sheet, lon, lat) };
}

interface Sheet {
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
}

function outlineBox({ west, south, east, north }: Sheet): [number, number, number, number] {
  const box: [number, number, number, number] = [180, 90, -180, -90];
  const edges = [
    [west, south, east, south],
    [east, south, east, north],
    [east, north, west, north],
    [west, north, west, south],
  ] as const;
  for (const [xa, ya, xb, yb] of edges)
    for (let i = 0; i <= EDGE_POINTS; i++) {
      const t = i / EDGE_POINTS;
      const [lon, lat] = fromFormat('SUPERKONFORM', xa + (xb - xa) * t, ya + (yb - ya) * t);
      box[0] = Math.min(box[0], lon - 1e-5);
      box[1] = Math.min(box[1], lat - 1e-5);
      box[2] = Math.max(box[2], lon + 1e-5);
      box[3] = Math.max(box[3], lat + 1e-5);
    }
  return box;
}

function inSheet(sheet: Sheet, lon: number, lat: number): boolean {
  const [x, y] = toFormat('SUPERKONFORM', lon, lat);
  return x >= sheet.west && x <= sheet.east && y >= sheet.south && y <= sheet.north;
}

function reverseItem(data: Datasets, lon: number, lat: number): GeoItem {
  const near = data.postal.placeIndex.nearest(lon, lat, 1, REVERSE_MAX_METRES)[0];
  return geoItemFor(near ? data.postal.places[near.index] : undefined, 'COORDINATE', lon, lat);
}

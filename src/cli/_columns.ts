/**
 * Which input column feeds which request field, guessed for `geobatch init`: first by the column's
 * name (English and German words, compound names such as `from_lon` for `originLon`, and
 * `<field>_id` for any field), then, for a lon/lat pair no name gives away, by the values. A
 * bounding box's four sides are taken together or not at all, as the values bear them out
 * (settleRectangle).
 * Every guess carries the reason it was made, which init writes beside it.
 */

import { fieldOf } from '../fields.js';
import { AXIS_NAMES, words } from '../jobs/_axis-names.js';
import { KNOWN_COVERAGE } from '../jobs/_fields.js';
import type { Row } from '../types.js';

export interface ColumnGuess {
  readonly column: string;
  /** Why: shown to the user as a comment, so that a wrong guess is easy to spot. */
  readonly reason: string;
}

/** Names (compacted: lower case, umlauts spelt out, no separators), most telling first. */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  ...AXIS_NAMES,
  street: ['street', 'strasse', 'streetname', 'strassenname', 'str', 'road'],
  houseNo: ['houseno', 'housenumber', 'housenr', 'hausnummer', 'hausnr', 'hnr', 'hsnr'],
  zip: ['zip', 'plz', 'zipcode', 'postcode', 'postalcode', 'postleitzahl'],
  city: ['city', 'ort', 'stadt', 'town', 'ortsname', 'gemeinde', 'municipality', 'locality', 'wohnort'],
  district: ['district', 'bundesland', 'region'],
  country: ['country', 'land', 'countrycode', 'isocountry', 'staat'],
  cityPart: ['citypart', 'ortsteil', 'stadtteil', 'suburb', 'neighbourhood', 'neighborhood'],
  cityAddOn: ['cityaddon', 'ortszusatz'],
  singleSlot: ['singleslot', 'address', 'adresse', 'anschrift', 'fulladdress', 'addressline'],
  key: ['key', 'supplierkey', 'customerkey', 'providerforeignkey', 'foreignkey'],
  via: ['via', 'vias', 'viapoints', 'waypoints', 'stopover'],
  // `t` beside a vehicle and a point is a GPS export's time; elsewhere the kinds' planning decides
  // (a `t` of temperatures reads as no time, and no kind of times is drafted from it).
  time: [
    'time',
    'timestamp',
    'datetime',
    'ts',
    't',
    'gpstime',
    'fixtime',
    'zeit',
    'zeitpunkt',
    'depart',
    'departure',
    'departuretime',
  ],
  minutes: ['minutes', 'mins', 'min', 'minuten', 'drivetime', 'traveltime'],
  metres: ['metres', 'meters', 'metre', 'meter', 'distance', 'distancem'],
  grid: ['grid', 'gridsize'],
  track: [
    'track',
    'trackid',
    'vehicle',
    'vehicleid',
    'veh',
    'vehid',
    'fahrzeug',
    'fahrzeugid',
    'fzg',
    'device',
    'deviceid',
    'imei',
    'journey',
    'journeyid',
  ],
  trip: ['trip', 'tripid', 'tour', 'tourid', 'tournr'],
  // A bounding box as GIS exports name it: sides, min/max of x/y or lon/lat, corners (south-west
  // and north-east, lower-left and upper-right), CSS-like edges and the sides' initials. Taken
  // only all four together, and only where the values agree (settleRectangle).
  west: [
    'west',
    'xwest',
    'westlon',
    'westlng',
    'westlongitude',
    'westbound',
    'westboundlongitude',
    'minx',
    'xmin',
    'minlon',
    'lonmin',
    'minlng',
    'lngmin',
    'minlongitude',
    'longitudemin',
    'swlon',
    'swlng',
    'southwestlon',
    'southwestlng',
    'llx',
    'lllon',
    'left',
    'w',
  ],
  south: [
    'south',
    'ysouth',
    'southlat',
    'southlatitude',
    'southbound',
    'southboundlatitude',
    'miny',
    'ymin',
    'minlat',
    'latmin',
    'minlatitude',
    'latitudemin',
    'swlat',
    'southwestlat',
    'lly',
    'lllat',
    'bottom',
    's',
  ],
  east: [
    'east',
    'xeast',
    'eastlon',
    'eastlng',
    'eastlongitude',
    'eastbound',
    'eastboundlongitude',
    'maxx',
    'xmax',
    'maxlon',
    'lonmax',
    'maxlng',
    'lngmax',
    'maxlongitude',
    'longitudemax',
    'nelon',
    'nelng',
    'northeastlon',
    'northeastlng',
    'urx',
    'urlon',
    'right',
    'e',
  ],
  north: [
    'north',
    'ynorth',
    'northlat',
    'northlatitude',
    'northbound',
    'northboundlatitude',
    'maxy',
    'ymax',
    'maxlat',
    'latmax',
    'maxlatitude',
    'latitudemax',
    'nelat',
    'northeastlat',
    'ury',
    'urlat',
    'top',
    'n',
  ],
  query: ['query', 'typed', 'text', 'searchtext', 'freetext', 'search', 'suchtext', 'eingabe', 'q'],
  id: ['ymid', 'ymidurlencoded', 'identifier', 'ymidentifier', 'recordid'],
  sequence: ['sequence', 'seq', 'stopseq', 'sequenceno', 'order', 'stoporder', 'position', 'pos', 'stopno'],
};

/**
 * Names that say "a number" and not whose: the house number in some address files, the record
 * number in many others. Each names houseNo only where the values bear it out
 * (_init-house-number.ts), and then ranks after every name that says "house", in this order.
 */
const BARE_NUMBER: readonly string[] = ['nr', 'number', 'no'];

/** The rectangle's fields, in the order the kinds read them. */
const SIDES = ['west', 'south', 'east', 'north'] as const;

/** Words a box's columns carry beside the side they name: `bbox_west`, `extent_xmin`, `bounds.n`. */
const BOX_WORDS = new Set([
  'bbox',
  'bb',
  'bounding',
  'box',
  'bounds',
  'extent',
  'envelope',
  'rect',
  'rectangle',
]);

/** A column's name without the words that say "box" around it (`bbox_min_x` -> minx), or undefined. */
function unboxed(column: string): string | undefined {
  const parts = words(column);
  let [from, to] = [0, parts.length];
  while (from < to && BOX_WORDS.has(parts[from] as string)) from++;
  while (to > from && BOX_WORDS.has(parts[to - 1] as string)) to--;
  return from === 0 && to === parts.length ? undefined : parts.slice(from, to).join('');
}

/** The first word of a compound field (`originLon`): the words a column may use for it. */
const ROLES: Readonly<Record<string, readonly string[]>> = {
  origin: ['origin', 'from', 'start', 'src', 'source', 'pickup', 'orig', 'von'],
  destination: ['destination', 'to', 'dest', 'end', 'target', 'dropoff', 'drop', 'ziel', 'nach'],
};

/** What a column name may add to a field's name and still name it: `track_id`, `tour_no`. */
const ID_WORDS = new Set(['id', 'no', 'nr', 'key', 'code']);

const compact = (name: string) => words(name).join('');

/** Whether `column` is named only "number" (`Nr`, `No.`, `NUMBER`): see BARE_NUMBER. */
export function isBareNumber(column: string): boolean {
  return BARE_NUMBER.includes(compact(column));
}

/**
 * How well `column` names `field`: lower is better; undefined when it does not. `houseNumbers`:
 * the columns named only "number" that may be the house number.
 */
function nameRank(field: string, column: string, houseNumbers: ReadonlySet<string>): number | undefined {
  const name = compact(column);
  const synonyms = SYNONYMS[field] ?? [];
  const exact = synonyms.indexOf(name);
  if (exact >= 0) return exact;
  if ((SIDES as readonly string[]).includes(field)) {
    const boxed = synonyms.indexOf(unboxed(column) ?? '');
    if (boxed >= 0) return 50 + boxed;
  }
  if (field === 'houseNo' && houseNumbers.has(column) && isBareNumber(column))
    return synonyms.length + BARE_NUMBER.indexOf(name);
  const [role, ...rest] = words(field);
  const base = rest.join('');
  const roles = role === undefined ? undefined : ROLES[role];
  const parts = words(column);
  if (roles !== undefined && parts.length === 2) {
    const baseRank = (SYNONYMS[base] ?? [base]).indexOf(parts[1] as string);
    if (roles.includes(parts[0] as string) && baseRank >= 0) return 100 + baseRank;
    const swapped = (SYNONYMS[base] ?? [base]).indexOf(parts[0] as string);
    if (roles.includes(parts[1] as string) && swapped >= 0) return 100 + swapped;
  }
  const own = compact(field);
  if (name === own) return 200;
  if (parts.length === 2 && parts[0] === own && ID_WORDS.has(parts[1] as string)) return 201;
  return undefined;
}

/**
 * Each field's column by name. A column feeds at most one field: the best-ranked pairs are taken
 * first, so `time` goes to the field that names it best. A column named only "number" is taken
 * for houseNo only when it is one of `houseNumbers` (see houseNumberColumns).
 */
export function guessByName(
  fields: readonly string[],
  columns: readonly string[],
  houseNumbers: ReadonlySet<string> = new Set(),
): Map<string, ColumnGuess> {
  const pairs: { field: string; column: string; rank: number; order: number }[] = [];
  for (const [order, field] of fields.entries()) {
    for (const column of columns) {
      const rank = nameRank(field, column, houseNumbers);
      if (rank !== undefined) pairs.push({ field, column, rank, order });
    }
  }
  pairs.sort((a, b) => a.rank - b.rank || a.order - b.order);
  const taken = new Set<string>();
  const guesses = new Map<string, ColumnGuess>();
  for (const pair of pairs) {
    if (guesses.has(pair.field) || taken.has(pair.column)) continue;
    taken.add(pair.column);
    guesses.set(pair.field, { column: pair.column, reason: 'by its name' });
  }
  return guesses;
}

/** A cell as a number: decimal comma accepted, as the jobs accept it. */
export function numberIn(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const text = /^-?\d+,\d+$/.test(value.trim()) ? value.trim().replace(',', '.') : value.trim();
  const parsed = Number(text);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/** Columns whose values look like degrees: mostly numbers with decimals, within ±180. */
function coordinateColumns(rows: readonly Row[], columns: readonly string[]): string[] {
  return columns.filter((column) => {
    const cells = rows
      .map((row) => fieldOf(row.fields, column))
      .filter((v) => v !== null && v !== undefined && v !== '');
    if (cells.length === 0) return false;
    const numbers = cells.map(numberIn).filter((n): n is number => n !== undefined);
    const fractional = numbers.filter((n) => !Number.isInteger(n)).length;
    return (
      numbers.length >= cells.length * 0.8 &&
      fractional >= numbers.length * 0.5 &&
      numbers.every((n) => Math.abs(n) <= 180)
    );
  });
}

function shareInCoverage(rows: readonly Row[], lon: string, lat: string): number {
  const c = KNOWN_COVERAGE;
  let inside = 0;
  let counted = 0;
  for (const row of rows) {
    const x = numberIn(fieldOf(row.fields, lon));
    const y = numberIn(fieldOf(row.fields, lat));
    if (x === undefined || y === undefined) continue;
    counted++;
    if (x >= c.west && x <= c.east && y >= c.south && y <= c.north) inside++;
  }
  return counted === 0 ? 0 : inside / counted;
}

/**
 * A lon/lat pair the names gave, turned round when the values say the file has them the other way
 * (most rows in the service's coverage only read swapped): a run of the pair as named fails every
 * row, each after a paid request. Undefined when the names may stand.
 */
export function swappedByValues(
  rows: readonly Row[],
  lon: string,
  lat: string,
): { lon: ColumnGuess; lat: ColumnGuess } | undefined {
  const named = shareInCoverage(rows, lon, lat);
  const swapped = shareInCoverage(rows, lat, lon);
  if (!(swapped >= 0.5 && named < 0.5)) return undefined;
  const percent = (share: number) => `${Math.round(share * 100)}%`;
  const reason = `by its values, against its name: read this way the first rows lie in Germany (${percent(swapped)}), as named ${percent(named)}; the file has lon and lat the other way round`;
  return { lon: { column: lat, reason }, lat: { column: lon, reason } };
}

/**
 * A lon/lat pair among columns no name matched, by their values: the pair that puts most rows in
 * the service's known coverage (Germany), else the pair whose longitude goes beyond ±90. Returns
 * the candidate columns without a pair when the values cannot tell lon from lat.
 */
export function guessPointByValues(
  rows: readonly Row[],
  columns: readonly string[],
): { lon: ColumnGuess; lat: ColumnGuess } | { candidates: string[] } {
  const candidates = coordinateColumns(rows, columns);
  let best: { lon: string; lat: string; share: number } | undefined;
  for (const lon of candidates) {
    for (const lat of candidates) {
      if (lon === lat) continue;
      const share = shareInCoverage(rows, lon, lat);
      if (share >= 0.5 && (best === undefined || share > best.share)) best = { lon, lat, share };
    }
  }
  if (best !== undefined) {
    const reason = `by its values: (${best.lon}, ${best.lat}) lies in Germany for ${Math.round(best.share * 100)}% of the first rows`;
    return { lon: { column: best.lon, reason }, lat: { column: best.lat, reason } };
  }
  const wide = candidates.filter((column) =>
    rows.some((row) => Math.abs(numberIn(fieldOf(row.fields, column)) ?? 0) > 90),
  );
  const narrow = candidates.filter((column) => !wide.includes(column));
  if (wide.length === 1 && narrow.length === 1) {
    const [lon, lat] = [wide[0] as string, narrow[0] as string];
    return {
      lon: { column: lon, reason: `by its values: ${lon} goes beyond ±90, so it is the longitude` },
      lat: { column: lat, reason: `by its values: ${lat} stays within ±90 and ${lon} does not` },
    };
  }
  return { candidates };
}

/**
 * Whether a column's name says a side of a bounding box (`w`, `s`, `xmin`, `bbox_north`): such a
 * column is never guessed as a point's coordinate by its values, taken as a rectangle or not.
 */
export function isRectangleSide(column: string): boolean {
  return SIDES.some((side) => nameRank(side, column, new Set()) !== undefined);
}

/**
 * The rectangle the names gave (west, south, east, north in `mapping`), settled by the values:
 * taken only all four together, and only when west < east and south < north in most of the first
 * rows that have all four (a box of another axis order, or columns merely called `left`/`top`,
 * is not a rectangle); turned round, as a lon/lat pair is, when only the other way puts the
 * corners in Germany (a box with lat and lon swapped). Sides not taken are removed from `mapping`;
 * returns the notes that say why, by field.
 */
export function settleRectangle(
  rows: readonly Row[],
  mapping: Map<string, ColumnGuess>,
): Map<string, string> {
  const notes = new Map<string, string>();
  const given = SIDES.filter((side) => mapping.has(side));
  if (given.length === 0) return notes;
  const column = (side: (typeof SIDES)[number]) => (mapping.get(side) as ColumnGuess).column;
  const drop = (why: string) => {
    for (const side of given) notes.set(side, `${shown(column(side))} not taken: ${why}`);
    for (const side of given) mapping.delete(side);
    return notes;
  };
  if (given.length < SIDES.length) {
    const missing = SIDES.filter((side) => !mapping.has(side));
    return drop(`a rectangle needs all four sides, and no column was found for ${missing.join(', ')}`);
  }
  const [west, south, east, north] = SIDES.map(column) as [string, string, string, string];
  let counted = 0;
  let ordered = 0;
  for (const row of rows) {
    const [w, s, e, n] = [west, south, east, north].map((c) => numberIn(fieldOf(row.fields, c)));
    if (w === undefined || s === undefined || e === undefined || n === undefined) continue;
    counted++;
    if (w < e && s < n) ordered++;
  }
  const share = `west < east and south < north in ${ordered} of ${counted} first rows`;
  if (counted > 0 && ordered * 2 < counted)
    return drop(`as a rectangle (${[west, south, east, north].join(', ')}), ${share}`);
  const reason = counted > 0 ? `by its name, one of four sides: ${share}` : 'by its name, one of four sides';
  const corners = [swappedByValues(rows, west, south), swappedByValues(rows, east, north)];
  if (corners.every((turned) => turned !== undefined)) {
    const turned = `${reason}; turned by its values: the corners lie in Germany only read with lon and lat the other way round`;
    mapping
      .set('west', { column: south, reason: turned })
      .set('south', { column: west, reason: turned })
      .set('east', { column: north, reason: turned })
      .set('north', { column: east, reason: turned });
    return notes;
  }
  for (const side of SIDES) mapping.set(side, { column: column(side), reason });
  return notes;
}

const shown = (column: string) => JSON.stringify(column);

/** GeoNames postal codes: place rows (zip -> place) and organisation rows (large-customer zips). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCsv } from '../lib/_csv.js';
import { PointIndex } from '../lib/_point-index.js';

export interface PostalRow {
  /** 0-based position in the file: the stable data order. */
  seq: number;
  zip: string;
  name: string;
  kind: 'place' | 'organisation';
  stateArs: string;
  state: string;
  stateIso: string;
  districtArs: string;
  district: string;
  lat: number;
  lon: number;
}

export interface PostalData {
  places: readonly PostalRow[];
  organisations: readonly PostalRow[];
  /** Place rows by zip, in data order. */
  placesByZip: ReadonlyMap<string, readonly PostalRow[]>;
  /** Distinct zips of place rows, sorted (for prefix lookups by binary search). */
  zips: readonly string[];
  /** kNN over the place rows. */
  placeIndex: PointIndex;
}

type CsvRecord = Record<string, string>;

export function loadPostal(dir: string): PostalData {
  const text = readFileSync(join(dir, 'de_postal_codes_geonames.csv'), 'utf8');
  const records = parseCsv(text);
  const rows = records.map(toRow);
  const places = rows.filter((r) => r.kind === 'place');
  const placesByZip = new Map<string, PostalRow[]>();
  for (const row of places) {
    const list = placesByZip.get(row.zip);
    if (list) list.push(row);
    else placesByZip.set(row.zip, [row]);
  }
  return {
    places,
    organisations: rows.filter((r) => r.kind === 'organisation'),
    placesByZip,
    zips: [...placesByZip.keys()].sort(),
    placeIndex: new PointIndex(places),
  };
}

function toRow(r: CsvRecord, seq: number): PostalRow {
  return {
    seq,
    zip: r.plz ?? '',
    name: r.name ?? '',
    kind: r.kind === 'organisation' ? 'organisation' : 'place',
    stateArs: r.state_ars ?? '',
    state: r.state ?? '',
    stateIso: r.state_iso3166_2 ?? '',
    districtArs: r.district_ars ?? '',
    district: r.district ?? '',
    lat: Number(r.latitude),
    lon: Number(r.longitude),
  };
}

/** Zips starting with `prefix`, from a sorted list, by binary search. */
export function zipsWithPrefix(zips: readonly string[], prefix: string): string[] {
  let lo = 0;
  let hi = zips.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((zips[mid] as string) < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: string[] = [];
  for (let i = lo; i < zips.length && (zips[i] as string).startsWith(prefix); i++)
    out.push(zips[i] as string);
  return out;
}

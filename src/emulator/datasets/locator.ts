/**
 * Finds place rows of the postal data by zip and/or city name: the one geocoder behind geocoding
 * and address search's ByBranchesAndAddress, so that both read an address the same way.
 */
import { memoize } from '../lib/_memo.js';
import { PrefixIndex } from '../lib/_prefix-index.js';
import { fold, foldForms, tokens } from '../lib/_text.js';
import type { PlacesData } from './places.js';
import type { PostalData, PostalRow } from './postal.js';
import { zipsWithPrefix } from './postal.js';

/** All place rows of one city name in one state. */
export interface CityGroup {
  name: string;
  stateArs: string;
  rows: readonly PostalRow[];
  population: number;
  /** The row nearest the city's centre (GeoNames place point), or its first row. */
  representative: PostalRow;
  /** Folded forms of the name. */
  forms: string[];
}

export type MatchLevel = 'ZIP' | 'CITY';

export interface Located {
  row: PostalRow;
  level: MatchLevel;
}

/** How well a folded query names a folded place name; 0 = not at all. */
export function nameMatchQuality(query: string, name: string): number {
  if (query.length === 0) return 0;
  if (name === query) return 3;
  if (name.startsWith(query)) return 2;
  const q = tokens(query);
  const n = tokens(name);
  return q.every((t) => n.some((w) => w.startsWith(t))) ? 1 : 0;
}

export class Locator {
  readonly #postal: PostalData;
  readonly #cities = new PrefixIndex<CityGroup>();

  constructor(postal: PostalData, places: PlacesData) {
    this.#postal = postal;
    for (const group of cityGroups(postal, places)) {
      for (const form of group.forms) {
        this.#cities.add(form, group);
        for (const t of tokens(form).slice(1)) if (t.length >= 3) this.#cities.add(t, group);
      }
    }
    this.#cities.finish();
  }

  /** Place rows of a complete zip, in data order. */
  zipRows(zip: string): readonly PostalRow[] {
    return this.#postal.placesByZip.get(zip) ?? [];
  }

  /** Distinct zips starting with `prefix`. */
  zipsWithPrefix(prefix: string): string[] {
    return zipsWithPrefix(this.#postal.zips, prefix);
  }

  /** City groups a name matches, best first: exact, then prefix, then word matches; bigger first. */
  cities(city: string): CityGroup[] {
    const query = fold(city);
    const first = tokens(query)[0];
    if (first === undefined) return [];
    const scored = new Map<CityGroup, number>();
    for (const { value } of this.#cities.withPrefix(first)) {
      if (scored.has(value)) continue;
      const quality = Math.max(...value.forms.map((f) => nameMatchQuality(query, f)));
      if (quality > 0) scored.set(value, quality);
    }
    return [...scored.entries()]
      .sort(
        ([a, qa], [b, qb]) =>
          qb - qa ||
          b.population - a.population ||
          b.rows.length - a.rows.length ||
          a.representative.seq - b.representative.seq,
      )
      .map(([group]) => group);
  }

  parseSingleSlot(text: string): { zip?: string; city?: string } {
    return parseSingleSlot(this, text);
  }

  /**
   * The place row for a zip and/or city. Zip and city together: the zip's row whose name the city
   * matches best (its name exactly, then as a prefix, then word by word; the first of equals);
   * none -> no match (they contradict). Zip alone: its first row. City alone: the
   * biggest matching city's central row.
   */
  locate(zip: string | undefined, city: string | undefined): Located | null {
    const cityQuery = city === undefined ? '' : fold(city);
    if (zip !== undefined && zip !== '') {
      const rows = this.zipRows(zip);
      if (cityQuery === '') return rows[0] ? { row: rows[0], level: 'ZIP' } : null;
      const row = bestNamed(rows, cityQuery);
      return row ? { row, level: 'ZIP' } : null;
    }
    if (cityQuery === '') return null;
    const best = this.cities(cityQuery)[0];
    return best ? { row: best.representative, level: 'CITY' } : null;
  }
}

/**
 * The row whose name `query` matches best, the first of equals; null if none matches. 01067 lists
 * "Dresden Innere Altstadt" before "Dresden": "Dresden" must find the city, not its quarter.
 */
function bestNamed(rows: readonly PostalRow[], query: string): PostalRow | null {
  let best: PostalRow | null = null;
  let bestQuality = 0;
  for (const row of rows) {
    const quality = Math.max(...foldForms(row.name).map((f) => nameMatchQuality(query, f)));
    if (quality > bestQuality) {
      best = row;
      bestQuality = quality;
    }
  }
  return best;
}

/** "Kaiserstraße 12, 76131 Karlsruhe" -> zip 76131, city Karlsruhe; without a zip, the last part naming a city. */
export function parseSingleSlot(locator: Locator, text: string): { zip?: string; city?: string } {
  const m = /(?:^|\D)(\d{5})(?!\d)/.exec(text);
  if (m?.[1]) {
    const after = text
      .slice(m.index + m[0].length)
      .split(',')[0]
      ?.trim();
    return after ? { zip: m[1], city: after } : { zip: m[1] };
  }
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .reverse();
  return { city: parts.find((p) => locator.cities(p).length > 0) ?? parts[0] };
}

function cityGroups(postal: PostalData, places: PlacesData): CityGroup[] {
  // 16,000 rows share ~12,000 names: fold each distinct name once.
  const foldOnce = memoize(fold);
  const centres = new Map<string, (typeof places.places)[number]>();
  for (const p of places.places) {
    const key = `${foldOnce(p.name)}|${p.stateArs}`;
    const known = centres.get(key);
    if (!known || p.population > known.population) centres.set(key, p);
  }
  // GeoNames often names a town in full where the postal data has its short name ("Halle (Saale)"
  // and "Halle"), or the other way round ("Mülheim" and "Mülheim an der Ruhr"): by the short name too, for a postal name no
  // place has as it is, so that "Halle" is the city of 234,000 and not a town of 21,000.
  const byShortName = new Map<string, (typeof places.places)[number]>();
  for (const p of places.places) {
    const short = shortName(p.name);
    if (short === p.name) continue;
    const key = `${foldOnce(short)}|${p.stateArs}`;
    const known = byShortName.get(key);
    if (!known || p.population > known.population) byShortName.set(key, p);
  }
  const groups = new Map<string, PostalRow[]>();
  for (const row of postal.places) {
    const key = `${foldOnce(row.name)}|${row.stateArs}`;
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return [...groups.entries()].map(([key, rows]) => {
    const first = rows[0] as PostalRow;
    const exact = centres.get(key);
    // Either name may be the short one: GeoNames' "Mülheim" is the postal "Mülheim an der Ruhr".
    const short =
      exact === undefined
        ? (byShortName.get(key) ?? centres.get(`${foldOnce(shortName(first.name))}|${first.stateArs}`))
        : undefined;
    // Only a town whose postal rows are where the place is: a village sharing the short name
    // elsewhere in the state must not take the city's size.
    const near =
      short !== undefined && isNear(nearestRow(rows, short.lon, short.lat), short) ? short : undefined;
    const centre = exact ?? near;
    return {
      name: first.name,
      stateArs: first.stateArs,
      rows,
      population: centre?.population ?? 0,
      representative: centre ? nearestRow(rows, centre.lon, centre.lat) : first,
      // The full name finds it too: "Halle (Saale)" is how many files write it.
      forms:
        near === undefined
          ? foldForms(first.name)
          : [...new Set([...foldForms(first.name), ...foldForms(near.name)])],
    };
  });
}

/** A place's name without what tells it from its namesakes: "(Saale)", "an der Ruhr", "am Main". */
function shortName(name: string): string {
  return name
    .replace(/\s*\(.*\)\s*$/u, '')
    .replace(/\s+(?:an der|an den|am|an|im|in der|in|ob der|bei|vor der)\s.*$/u, '')
    .trim();
}

/** Within about 15 km (in degrees, at German latitudes). */
function isNear(row: PostalRow, place: { lon: number; lat: number }): boolean {
  return ((row.lon - place.lon) * 0.65) ** 2 + (row.lat - place.lat) ** 2 < 0.135 ** 2;
}

function nearestRow(rows: readonly PostalRow[], lon: number, lat: number): PostalRow {
  let best = rows[0] as PostalRow;
  let bestD = Number.POSITIVE_INFINITY;
  for (const r of rows) {
    const d = (r.lon - lon) ** 2 + (r.lat - lat) ** 2;
    if (d < bestD) {
      best = r;
      bestD = d;
    }
  }
  return best;
}

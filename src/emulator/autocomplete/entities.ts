/**
 * The autocomplete repository, built once from the data: places (CITY, CITYPART), zips (ZIP),
 * zip + place pairs (CITY_WITH_ZIP), states (STATE), districts (DISTRICT) and the country.
 */
import type { GeoEntityType } from '../../contract/index.js';
import type { Datasets } from '../datasets/index.js';
import type { Place } from '../datasets/places.js';
import type { PostalRow } from '../datasets/postal.js';
import { memoize } from '../lib/_memo.js';
import { PrefixIndex } from '../lib/_prefix-index.js';
import { foldForms, tokens } from '../lib/_text.js';

export interface Entity {
  seq: number;
  type: GeoEntityType;
  /** The name a query is matched against first (place, zip, state...). */
  name: string;
  /** Folded forms of `name`. */
  folded: string[];
  /** Every folded word a query word may be a prefix of. */
  words: ReadonlySet<string>;
  state: string;
  district: string | null;
  city: string | null;
  cityPart: string | null;
  zip: string | null;
  lon: number;
  lat: number;
  population: number;
  osmid: number | null;
  displayValue: string;
}

export interface Repository {
  entities: readonly Entity[];
  /** Folded names, their words and zips -> entities. */
  index: PrefixIndex<Entity>;
}

type Draft = Omit<Entity, 'seq' | 'folded' | 'words'> & { extraWords?: string[] };

export function buildRepository(data: Datasets): Repository {
  const drafts = [...places(data), ...zips(data), ...areas(data)];
  const index = new PrefixIndex<Entity>();
  // Names repeat (a city under each of its zips): fold each distinct string once.
  const formsOf = memoize(foldForms);
  const entities = drafts.map((draft, seq): Entity => {
    const folded = formsOf(draft.name);
    const words = new Set<string>();
    for (const text of [draft.name, ...(draft.extraWords ?? [])]) {
      for (const form of formsOf(text)) for (const w of tokens(form)) words.add(w);
    }
    const entity = draft as Draft & Entity;
    entity.seq = seq;
    entity.folded = folded;
    entity.words = words;

    for (const word of words) index.add(word, entity);
    return entity;
  });
  return { entities, index: index.finish() };
}

function places(data: Datasets): Draft[] {
  const { stateNames, districtNames } = data.boundaries;
  const towns = new Map<string, Place>();
  for (const p of data.places.places) {
    const known = towns.get(p.municipalityAgs);
    if (p.featureCode !== 'PPLX' && (!known || p.population > known.population))
      towns.set(p.municipalityAgs, p);
  }
  return data.places.places.map((p): Draft => {
    const state = stateNames.get(p.stateArs) ?? '';
    const district = districtNames.get(p.districtArs) ?? null;
    const part = p.featureCode === 'PPLX';
    const city = part ? (towns.get(p.municipalityAgs)?.name ?? district) : p.name;
    const where = part ? `${p.name} (${city}), ${state}` : `${p.name}, ${state}`;
    return {
      type: part ? 'CITYPART' : 'CITY',
      name: p.name,
      state,
      district,
      city,
      cityPart: part ? p.name : null,
      zip: null,
      lon: p.lon,
      lat: p.lat,
      population: p.population,
      // EMULATOR CHOICE: the data have no OSM ids; places carry their GeoNames id here.
      osmid: p.geonameId,
      displayValue: where,
    };
  });
}

function zips(data: Datasets): Draft[] {
  const drafts: Draft[] = [];
  // Plain literals, not spreads of a shared base: object spread is several times slower in V8 here.
  const draft = (type: GeoEntityType, name: string, zip: string, row: PostalRow, extra: string): Draft => ({
    type,
    name,
    state: row.state,
    district: row.district,
    city: row.name,
    cityPart: null,
    zip,
    lon: row.lon,
    lat: row.lat,
    population: 0,
    osmid: null,
    displayValue: `${zip} ${row.name}`,
    extraWords: [extra],
  });
  for (const [zip, rows] of data.postal.placesByZip) {
    const first = rows[0];
    if (!first) continue;
    drafts.push(draft('ZIP', zip, zip, first, first.name));
    for (const row of rows) drafts.push(draft('CITY_WITH_ZIP', row.name, zip, row, zip));
  }
  return drafts;
}

function areas(data: Datasets): Draft[] {
  const { levels, stateNames } = data.boundaries;
  const biggest = new Map<string, Place>();
  const population = new Map<string, number>();
  for (const p of data.places.places) {
    // City parts (PPLX) are counted in their city's population already.
    if (p.featureCode === 'PPLX') continue;
    for (const key of [p.stateArs, p.districtArs, '0']) {
      population.set(key, (population.get(key) ?? 0) + p.population);
      const known = biggest.get(key);
      if (!known || p.population > known.population) biggest.set(key, p);
    }
  }
  const drafts: Draft[] = [];
  for (const level of [2, 4, 6]) {
    for (const area of levels.get(level)?.areas ?? []) {
      const { key, name, osmid } = area.properties;
      const centre = biggest.get(key);
      const state = level === 2 ? '' : (stateNames.get(key.slice(0, 2)) ?? '');
      const [w, s, e, n] = area.bbox;
      drafts.push({
        type: level === 2 ? 'COUNTRY' : level === 4 ? 'STATE' : 'DISTRICT',
        name,
        state,
        district: level === 6 ? name : null,
        city: null,
        cityPart: null,
        zip: null,
        lon: level === 2 ? 10.4515 : (centre?.lon ?? (w + e) / 2),
        lat: level === 2 ? 51.1657 : (centre?.lat ?? (s + n) / 2),
        population: population.get(key) ?? 0,
        osmid,
        displayValue: level === 6 ? `${name}, ${state}` : name,
      });
    }
  }
  return drafts;
}

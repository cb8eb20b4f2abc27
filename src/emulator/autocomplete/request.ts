/** Checks an autocomplete request body; every problem is a 400 naming the field. */
import type { AutocompleteRequest, GeoEntityType, GeoPoint } from '../../contract/index.js';
import { AUTOCOMPLETE_MAX_TOP, GEO_ENTITY_TYPES } from '../../contract/index.js';
import { isRecord } from '../_http.js';
import { isLatitude, isLongitude } from '../lib/_geo.js';

export const ENTITY_TYPES: readonly GeoEntityType[] = GEO_ENTITY_TYPES;

export interface ValidRequest {
  query: string;
  geoJson: boolean;
  top: number;
  countries: string[] | null;
  /**
   * EMULATOR CHOICE: the one localised field the emulator has is the country's long name, kept in
   * German and English; the first of `isoLanguages` it has, else German.
   */
  language: 'de' | 'en';
  included: ReadonlySet<string> | null;
  excluded: ReadonlySet<string>;
  plzSearch: boolean;
  inBoundingBox: boolean;
  box: { west: number; south: number; east: number; north: number } | null;
  center: GeoPoint | null;
  proximity: { radius: number; value: number } | null;
  boxBoost: number;
}

/** The valid request, or the message for a 400. */
export function validateRequest(body: unknown): ValidRequest | string {
  if (!isRecord(body)) return 'Der Anfragekörper muss ein JSON-Objekt sein.';
  const r = body as Partial<Record<keyof AutocompleteRequest, unknown>>;
  if (typeof r.query !== 'string' || r.query.trim() === '') return '`query` muss ein nicht leerer Text sein.';
  if (r.geoJson !== undefined && r.geoJson !== null && typeof r.geoJson !== 'boolean') {
    return '`geoJson` muss true oder false sein.';
  }
  const top = r.top ?? 5;
  if (typeof top !== 'number' || !Number.isInteger(top) || top < 1 || top > AUTOCOMPLETE_MAX_TOP) {
    return `\`top\` muss eine ganze Zahl von 1 bis ${AUTOCOMPLETE_MAX_TOP} sein.`;
  }
  const countries = stringList(r.isoCountries);
  if (countries === 'bad') return '`isoCountries` muss eine Liste von Ländercodes sein.';
  const languages = stringList(r.isoLanguages);
  if (languages === 'bad' || languages?.some((code) => !/^[A-Z]{2}$/.test(code)))
    return '`isoLanguages` muss eine Liste von Sprachcodes (ISO 639-1, wie de oder en) sein.';
  const filter = isRecord(r.filterOptions) ? r.filterOptions : {};
  const included = typeList(filter.includedGeoEntities);
  const excluded = typeList(filter.excludedGeoEntities);
  if (included === 'bad' || excluded === 'bad') {
    return `Erlaubte Typen in filterOptions: ${ENTITY_TYPES.join(', ')}.`;
  }
  const box = boundingBox(r.boundingbox);
  if (box === 'bad') return '`boundingbox` braucht leftDown und rightUp mit gültiger latitude und longitude.';
  const center = r.center === undefined || r.center === null ? null : point(r.center);
  if (center === 'bad') return '`center` braucht gültige latitude und longitude.';
  const boost = isRecord(r.boostOptions) ? r.boostOptions : {};
  const proximity = isRecord(boost.proximityBoost) ? boost.proximityBoost : null;
  if (proximity && !(isPositive(proximity.radius) && isNumber(proximity.value))) {
    return '`boostOptions.proximityBoost` braucht radius (Meter, > 0) und value.';
  }
  const boxBoost = isRecord(boost.boundingBoxBoost) ? boost.boundingBoxBoost.value : 0;
  if (!isNumber(boxBoost)) return '`boostOptions.boundingBoxBoost.value` muss eine Zahl sein.';
  const inBoundingBox = filter.inBoundingBox === true;
  if (inBoundingBox && !box) return '`filterOptions.inBoundingBox` braucht `boundingbox`.';
  return {
    query: r.query,
    geoJson: r.geoJson === true,
    top,
    countries,
    language: languages?.find((code) => code === 'DE' || code === 'EN') === 'EN' ? 'en' : 'de',
    included: included && included.size > 0 ? included : null,
    excluded: excluded ?? new Set(),
    plzSearch: filter.plzSearch === true,
    inBoundingBox,
    box,
    center,
    proximity:
      proximity && center ? { radius: proximity.radius as number, value: proximity.value as number } : null,
    boxBoost: box ? boxBoost : 0,
  };
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isPositive = (v: unknown): v is number => isNumber(v) && v > 0;

function stringList(v: unknown): string[] | null | 'bad' {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) return 'bad';
  return v.length === 0 ? null : v.map((s: string) => s.toUpperCase());
}

function typeList(v: unknown): Set<string> | null | 'bad' {
  const list = stringList(v);
  if (list === 'bad' || list === null) return list;
  return list.every((t) => (ENTITY_TYPES as readonly string[]).includes(t)) ? new Set(list) : 'bad';
}

function point(v: unknown): GeoPoint | 'bad' {
  if (!isRecord(v) || !isLatitude(v.latitude) || !isLongitude(v.longitude)) return 'bad';
  return { latitude: v.latitude, longitude: v.longitude };
}

function boundingBox(v: unknown): ValidRequest['box'] | 'bad' {
  if (v === undefined || v === null) return null;
  if (!isRecord(v)) return 'bad';
  const ld = point(v.leftDown);
  const ru = point(v.rightUp);
  if (ld === 'bad' || ru === 'bad' || ld.latitude > ru.latitude) return 'bad';
  return { west: ld.longitude, south: ld.latitude, east: ru.longitude, north: ru.latitude };
}

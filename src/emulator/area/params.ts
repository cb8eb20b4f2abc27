/** Reads the area interface's parameters from the query (GET) and/or the JSON body (POST). */
import type { GeoPoint } from '../../contract/index.js';
import { AREA_MAX_POINTS } from '../../contract/index.js';
import { isRecord } from '../_http.js';
import { isLatitude, isLongitude } from '../lib/_geo.js';

export interface CommonParams {
  level: number;
  tolerance: { reduceGeometry: number; zoom: number | undefined };
  /** False when isoCountries names no country the emulator has data for (only DE). */
  germany: boolean;
}

type Source = (name: string) => unknown;

// In the GET form, lists travel comma-joined and free text stays text; everything else is a number.
const LIST_PARAMS = new Set(['isoCountries', 'isoLanguages']);
const TEXT_PARAMS = new Set(['channel']);

/** Body value first, then the query string (lists split, numbers parsed). */
export function source(query: URLSearchParams, body: unknown): Source {
  const b = isRecord(body) ? body : {};
  return (name) => {
    if (b[name] !== undefined && b[name] !== null) return b[name];
    const raw = query.get(name);
    if (raw === null || raw.trim() === '') return undefined;
    if (LIST_PARAMS.has(name)) return raw.split(',');
    return TEXT_PARAMS.has(name) ? raw : Number(raw);
  };
}

export function common(get: Source, levelRequired = true): CommonParams | string {
  const level = get('level');
  if (levelRequired && (typeof level !== 'number' || !Number.isInteger(level))) {
    return '`level` ist erforderlich und muss eine ganze Zahl sein.';
  }
  const reduce = get('reduceGeometry') ?? 0;
  if (typeof reduce !== 'number' || !(reduce >= 0 && reduce <= 1)) {
    return '`reduceGeometry` muss eine Zahl von 0 bis 1 sein.';
  }
  const zoom = get('zoom');
  if (zoom !== undefined && (typeof zoom !== 'number' || !Number.isInteger(zoom) || zoom < 0 || zoom > 22)) {
    return '`zoom` muss eine ganze Zahl von 0 bis 22 sein.';
  }
  const countries = get('isoCountries');
  if (
    countries !== undefined &&
    (!Array.isArray(countries) || !countries.every((c) => typeof c === 'string'))
  ) {
    return '`isoCountries` muss eine Liste von Ländercodes sein.';
  }
  // isoLanguages: "language codes (ISO-639-1)" (spec). The emulator's names are German only, so it
  // checks the form and names nothing else; a client sending `english` is caught here.
  const languages = get('isoLanguages');
  if (
    languages !== undefined &&
    (!Array.isArray(languages) ||
      !languages.every((l) => typeof l === 'string' && /^[A-Za-z]{2}$/.test(l.trim())))
  ) {
    return '`isoLanguages` muss eine Liste von Sprachcodes nach ISO 639-1 sein (wie de, en).';
  }
  const germany =
    countries === undefined ||
    countries.length === 0 ||
    countries.some((c: string) => ['DE', 'DEU', 'D'].includes(c.trim().toUpperCase()));
  return {
    level: typeof level === 'number' ? level : 0,
    tolerance: { reduceGeometry: reduce, zoom: zoom as number | undefined },
    germany,
  };
}

export function geoPoint(v: unknown, name: string): GeoPoint | string {
  if (!isRecord(v) || !isLatitude(v.latitude) || !isLongitude(v.longitude)) {
    return `${name} braucht latitude (-90 bis 90) und longitude (-180 bis 180) als Zahlen.`;
  }
  return { latitude: v.latitude, longitude: v.longitude };
}

export function points(get: Source, body: unknown): GeoPoint[] | string {
  if (isRecord(body) && body.points !== undefined) {
    const list = body.points;
    if (!Array.isArray(list) || list.length === 0) return '`points` muss eine nicht leere Liste sein.';
    if (list.length > AREA_MAX_POINTS) return `Höchstens ${AREA_MAX_POINTS} Punkte je Anfrage.`;
    const out: GeoPoint[] = [];
    for (const [i, p] of list.entries()) {
      const point = geoPoint(p, `points[${i}]`);
      if (typeof point === 'string') return point;
      out.push(point);
    }
    return out;
  }
  const one = geoPoint({ latitude: get('latitude'), longitude: get('longitude') }, 'Die Anfrage');
  return typeof one === 'string' ? one : [one];
}

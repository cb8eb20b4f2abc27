/**
 * Address search parameters (case-sensitive names, per the spec's applicability table). A problem is
 * either a 400 (the two documented messages) or a 200 with StatusCode and PublicReport.
 */
import type { CoordFormat, OrderBy } from '../../contract/index.js';
import {
  ADDITION_DISTANCE_KEYS,
  ADDRESS_SEARCH_MAX_TOP,
  ADDRESS_SEARCH_STATUS,
  BAD_LOCATION_MESSAGE_PREFIX,
  BRANCHES_REQUIRED_MESSAGE,
  ORDER_BY,
} from '../../contract/index.js';
import { fromFormat, isCoordFormat } from '../lib/_coords.js';
import { isLatitude, isLongitude } from '../lib/_geo.js';
import type { BranchExpression } from './branches.js';
import { parseBranches } from './branches.js';

/** The spec's cap on MaxRadius, which -1 ("unlimited") also means. */
export const MAX_RADIUS_METRES = 300_000;

export type Problem = { kind: 'http400'; message: string } | { kind: 'status'; code: number; report: string };

export const isProblem = (v: unknown): v is Problem =>
  typeof v === 'object' && v !== null && 'kind' in v && (v.kind === 'http400' || v.kind === 'status');

const invalid = (report: string): Problem => ({
  kind: 'status',
  code: ADDRESS_SEARCH_STATUS.INVALID_PARAMETER,
  report,
});

export function branches(query: URLSearchParams): BranchExpression | Problem {
  return parseBranches(query.get('Branches')) ?? { kind: 'http400', message: BRANCHES_REQUIRED_MESSAGE };
}

export interface Paging {
  top: number;
  page: number;
}

export function paging(query: URLSearchParams): Paging | Problem {
  const top = uint(query.get('Top'), 20);
  if (top === null || top < 1 || top > ADDRESS_SEARCH_MAX_TOP) {
    return invalid(`Der Parameter Top muss eine ganze Zahl von 1 bis ${ADDRESS_SEARCH_MAX_TOP} sein.`);
  }
  const page = uint(query.get('Page'), 1);
  if (page === null || page < 1) return invalid('Der Parameter Page muss eine ganze Zahl ab 1 sein.');
  return { top, page };
}

export function orderBy(query: URLSearchParams): OrderBy | Problem {
  const value = query.get('OrderBy') || 'MATRIX_COMPANY_NAME';
  return (ORDER_BY as readonly string[]).includes(value)
    ? (value as OrderBy)
    : invalid(`Unbekannte Sortierung OrderBy=${value}. Erlaubt: ${ORDER_BY.join(', ')}.`);
}

/** Metres; -1 (the default) means the 300 km cap. */
export function maxRadius(query: URLSearchParams): number | Problem {
  const raw = query.get('MaxRadius');
  const value = raw === null || raw.trim() === '' ? -1 : Number(raw.trim());
  if (value === -1) return MAX_RADIUS_METRES;
  if (!Number.isInteger(value) || value < 0)
    return invalid('MaxRadius muss -1 oder eine ganze Zahl ab 0 (Meter) sein.');
  if (value > MAX_RADIUS_METRES) {
    return invalid('Der Suchradius MaxRadius darf höchstens 300 km (300000 Meter) betragen.');
  }
  return value;
}

export function coordFormat(query: URLSearchParams): CoordFormat | Problem {
  const value = query.get('CoordFormatIn') || 'GEODECIMAL_POINT';
  return isCoordFormat(value) ? value : invalid(`Unbekanntes Koordinatenformat CoordFormatIn=${value}.`);
}

/** [lon, lat] from two parameters in `format`; anything unusable is the documented 400. */
export function coordinate(
  query: URLSearchParams,
  xName: string,
  yName: string,
  format: CoordFormat,
): [number, number] | Problem {
  const x = Number(query.get(xName)?.trim() || Number.NaN);
  const y = Number(query.get(yName)?.trim() || Number.NaN);
  const [lon, lat] =
    Number.isFinite(x) && Number.isFinite(y) ? fromFormat(format, x, y) : [Number.NaN, Number.NaN];
  if (isLongitude(lon) && isLatitude(lat)) return [lon, lat];
  return {
    kind: 'http400',
    message: `${BAD_LOCATION_MESSAGE_PREFIX} ${xName} und ${yName} müssen Zahlen im Koordinatenformat ${format} sein (Längengrad -180 bis 180, Breitengrad -90 bis 90).`,
  };
}

/** True unless IsoCountryCode names a country other than Germany (the only one with data). */
export function germany(query: URLSearchParams): boolean {
  const code = (query.get('IsoCountryCode') || 'DE').trim().toUpperCase();
  return code === 'DE' || code === 'D' || code === 'DEU';
}

/**
 * The Addition reference point. Read from the raw query: the pairs count only when their `=` and `&`
 * arrived URL-encoded inside the one parameter; sent bare, they are separate top-level parameters.
 */
export function additionReference(rawQuery: string): [number, number] | null {
  const part = rawQuery.split('&').find((p) => p.startsWith('Addition='));
  const raw = part?.slice('Addition='.length) ?? '';
  if (raw === '' || raw.includes('=')) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return null;
  }
  const pairs = new Map(
    decoded.split('&').map((p) => {
      const at = p.indexOf('=');
      return at < 0 ? [p, ''] : [p.slice(0, at).trim(), p.slice(at + 1).trim()];
    }),
  );
  const lon = Number(pairs.get(ADDITION_DISTANCE_KEYS.lon) || Number.NaN);
  const lat = Number(pairs.get(ADDITION_DISTANCE_KEYS.lat) || Number.NaN);
  return isLongitude(lon) && isLatitude(lat) ? [lon, lat] : null;
}

/** Folded free-text terms; every one must occur in the company name. */
export function catchwords(query: URLSearchParams): string[] {
  return (query.get('Catchwords') ?? '').split(/\s+/).filter(Boolean);
}

function uint(raw: string | null, fallback: number): number | null {
  if (raw === null || raw.trim() === '') return fallback;
  return /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : null;
}

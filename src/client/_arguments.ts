/**
 * The numbers a request needs besides its points (an area's level, an isochrone's minutes or
 * metres, OSM ids), checked before anything is sent. JSON writes NaN and Infinity as null, and the
 * service then answers a 400 about something else ("exactly one of timeInMinutes and
 * distanceInMeters" for minutes that were NaN). FIELD_INVALID, a row's code, as for a point.
 */
import { InputError } from '../errors.js';

/** Throws FIELD_INVALID unless `value` is a number that `ok` takes; `expected` says what it takes. */
export function checkNumber(
  what: string,
  field: string,
  value: unknown,
  expected: string,
  ok: (n: number) => boolean,
): void {
  if (typeof value === 'number' && Number.isFinite(value) && ok(value)) return;
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  throw new InputError('FIELD_INVALID', `${what}: expected ${field} to be ${expected}, got ${shown}`, {
    field,
    expected,
    received: shown,
  });
}

/** An administrative level (spec: "level (integer, required)"): 0 to 12 and beyond, whole. */
export function checkLevel(what: string, level: unknown): void {
  checkNumber(what, 'level', level, 'a whole number from 0', (n) => Number.isInteger(n) && n >= 0);
}

/** A list the request cannot be sent without: an array with at least one element. */
export function checkList(what: string, field: string, value: unknown): void {
  if (Array.isArray(value) && value.length > 0) return;
  const shown = Array.isArray(value) ? 'an empty list' : value === undefined ? 'nothing' : typeof value;
  throw new InputError(
    'FIELD_INVALID',
    `${what}: expected ${field} to be a list of one or more, got ${shown}`,
    {
      field,
      expected: 'a list of one or more',
      received: shown,
    },
  );
}

/** The optional numbers every area request takes: within their ranges when given. */
export function checkAreaCommon(what: string, c: { reduceGeometry?: unknown; zoom?: unknown }): void {
  if (c.reduceGeometry !== undefined)
    checkNumber(what, 'reduceGeometry', c.reduceGeometry, 'a number from 0 to 1', (n) => n >= 0 && n <= 1);
  if (c.zoom !== undefined)
    checkNumber(what, 'zoom', c.zoom, 'a whole number from 0', (n) => Number.isInteger(n) && n >= 0);
}

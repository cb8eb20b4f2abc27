/**
 * Coordinate formats of the service (`coordFormatOut`, `CoordFormatIn`) and lon/lat validation.
 *
 * Only GEODECIMAL_POINT (WGS84 degrees) is vendor-documented; the client always asks for it. The
 * other three follow the PTV legacy definitions in service-notes.md ("likely, not confirmed") and
 * are checked there against its reference values, for users whose data arrives in them.
 */

import type { CoordFormat } from '../contract/index.js';
import { InputError } from '../errors.js';
import type { LonLat } from '../types.js';

const DEG = Math.PI / 180;

/** GEODECIMAL: WGS84 degrees times 100000, as integers. */
const GEODECIMAL_SCALE = 100_000;

/** MERCATOR: a sphere of radius 6371000 m, no offsets (not Web Mercator's 6378137). */
const MERCATOR_R = 6_371_000;

/** SUPERKONFORM: Lambert conformal conic on a sphere, parallels 45N/55N, origin 30N 10E. */
const SK = (() => {
  const r = 6_365_000;
  const phi1 = 45 * DEG;
  const phi2 = 55 * DEG;
  const phi0 = 30 * DEG;
  const t = (phi: number): number => Math.tan(Math.PI / 4 + phi / 2);
  const n = Math.log(Math.cos(phi1) / Math.cos(phi2)) / Math.log(t(phi2) / t(phi1));
  const rf = (r * Math.cos(phi1) * t(phi1) ** n) / n;
  return {
    n,
    rf,
    rho0: rf / t(phi0) ** n,
    lambda0: 10 * DEG,
    // false easting/northing, then the format's own shift
    east: 1_800_000 + 3_400_000,
    north: -500_000 + 1_700_000,
    t,
  };
})();

/** Converts a WGS84 [lon, lat] into `format`'s [x, y]. */
export function fromWgs84(point: LonLat, format: CoordFormat): [number, number] {
  const [lon, lat] = point;
  switch (format) {
    case 'GEODECIMAL_POINT':
      return [lon, lat];
    case 'GEODECIMAL':
      return [Math.round(lon * GEODECIMAL_SCALE), Math.round(lat * GEODECIMAL_SCALE)];
    case 'MERCATOR':
      return [MERCATOR_R * lon * DEG, MERCATOR_R * Math.log(Math.tan(Math.PI / 4 + (lat * DEG) / 2))];
    case 'SUPERKONFORM': {
      const rho = SK.rf / SK.t(lat * DEG) ** SK.n;
      const theta = SK.n * (lon * DEG - SK.lambda0);
      return [rho * Math.sin(theta) + SK.east, SK.rho0 - rho * Math.cos(theta) + SK.north];
    }
  }
}

/** Converts `format`'s [x, y] into WGS84 [lon, lat]. */
export function toWgs84(point: readonly [number, number], format: CoordFormat): LonLat {
  const [x, y] = point;
  switch (format) {
    case 'GEODECIMAL_POINT':
      return [x, y];
    case 'GEODECIMAL':
      return [x / GEODECIMAL_SCALE, y / GEODECIMAL_SCALE];
    case 'MERCATOR':
      return [x / MERCATOR_R / DEG, (2 * Math.atan(Math.exp(y / MERCATOR_R)) - Math.PI / 2) / DEG];
    case 'SUPERKONFORM': {
      const dx = x - SK.east;
      const dy = SK.rho0 - (y - SK.north);
      const rho = Math.sign(SK.n) * Math.hypot(dx, dy);
      const theta = Math.atan2(dx, dy);
      const lat = 2 * Math.atan((SK.rf / rho) ** (1 / SK.n)) - Math.PI / 2;
      return [(theta / SK.n + SK.lambda0) / DEG, lat / DEG];
    }
  }
}

/** Converts between any two formats through WGS84. */
export function convert(
  point: readonly [number, number],
  from: CoordFormat,
  to: CoordFormat,
): [number, number] {
  if (from === to) return [point[0], point[1]];
  return fromWgs84(toWgs84(point, from), to);
}

/** Great-circle distance in metres (haversine, mean Earth radius); for tests and tolerances. */
export function distanceMetres(a: LonLat, b: LonLat): number {
  const dLat = (b[1] - a[1]) * DEG;
  const dLon = (b[0] - a[0]) * DEG;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * DEG) * Math.cos(b[1] * DEG) * Math.sin(dLon / 2) ** 2;
  return 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Why a lon/lat pair cannot be used, in the vocabulary of a RowIssue. */
export interface CoordIssue {
  readonly code: 'FIELD_MISSING' | 'FIELD_INVALID';
  /** Which of the two values is at fault; the job maps it to its column name. */
  readonly axis: 'lon' | 'lat';
  readonly message: string;
}

/**
 * The decimal mark an input declares for the numbers in its cells (`input.decimal`); the other
 * mark then only separates thousands, in groups of three. Undefined: either mark is read as the
 * decimal one and none separates thousands (and `thousandsAmbiguity` refuses what could be both).
 */
export type DecimalMark = '.' | ',';

/** The marks of a pair's two values; a value without one is read with either mark. */
export interface PairMarks {
  readonly lon?: DecimalMark | undefined;
  readonly lat?: DecimalMark | undefined;
}

/**
 * Reads a longitude and a latitude (numbers, or numeric strings as CSV gives them) into a LonLat,
 * or says what is wrong with them in the form "expected ..., got ...". A string is read with its
 * value's declared decimal mark (`marks`), else with either.
 */
export function readLonLat(lon: unknown, lat: unknown, marks: PairMarks = {}): LonLat | CoordIssue {
  const x = readAxis(lon, 'lon', marks.lon);
  if (typeof x !== 'number') return x;
  const y = readAxis(lat, 'lat', marks.lat);
  if (typeof y !== 'number') return y;
  if (y < -90 || y > 90) {
    // The commonest cause by far is a file with the columns the other way round.
    const swapped = x >= -90 && x <= 90 && y >= -180 && y <= 180 ? ' (longitude and latitude swapped?)' : '';
    return {
      code: 'FIELD_INVALID',
      axis: 'lat',
      message: `expected a latitude from -90 to 90, got ${asWritten(lat, y)}${swapped}`,
    };
  }
  if (x < -180 || x > 180) {
    return {
      code: 'FIELD_INVALID',
      axis: 'lon',
      message: `expected a longitude from -180 to 180, got ${asWritten(lon, x)}`,
    };
  }
  return [x, y];
}

/**
 * A value out of range as the row gives it: a cell's text quoted as written (`1e3`, not the 1000
 * read from it, as a cell that is no number is quoted), a number as it is.
 */
function asWritten(value: unknown, read: number): string {
  return typeof value === 'string' ? `\`${value.trim().slice(0, 40)}\`` : String(read);
}

// Decimal degrees as people write them: a sign, digits, one decimal point or (as German
// spreadsheets write it) one decimal comma, an exponent. Not hex, not `Infinity`.
const DECIMAL = /^[-+]?(\d+([.,]\d*)?|[.,]\d+)([eE][-+]?\d+)?$/;

// With a declared mark: the other one only between groups of three after a first group that does
// not start with 0 (`1.500.000,25`), the declared one at most once, an exponent.
const MARKED: Readonly<Record<DecimalMark, RegExp>> = {
  ',': /^[-+]?(([1-9]\d{0,2}(\.\d{3})+|\d+)(,\d*)?|,\d+)([eE][-+]?\d+)?$/,
  '.': /^[-+]?(([1-9]\d{0,2}(,\d{3})+|\d+)(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/,
};

// A mark after one to three digits (not a lone 0) and before exactly three: `1.500`, `12,345`.
const ONE_GROUP = /^([-+]?)([1-9]\d{0,2})[.,](\d{3})$/;

/**
 * The message for a number's text that cannot be read without a guess, or undefined when it can.
 * `1.500` is 1.5 where `.` is the decimal mark and 1500 where it separates thousands (as German
 * spreadsheets write 1500; `1,500` likewise the other way round), and nothing in a cell tells
 * which. Only a field whose valid values include both readings asks (metres, projected
 * coordinates): degrees and minutes need not, as no thousand is one. Two groups (`1.500.000`) or
 * both marks (`1.500,25`) never read as a number in the first place. A declared mark (`mark`,
 * input.decimal) tells which, and nothing is ambiguous.
 */
export function thousandsAmbiguity(value: unknown, expected: string, mark?: DecimalMark): string | undefined {
  if (typeof value !== 'string' || mark !== undefined) return undefined;
  const text = value.trim();
  const parts = ONE_GROUP.exec(text);
  if (parts === null) return undefined;
  const [, sign, head, tail] = parts as unknown as [string, string, string, string];
  const whole = `${sign}${head}${tail}`;
  return (
    `expected ${expected}, got \`${text}\`: ${Number(`${sign}${head}.${tail}`)} with a decimal mark, ${whole} with a ` +
    `thousands separator; write it without thousands separators (${whole}) or with other than three ` +
    'decimals, or declare the mark with input.decimal'
  );
}

/**
 * A number's text as people write it, or undefined. Without `mark`: one decimal point or comma,
 * an exponent. With it (input.decimal): that mark as the decimal one, the other between groups of
 * three digits only (`1.500.000,25` with `,`).
 */
export function readDecimal(text: string, mark?: DecimalMark): number | undefined {
  if (mark !== undefined) return readMarked(text, mark);
  if (!DECIMAL.test(text)) return undefined;
  // Every coordinate passes here: no replace() (a new string) for the usual decimal point.
  const n = Number(text.includes(',') ? text.replace(',', '.') : text);
  return Number.isFinite(n) ? n : undefined;
}

function readMarked(text: string, mark: DecimalMark): number | undefined {
  if (!MARKED[mark].test(text)) return undefined;
  const plain = mark === '.' ? text.replaceAll(',', '') : text.replaceAll('.', '').replace(',', '.');
  const n = Number(plain);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * What a number must look like under a declared mark, for the message of a value with a mark that
 * does not read: ` written with input.decimal "," (`.` only between groups of three digits, as in
 * 1.500.000,25)`. Empty without a declared mark, or for a text with no mark at all (`abc`).
 */
export function markNote(text: string, mark: DecimalMark | undefined): string {
  if (mark === undefined || !/[.,]/.test(text)) return '';
  const [other, example] = mark === ',' ? ['.', '1.500.000,25'] : [',', '1,500,000.25'];
  return ` written with input.decimal "${mark}" (\`${other}\` only between groups of three digits, as in ${example})`;
}

/** True for the issue branch of `readLonLat`. */
export function isCoordIssue(value: LonLat | CoordIssue): value is CoordIssue {
  return !Array.isArray(value);
}

function readAxis(value: unknown, axis: 'lon' | 'lat', mark: DecimalMark | undefined): number | CoordIssue {
  const name = axis === 'lon' ? 'longitude' : 'latitude';
  const grouped = groupedDegrees(value, mark);
  if (grouped !== undefined) return { code: 'FIELD_INVALID', axis, message: `expected a ${name}${grouped}` };
  return readCoordinateNumber(value, axis, name, ' in decimal degrees', mark);
}

/**
 * Degrees have no thousands to group: under a declared mark, a coordinate that reads only with the
 * other mark grouping thousands (`11.571` in a file of `11,5134`) is a decimal written the other
 * way. Read as the group it was 11571, refused as out of range in words that named neither the
 * mark nor the fix. Returns the rest of the message, or undefined when the value has no group.
 */
function groupedDegrees(value: unknown, mark: DecimalMark | undefined): string | undefined {
  if (typeof value !== 'string' || mark === undefined) return undefined;
  const text = value.trim();
  const other = mark === ',' ? '.' : ',';
  if (!text.includes(other) || readMarked(text, mark) === undefined) return undefined;
  const example = mark === ',' ? '48,1374' : '48.1374';
  return (
    ` in decimal degrees written with input.decimal "${mark}" (as in ${example}; \`${other}\` groups thousands, ` +
    `which degrees never have), got \`${text.slice(0, 40)}\``
  );
}

/**
 * One coordinate value as a number (a decimal point or comma, an exponent; not hex, not
 * Infinity), or the issue naming what was expected: `name`, and `unit` when the value is there but
 * not a number. A string is read with `mark` when the input declares one (readDecimal). Shared by
 * the degrees read here and the projected formats the jobs read.
 */
export function readCoordinateNumber(
  value: unknown,
  axis: 'lon' | 'lat',
  name: string,
  unit = '',
  mark?: DecimalMark,
): number | CoordIssue {
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (value === undefined || value === null || text === '') {
    return { code: 'FIELD_MISSING', axis, message: `expected a ${name}, got an empty value` };
  }
  const n =
    typeof value === 'number'
      ? value
      : text !== undefined
        ? (readDecimal(text, mark) ?? Number.NaN)
        : Number.NaN;
  if (!Number.isFinite(n)) {
    const shown = text !== undefined ? `\`${text.slice(0, 40)}\`` : String(value);
    // A number in the other writing: say which one the input declared.
    const note = text === undefined ? '' : markNote(text, mark);
    return { code: 'FIELD_INVALID', axis, message: `expected a ${name}${unit}${note}, got ${shown}` };
  }
  return n;
}

/**
 * Refuses, before anything is sent, a point the service can only answer 400 to (and may charge
 * for): NaN, Infinity or no number at all, as a failed parse leaves them, or degrees out of
 * range. The code is FIELD_INVALID, a row's code: in a run it fails the rows of that request
 * and the run goes on. A point is WGS84 but where the caller had the service read another format
 * (address search's `CoordFormatIn`): `wgs84` false checks only that its numbers are finite.
 */
export function checkPoints(what: string, points: readonly LonLat[], wgs84 = true): void {
  for (const [i, p] of points.entries()) {
    const [lon, lat] = (Array.isArray(p) ? p : []) as unknown[];
    if (typeof lon === 'number' && typeof lat === 'number' && Number.isFinite(lon) && Number.isFinite(lat)) {
      if (!wgs84 || (Math.abs(lon) <= 180 && Math.abs(lat) <= 90)) continue;
    }
    const which = points.length === 1 ? 'the point' : `point ${i + 1} of ${points.length}`;
    // A string quoted: ['8.4', 49] shown as [8.4, 49] looked like a valid point.
    const one = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
    const shown = Array.isArray(p) ? `[${p.map(one).join(', ')}]` : one(p);
    const swapped =
      typeof lon === 'number' &&
      typeof lat === 'number' &&
      Math.abs(lat) > 90 &&
      Math.abs(lat) <= 180 &&
      Math.abs(lon) <= 90
        ? ' (longitude and latitude swapped?)'
        : '';
    const expected = wgs84
      ? '[longitude, latitude] as numbers, longitude from -180 to 180, latitude from -90 to 90'
      : '[x, y] as finite numbers';
    throw new InputError(
      'FIELD_INVALID',
      `${what}: expected ${which} to be ${expected}, got ${shown}${swapped}`,
      {
        field: points.length === 1 ? 'point' : `points[${i}]`,
        expected,
        received: shown,
      },
    );
  }
}

/**
 * Coordinate formats of a job's columns: what the input's coordinate columns are written in, and
 * what the output's coordinate columns (and CSV geometry text) are written in. The service's four
 * formats (GEODECIMAL_POINT = WGS84 degrees, GEODECIMAL, MERCATOR, SUPERKONFORM) convert through
 * src/client/coords.ts, tested against the service notes' reference values.
 *
 * Geometries are never converted: GeoJSON input and output are WGS84 as RFC 7946 requires, and
 * the service is always asked in GEODECIMAL_POINT. Only the columns a person reads or writes are.
 */
import { z } from 'zod';
import {
  type CoordIssue,
  type DecimalMark,
  fromWgs84,
  type PairMarks,
  readCoordinateNumber,
  thousandsAmbiguity,
  toWgs84,
} from '../client/coords.js';
import type { CoordFormat } from '../contract/index.js';
import { COORD_FORMATS } from '../contract/index.js';
import type { LonLat } from '../types.js';

export type { CoordFormat } from '../contract/index.js';

export const DEFAULT_COORD_FORMAT: CoordFormat = 'GEODECIMAL_POINT';

const formatEnum = z.enum(COORD_FORMATS as readonly CoordFormat[] as [CoordFormat, ...CoordFormat[]]);

/** `coordFormat` of a kind that only reads coordinates, or only writes them: one format. */
export const coordFormatOption = formatEnum.optional();

/** `coordFormat` of a kind that reads and writes coordinates: one format for both, or each apart. */
export const coordFormatsOption = z
  .union([formatEnum, z.strictObject({ input: formatEnum.optional(), output: formatEnum.optional() })])
  .optional();

export type CoordFormatsSetting = z.infer<typeof coordFormatsOption>;

/** The README's words for the option (the job table). */
export const COORD_FORMAT_DOC =
  '`GEODECIMAL_POINT` \\| `GEODECIMAL` \\| `MERCATOR` \\| `SUPERKONFORM` (default GEODECIMAL_POINT)';
export const COORD_FORMATS_DOC = `${COORD_FORMAT_DOC}, or { \`input\`, \`output\` } apart`;

export interface CoordFormats {
  readonly input: CoordFormat;
  readonly output: CoordFormat;
}

/** The input and output formats an option names. */
export function coordFormats(setting: CoordFormatsSetting): CoordFormats {
  if (setting === undefined) return { input: DEFAULT_COORD_FORMAT, output: DEFAULT_COORD_FORMAT };
  if (typeof setting === 'string') return { input: setting, output: setting };
  return { input: setting.input ?? DEFAULT_COORD_FORMAT, output: setting.output ?? DEFAULT_COORD_FORMAT };
}

/**
 * The coordinates a kind reads and writes, each in its format, as a pipeline checks them across
 * steps (src/run/step-formats.ts): a step that reads, in one format, a column an earlier step
 * writes in another is refused before anything is read.
 */
export interface KindCoordinates {
  readonly reads?: readonly CoordReads[];
  readonly writes?: CoordWrites;
}

export interface CoordReads {
  /** Mapping keys read as points, each pair `[lon key, lat key]` (`['west', 'south']`). */
  readonly pairs: readonly (readonly [string, string])[];
  readonly format: CoordFormat;
  /**
   * An unmapped pair is read from default columns (lon/lng/longitude/x, lat/latitude/y) before
   * any Point geometry (a matrix's origin in pairs mode); otherwise a Point geometry comes first.
   */
  readonly defaults?: boolean;
  /** The option that sets `format` (`coordFormat`, `coordFormat.input`); none: the kind reads degrees only. */
  readonly option?: string;
}

export interface CoordWrites {
  readonly columns: readonly string[];
  readonly format: CoordFormat;
  /** The option that sets `format`; none: the kind writes degrees only. */
  readonly option?: string;
}

/** The `lon`/`lat` columns a kind writes under `prefix`. */
export function lonLatColumns(prefix: string): [string, string] {
  return [`${prefix}lon`, `${prefix}lat`];
}

/** A kind's reads of one `coordFormat`, the form that sets both formats at once. */
export function readsIn(
  pairs: CoordReads['pairs'],
  format: CoordFormat | undefined,
  option = 'coordFormat',
): CoordReads {
  return { pairs, format: format ?? DEFAULT_COORD_FORMAT, option };
}

/** Degrees only: the kinds without a `coordFormat` (the routing kinds). */
export function readsDegrees(pairs: CoordReads['pairs']): CoordReads {
  return { pairs, format: DEFAULT_COORD_FORMAT };
}

/** Why a pair of columns is not a point in its format, as `readLonLat` says it for degrees. */
/** A projected coordinate that cannot be read: the same shape as the degrees' issue. */
export type ProjectedIssue = CoordIssue;

const AXIS_NAMES: Readonly<Record<Exclude<CoordFormat, 'GEODECIMAL_POINT'>, [string, string]>> = {
  GEODECIMAL: [
    'GEODECIMAL longitude (degrees x 100000, an integer)',
    'GEODECIMAL latitude (degrees x 100000, an integer)',
  ],
  MERCATOR: ['MERCATOR x in metres', 'MERCATOR y in metres'],
  SUPERKONFORM: ['SUPERKONFORM x in metres', 'SUPERKONFORM y in metres'],
};

// GEODECIMAL's ranges: degrees x 100000.
const GEODECIMAL_LAT = 9_000_000;
const GEODECIMAL_LON = 18_000_000;

/**
 * A WGS84 [lon, lat] from two columns written in `format` (not GEODECIMAL_POINT: `readLonLat`
 * reads degrees), or what is wrong with them. The converted point is checked to lie on the globe.
 * Strings are read with their declared decimal mark (`marks`, input.decimal), else with either.
 */
export function readProjected(
  x: unknown,
  y: unknown,
  format: Exclude<CoordFormat, 'GEODECIMAL_POINT'>,
  marks: PairMarks = {},
): LonLat | ProjectedIssue {
  const [xName, yName] = AXIS_NAMES[format];
  const a = readMetricNumber(x, 'lon', xName, marks.lon);
  if (typeof a !== 'number') return a;
  const b = readMetricNumber(y, 'lat', yName, marks.lat);
  if (typeof b !== 'number') return b;
  if (format === 'GEODECIMAL') {
    // The classic mix-up is degrees in a column declared GEODECIMAL: 8.4278 would land in the sea off Africa.
    if (!Number.isInteger(a))
      return { code: 'FIELD_INVALID', axis: 'lon', message: `expected a ${xName}, got ${a}` };
    if (!Number.isInteger(b))
      return { code: 'FIELD_INVALID', axis: 'lat', message: `expected a ${yName}, got ${b}` };
    if (Math.abs(b) > GEODECIMAL_LAT) {
      const swapped =
        Math.abs(a) <= GEODECIMAL_LAT && Math.abs(b) <= GEODECIMAL_LON ? ' (x and y swapped?)' : '';
      return {
        code: 'FIELD_INVALID',
        axis: 'lat',
        message: `expected a GEODECIMAL latitude from -9000000 to 9000000, got ${b}${swapped}`,
      };
    }
    if (Math.abs(a) > GEODECIMAL_LON) {
      return {
        code: 'FIELD_INVALID',
        axis: 'lon',
        message: `expected a GEODECIMAL longitude from -18000000 to 18000000, got ${a}`,
      };
    }
  }
  if (format !== 'GEODECIMAL' && Math.abs(a) <= 180 && Math.abs(b) <= 90) {
    // Degrees in metric columns: MERCATOR would put them within 200 m of 0°, 0° in the sea off
    // Africa, and SUPERKONFORM thousands of kilometres off its area; neither is a place anyone means.
    return {
      code: 'FIELD_INVALID',
      axis: 'lon',
      message: `expected a ${xName}, got ${a} (and ${b}: degrees in a column declared ${format}?)`,
    };
  }
  const [lon, lat] = toWgs84([a, b], format);
  if (!Number.isFinite(lon) || !Number.isFinite(lat) || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    return {
      code: 'FIELD_INVALID',
      axis: 'lon',
      message: `expected a ${format} point, got (${a}, ${b}), which lies outside the format's range`,
    };
  }
  return [lon, lat];
}

/**
 * One value of a projected format. Unlike degrees, each of these formats has valid values past a
 * thousand, so `842.780` (842780 in a German file) is refused rather than guessed at, unless the
 * input declares its decimal mark.
 */
function readMetricNumber(
  value: unknown,
  axis: 'lon' | 'lat',
  name: string,
  mark: DecimalMark | undefined,
): number | CoordIssue {
  const ambiguous = thousandsAmbiguity(value, `a ${name}`, mark);
  if (ambiguous !== undefined) return { code: 'FIELD_INVALID', axis, message: ambiguous };
  return readCoordinateNumber(value, axis, name, '', mark);
}

/** Decimals kept when writing a format: GEODECIMAL is integral, the metric ones to the centimetre. */
const DECIMALS: Readonly<Record<Exclude<CoordFormat, 'GEODECIMAL_POINT'>, number>> = {
  GEODECIMAL: 0,
  MERCATOR: 2,
  SUPERKONFORM: 2,
};

function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  // `+ 0` turns a rounded -0 into 0.
  return Math.round(value * factor) / factor + 0;
}

/**
 * A WGS84 point as the output's coordinate columns write it. GEODECIMAL_POINT keeps the value as
 * the service or the input gave it (no rounding, so nothing is lost); the others are converted.
 */
export function outputXY(point: LonLat, format: CoordFormat): [number, number] {
  if (format === 'GEODECIMAL_POINT') return [point[0], point[1]];
  const [x, y] = fromWgs84(point, format);
  const decimals = DECIMALS[format];
  return [round(x, decimals), round(y, decimals)];
}

/** The two cells of a point in the output format; two empty cells when there is no point. */
export function coordCells(
  point: LonLat | null | undefined,
  format: CoordFormat,
): [number, number] | [null, null] {
  if (point === null || point === undefined || !Number.isFinite(point[0]) || !Number.isFinite(point[1]))
    return [null, null];
  return outputXY(point, format);
}

/** A point from the service's text coordinates (XCoord/YCoord), or null when they are empty or not numbers. */
export function pointFromText(x: string | null | undefined, y: string | null | undefined): LonLat | null {
  if (x === undefined || x === null || y === undefined || y === null || x.trim() === '' || y.trim() === '')
    return null;
  const lon = Number(x);
  const lat = Number(y);
  return Number.isFinite(lon) && Number.isFinite(lat) ? [lon, lat] : null;
}

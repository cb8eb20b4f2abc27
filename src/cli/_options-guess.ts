/**
 * Options `geobatch init` can read off the values, written uncommented with the reason:
 * - `coordFormat`, when the mapped coordinate columns hold projected metres rather than degrees
 *   (SUPERKONFORM: x around 5,000 km east of its false origin and y under 5,000 km; MERCATOR:
 *   x under 3,000 km and y over 5,000 km, as Germany lies in each), and only when the values
 *   read in that format lie in Germany: metres in another projection (UTM) are not taken for it;
 * - area-export's `level` for rectangles, which the kind needs and the input cannot say: districts,
 *   the finest level the service exports, with the other levels named in the comment.
 */
import { toWgs84 } from '../client/coords.js';
import { fieldOf } from '../fields.js';
import { KNOWN_COVERAGE } from '../jobs/_fields.js';
import type { JobKind } from '../jobs/index.js';
import type { Row } from '../types.js';
import { type ColumnGuess, numberIn } from './_columns.js';

export interface OptionGuess {
  readonly value: unknown;
  readonly reason: string;
}

const X_FIELDS = new Set(['lon', 'west', 'east', 'originLon', 'destinationLon']);
const Y_FIELDS = new Set(['lat', 'south', 'north', 'originLat', 'destinationLat']);

function numbers(rows: readonly Row[], column: string): number[] {
  return rows.flatMap((row) => numberIn(fieldOf(row.fields, column)) ?? []);
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function projectedFormat(
  mapping: ReadonlyMap<string, ColumnGuess>,
  rows: readonly Row[],
): string | undefined {
  const of = (fields: ReadonlySet<string>) =>
    median(
      [...mapping].filter(([field]) => fields.has(field)).flatMap(([, guess]) => numbers(rows, guess.column)),
    );
  const x = of(X_FIELDS);
  const y = of(Y_FIELDS);
  if (x === undefined || y === undefined || (Math.abs(x) <= 180 && Math.abs(y) <= 90)) return undefined;
  const format =
    x > 3_000_000 && y < 5_000_000 ? 'SUPERKONFORM' : x < 3_000_000 && y > 5_000_000 ? 'MERCATOR' : undefined;
  // Metres in another projection pass those bounds too (UTM zone 32, EPSG:25832, the commonest in
  // German data: Karlsruhe's 456183/5429767 read as MERCATOR lies in southern France). Only a
  // format that puts the points where the service's coverage is can be the one they are in.
  if (format === undefined) return undefined;
  const [lon, lat] = toWgs84([x, y], format);
  const c = KNOWN_COVERAGE;
  return lon >= c.west && lon <= c.east && lat >= c.south && lat <= c.north ? format : undefined;
}

export function guessOptions(
  kind: JobKind,
  mapping: ReadonlyMap<string, ColumnGuess>,
  rows: readonly Row[],
): Map<string, OptionGuess> {
  const options = new Map<string, OptionGuess>();
  const shape = kind.options.shape as Readonly<Record<string, unknown>>;
  if ('coordFormat' in shape) {
    const format = projectedFormat(mapping, rows);
    if (format !== undefined) {
      options.set('coordFormat', {
        value: format,
        reason: 'guessed: the coordinates are metres, not degrees',
      });
    }
  }
  if (kind.name === 'area-export' && mapping.has('west') && !mapping.has('osmid')) {
    options.set('level', { value: 6, reason: 'guessed: districts; 4 = states, 2 = the country' });
  }
  return options;
}

/** Names an easting or a northing goes by (`x`, `Rechtswert`, `utm_e`, `east`...), case aside. */
const EASTING = /^(utm[ _-]?)?(x|e|east|easting|ost|ostwert|rechtswert|rw)([ _-]?(coord|koord|wert|utm))?$/i;
const NORTHING =
  /^(utm[ _-]?)?(y|n|north|northing|nord|nordwert|hochwert|hw)([ _-]?(coord|koord|wert|utm))?$/i;

/**
 * Two columns that read as UTM metres in Germany (ETRS89 / UTM zone 32N or 33N, EPSG:25832 or
 * 25833, the commonest projection of German public data): named as an easting and a northing, and
 * every value of the first rows an easting of 160-840 km and a northing of 5,200-6,150 km. No
 * coordFormat reads them, so init says what they are instead of only that no kind reads the file.
 * By value alone, a customer number and a turnover passed for them.
 */
export function utmColumns(columns: readonly string[], rows: readonly Row[]): [string, string] | undefined {
  const within = (column: string, low: number, high: number) => {
    const values = numbers(rows, column);
    return values.length > 0 && values.length === rows.length && values.every((v) => v >= low && v <= high);
  };
  const easting = columns.find((c) => EASTING.test(c.trim()) && within(c, 160_000, 840_000));
  const northing = columns.find((c) => NORTHING.test(c.trim()) && within(c, 5_200_000, 6_150_000));
  return easting === undefined || northing === undefined ? undefined : [easting, northing];
}

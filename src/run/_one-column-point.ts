/**
 * A point whose longitude and latitude keys read one column (`lon: geo_lon, lat: geo_lon`), a
 * copy-paste slip: every row went out as a point on the diagonal (8.4, 8.4), answered ok somewhere
 * else entirely, or failed out of range. Refused alike for the input's and the steps' mappings
 * (mapped-columns.ts) and for a side input's, a matrix's destinations (side-columns.ts).
 */
import { ConfigError } from '../errors.js';
import { axisOfName } from '../jobs/_axis-names.js';
import { isDefaultColumn, shownColumn } from '../jobs/_fields.js';

/**
 * Throws CONFIG_INVALID when `keys` (a pair's longitude and latitude keys, under `at`) both read
 * `columns`' one column. The hint blames the key the column's name says is wrong (`lon: lat`: the
 * longitude's), both when the name says neither half; `near`, the columns the row has before the
 * input is read (an earlier step's), supplies the column to map it to where one is the twin.
 */
export function checkOnePointColumn(
  file: string,
  at: string,
  keys: readonly [string, string],
  columns: readonly [string | undefined, string | undefined],
  near: readonly string[] = [],
): void {
  const [column, other] = columns;
  if (column === undefined || column !== other) return;
  const [lonKey, latKey] = keys;
  const held = axisOfName(column);
  // The column holds one half: the key of the other half is the one mapped wrong.
  const wrong = held === 'lat' ? 'lon' : held === 'lon' ? 'lat' : undefined;
  const key = wrong === 'lon' ? lonKey : latKey;
  const twin =
    wrong === undefined ? undefined : near.find((name) => name !== column && sameBut(name, column, wrong));
  const hint =
    wrong === undefined
      ? `map ${lonKey} to the longitude's column and ${latKey} to the latitude's: ${shownColumn(column)} does not say which it holds`
      : twin === undefined
        ? `map ${key} to the ${wrong === 'lon' ? 'longitude' : 'latitude'}'s column`
        : `map it to the same step's column: \`${key}: ${twin}\``;
  throw new ConfigError(
    `${file}: ${at}.${lonKey} and ${at}.${latKey} both read ${shownColumn(column)}: a point's longitude and latitude come from two columns`,
    { file, path: `${at}.${key}`, expected: `a column other than ${shownColumn(column)}`, hint },
  );
}

/** Whether `other` is `column` with its axis word exchanged (geo_lon and geo_lat). */
export function sameBut(other: string, column: string, axis: 'lon' | 'lat'): boolean {
  const stem = (name: string) => name.replace(/(lon|lng|longitude|lat|latitude|x|y)$/i, '');
  return stem(other) === stem(column) && isDefaultColumn(other.slice(stem(other).length), axis);
}

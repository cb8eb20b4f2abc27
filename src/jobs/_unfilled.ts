/**
 * How the columns a row could have been read from are unfilled, for a FIELD_MISSING message: each
 * as empty (there, blank) or missing (not in the row), all of them at once. Naming one alone (the
 * postcode's) had a user fill it and fail again on the next (the city's).
 */
import { hasField } from '../fields.js';
import type { Row } from '../types.js';
import { columnName } from './_column-name.js';

/**
 * `PLZ and Ort: both empty`, `plz, city and location: all missing`, `plz: empty, city:
 * missing`; `fallback: missing` when no column is named (constants, or nothing mapped).
 */
export function unfilled(row: Row, columns: readonly string[], fallback: string): string {
  if (columns.length === 0) return `${columnName(fallback)}: missing`;
  const names = columns.map(columnName);
  const states = columns.map((column) => (hasField(row.fields, column) ? 'empty' : 'missing'));
  const list =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  if (states.every((state) => state === states[0]))
    return `${list}: ${names.length === 1 ? '' : names.length === 2 ? 'both ' : 'all '}${states[0]}`;
  return names.map((name, i) => `${name}: ${states[i]}`).join(', ');
}

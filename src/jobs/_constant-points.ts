/**
 * A point whose coordinates the mapping gives as constants (`lat: { value: 200 }`) is the same on
 * every row: one no row can pass is refused when the file loads, naming the field, as a constant
 * reach is, instead of failing every row after the steps before it were paid for.
 */
import { readCoordinateNumber } from '../client/coords.js';
import type { Row } from '../types.js';
import type { KindCoordinates } from './_coord-format.js';
import { type FieldSource, isPlanIssue, type Mapping, readPoint, resolveMapping } from './_fields.js';
import type { FileIssue } from './_file-rules.js';

const NO_ROW = 'geobatch:no-column';

export function constantPointIssue(
  coordinates: KindCoordinates | undefined,
  raw: Readonly<Record<string, unknown>>,
): FileIssue | undefined {
  const mapping = resolveMapping(raw);
  const constant = (key: string) => {
    const source = mapping[key];
    return source !== undefined && 'value' in source;
  };
  for (const { pairs, format } of coordinates?.reads ?? []) {
    for (const [lonKey, latKey] of pairs) {
      const given = [lonKey, latKey].filter(constant);
      if (given.length === 0) continue;
      const degrees = format === 'GEODECIMAL_POINT';
      // One constant beside a column is checked against a harmless partner; in another format no
      // partner is harmless, so there only a pair of constants is checked in full, and one alone
      // only for being a number at all (`lat: { value: abc }` failed every MERCATOR row).
      if (given.length === 1 && !degrees) {
        const key = given[0] as string;
        const value = (mapping[key] as { value?: unknown }).value;
        const axis = key === lonKey ? 'lon' : 'lat';
        if (typeof readCoordinateNumber(value, axis, 'coordinate') === 'number') continue;
      }
      const partner: FieldSource = { column: NO_ROW };
      const alone: Mapping = {
        [lonKey]: constant(lonKey) ? (mapping[lonKey] as FieldSource) : partner,
        [latKey]: constant(latKey) ? (mapping[latKey] as FieldSource) : partner,
      };
      const row: Row = { kind: 'row', ref: { index: 0, line: 0 }, fields: { [NO_ROW]: '0' } };
      const point = readPoint(row, alone, {
        lon: lonKey,
        lat: latKey,
        format,
        geometry: false,
        conventional: false,
      });
      if (!isPlanIssue(point)) continue;
      const field = given.find((key) => point.field === key) ?? (given[0] as string);
      let expected = point.message.slice(point.message.indexOf(':') + 1).trim();
      // Reasoned from the made-up partner: no hint of its own about the pair.
      if (given.length === 1) expected = expected.replace(' (longitude and latitude swapped?)', '');
      expected = asConstant(expected);
      return {
        path: `mapping.${field}`,
        expected,
        received: String((mapping[field] as { value?: unknown }).value),
      };
    }
  }
  return undefined;
}

/**
 * A row's message as a constant's: a constant is read with a decimal point whatever `input.decimal`
 * says (it is the file's, not the job file's), so advice to declare the mark there cannot help.
 */
export function asConstant(message: string): string {
  const advice =
    /,? or (?:set input\.decimal: "[.,]" if the whole file writes decimal commas|declare the mark with input\.decimal)/;
  if (!advice.test(message)) return message;
  return `${message.replace(advice, '')} (a constant is read with a decimal point, whatever input.decimal says)`;
}

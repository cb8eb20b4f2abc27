/**
 * Via points from one cell: `lon,lat;lon,lat` (pairs separated by `;` or `|`, a pair's numbers by
 * a comma or spaces; by spaces only where input.decimal is `,`), or a JSON array of pairs
 * `[[lon,lat],...]` as NDJSON input keeps nested values. Each point is range-checked like any
 * coordinate.
 */
import { type DecimalMark, isCoordIssue, readLonLat } from '../client/coords.js';
import type { PlanIssue } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import { columnName } from './_column-name.js';
import { columnOf, fieldMark, type Mapping, readText } from './_fields.js';

const FORMAT = 'expected `lon,lat` pairs separated by `;` (or a JSON array of [lon, lat] pairs)';
// A comma is the decimal mark: a pair's numbers are apart by spaces only (`8,4 49,0; 8,5 49,1`).
const COMMA_FORMAT =
  'expected `lon lat` pairs separated by `;`, their numbers by spaces as input.decimal is "," ' +
  '(or a JSON array of [lon, lat] pairs)';

/** A pair's values, and the pair as the cell wrote it (for a message quoting it). */
interface Pair {
  readonly values: unknown[];
  readonly written: string;
}

function pairsOf(text: string, mark: DecimalMark | undefined): Pair[] | undefined {
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      // Pairs of plain values only: a pair holding arrays is no point, and one nested thousands
      // deep overflowed the stack of the message that quotes it.
      const flat = (pair: unknown) =>
        Array.isArray(pair) && pair.every((v) => v === null || typeof v !== 'object');
      if (!Array.isArray(parsed) || !parsed.every(flat)) return undefined;
      return (parsed as unknown[][]).map((values) => ({ values, written: JSON.stringify(values) }));
    } catch {
      return undefined;
    }
  }
  return text
    .split(/[;|]/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => ({ values: part.split(mark === ',' ? /\s+/ : /\s*,\s*|\s+/), written: part }));
}

/** `8,45 49,05`: a pair written with decimal commas, which only input.decimal "," reads. */
const COMMA_PAIR = /^[-+]?\d+,\d+\s+[-+]?\d+,\d+$/;

/** The via points in order; none when the mapping has no `via` or the cell is blank. */
export function readVia(row: Row, mapping: Mapping, max: number): LonLat[] | PlanIssue {
  const text = readText(row, mapping, 'via');
  if (text === undefined) return [];
  const field = columnOf(mapping, 'via') ?? 'via';
  const invalid = (detail: string): PlanIssue => ({
    code: 'FIELD_INVALID',
    field,
    message: `${columnName(field)}: ${detail}`,
  });
  const mark = fieldMark(row, mapping, 'via');
  const format = mark === ',' ? COMMA_FORMAT : FORMAT;
  const pairs = pairsOf(text, mark);
  if (pairs === undefined) return invalid(`${format}, got \`${text.slice(0, 40)}\``);
  if (pairs.length > max) return invalid(`at most ${max} via points fit in one request, got ${pairs.length}`);
  const points: LonLat[] = [];
  for (const [i, { values, written }] of pairs.entries()) {
    if (values.length !== 2) {
      // input.decimal is the whole file's: a file of decimal points elsewhere writes the pair with points.
      const comma =
        mark !== ',' && COMMA_PAIR.test(written)
          ? `; write it with decimal points (${written.replace(/,/g, '.').replace(/\s+/, ',')}), or set input.decimal: "," if the whole file writes decimal commas`
          : '';
      return invalid(`point ${i + 1}: ${format}, got \`${written.slice(0, 40)}\`${comma}`);
    }
    const point = readLonLat(values[0], values[1], { lon: mark, lat: mark });
    if (isCoordIssue(point)) return invalid(`point ${i + 1}: ${point.message}`);
    points.push(point);
  }
  return points;
}

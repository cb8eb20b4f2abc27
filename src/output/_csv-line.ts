/**
 * One CSV record as text, byte for byte what csv-stringify writes with geobatch's options (its
 * defaults: `"` as quote and escape, `\n` between records; quoting only where needed), without its
 * per-field arrays and option objects: it allocated about 5 KB per row of a short elevation
 * output, more than the rest of the run together. The cells are already text (see _cells.ts).
 *
 * A cell is quoted when it holds the delimiter, a quote, `\n` or `\r`; quotes inside are doubled.
 */
import type { FieldValue } from '../types.js';
import { needsGuardAt } from './_cells.js';

const QUOTE = '"';
const QUOTE_CODE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

export function csvLine(cells: readonly string[], delimiter: string): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += delimiter;
    line += csvCell(cells[i] as string, delimiter);
  }
  return `${line}\n`;
}

export function csvCell(value: string, delimiter: string): string {
  if (value === '') return value;
  const hasQuote = value.indexOf(QUOTE) !== -1;
  if (!hasQuote && !holds(value, delimiter) && value.indexOf('\n') === -1 && value.indexOf('\r') === -1)
    return value;
  return QUOTE + (hasQuote ? value.replaceAll(QUOTE, '""') : value) + QUOTE;
}

/**
 * A field value as a cell, as csvCell(toCell(value, guard)) writes it, in one pass over its
 * characters: what needs quoting and whether the formula guard applies are read together (21 ns a
 * cell less than the two calls, measured on a geocode output: about 0.4 µs a row).
 */
export function csvField(value: FieldValue | undefined, guard: boolean, delimiter: string): string {
  if (value === null || value === undefined) return '';
  const isText = typeof value === 'string';
  let text = isText ? value : String(value);
  const length = text.length;
  if (length === 0) return text;
  const separator = delimiter.length === 1 ? delimiter.charCodeAt(0) : -1;
  let quote = false;
  let quotes = false;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE_CODE) quotes = true;
    else if (c === separator || c === LF || c === CR) quote = true;
  }
  if (separator === -1 && holds(text, delimiter)) quote = true;
  if (guard && isText && needsGuardAt(text, text.charCodeAt(0))) text = `'${text}`;
  if (!quote && !quotes) return text;
  return QUOTE + (quotes ? text.replaceAll(QUOTE, '""') : text) + QUOTE;
}

/** As csv-stringify tests a separator: found inside, or (several characters) begun at the end. */
function holds(value: string, separator: string): boolean {
  if (separator.length === 0) return false;
  if (value.indexOf(separator) !== -1) return true;
  return separator.length > 1 && (value + separator).indexOf(separator) < value.length;
}

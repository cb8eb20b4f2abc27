/**
 * One CSV record as text, byte for byte what csv-stringify writes with geobatch's options (its
 * defaults: `"` as quote and escape, `\n` between records; quoting only where needed), without its
 * per-field arrays and option objects: it allocated about 5 KB per row of a short elevation
 * output, more than the rest of the run together. The cells are already text (see _cells.ts).
 *
 * A cell is quoted when it holds the delimiter, a quote, `\n` or `\r`; quotes inside are doubled.
 */
const QUOTE = '"';

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

/** As csv-stringify tests a separator: found inside, or (several characters) begun at the end. */
function holds(value: string, separator: string): boolean {
  if (separator.length === 0) return false;
  if (value.indexOf(separator) !== -1) return true;
  return separator.length > 1 && (value + separator).indexOf(separator) < value.length;
}

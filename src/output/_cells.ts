/** Field values as CSV cells, with the spreadsheet formula-injection guard. */
import type { FieldValue } from '../types.js';

/** Text a spreadsheet would run as a formula when it starts with one of these. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain number such as `-12.5` or `+3e5` is data, not a formula: it stays as it is. */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Prefixes `'` to text a spreadsheet would evaluate (OWASP "CSV injection"). */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** One value as cell text: empty for null/absent, `true`/`false` for booleans. */
export function toCell(value: FieldValue | undefined, guard: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return guard ? guardFormula(value) : value;
  return String(value);
}

/**
 * Field values as CSV cells, with the spreadsheet formula-injection guard (OWASP "CSV injection").
 *
 * The rule, in order:
 * 1. Text starting with `=`, `@`, TAB or CR is always guarded: a spreadsheet runs it as a formula.
 * 2. Text starting with `+` or `-` is guarded only when it could do more than arithmetic: when it
 *    calls a function (a name followed by `(`, as in `+HYPERLINK(` or `-2+cmd(`) or reaches outside
 *    the cell through DDE or another sheet or file (`|`, `!`). Numbers (`-12.5`, `+3e5`), phone
 *    numbers (`+49 30 1234567`, `+49 (0)30 123-45`), a lone `-`, dates and ids (Base64 such as
 *    `+sB2/fG9XfRxvdA==`) hold neither and pass unchanged.
 * 3. Everything else passes unchanged.
 * Guarding prefixes `'`, which spreadsheets show as text and never run.
 */
import type { FieldValue } from '../types.js';

/** Text a spreadsheet runs as a formula whatever follows. */
const ALWAYS = /^[=@\t\r]/;
/** `+`/`-` text is arithmetic at most, unless it holds one of these. */
const SIGN = /^[+-]/;
/** A function call (a name, then `(`), DDE (`|`) or a reference outside the cell (`!`). */
const ACTIVE = /[A-Za-z_][\w.]*\s*\(|[|!]/;

/** True when a spreadsheet opening the CSV could run `text` as more than plain data. */
export function needsGuard(text: string): boolean {
  return ALWAYS.test(text) || (SIGN.test(text) && ACTIVE.test(text));
}

/**
 * needsGuard for a writer that scans the text anyway and has its first character's code: the
 * same rule, without two regular expressions per cell.
 */
export function needsGuardAt(text: string, first: number): boolean {
  if (first === 0x3d || first === 0x40 || first === 0x09 || first === 0x0d) return true; // = @ TAB CR
  return (first === 0x2b || first === 0x2d) && ACTIVE.test(text); // + -
}

/** Prefixes `'` to text a spreadsheet would run (see the module comment for the rule). */
export function guardFormula(text: string): string {
  return needsGuard(text) ? `'${text}` : text;
}

/** One value as cell text: empty for null/absent, `true`/`false` for booleans. */
export function toCell(value: FieldValue | undefined, guard: boolean): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return guard ? guardFormula(value) : value;
  return String(value);
}

/**
 * Ordering rows inside a group: by a sequence column (a trip's stop numbers) or by time (a GPS
 * track's fixes).
 */
import { type DecimalMark, readDecimal } from '../client/coords.js';

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Sorts by `sequence`: as numbers when every value is a number, else as text (code-unit order, the
 * same on every machine). Equal values keep their input order (the sort is stable), and a missing
 * value sorts after every present one, in input order.
 */
export function bySequence<T>(items: readonly T[], sequence: (item: T) => string | undefined): T[] {
  const values = items.map(sequence);
  const numeric = values.every((v) => v === undefined || NUMBER.test(v));
  const order = items.map((_, i) => i);
  order.sort((a, b) => {
    const x = values[a];
    const y = values[b];
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    if (numeric) return Number(x) - Number(y);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return order.map((i) => items[i] as T);
}

/**
 * A sequence cell as `bySequence` compares it: a number is put as JavaScript writes it. With a
 * declared mark (input.decimal) `1.000` with `,` sorts as 1000; without one a decimal comma reads
 * as a point, as in every other number cell (`9,5` is 9.5, not text that sorts after `10`). Other
 * text stays as it is.
 */
export function sequenceText(text: string, mark: DecimalMark | undefined): string {
  if (mark === undefined && !text.includes(',')) return text;
  const value = readDecimal(text, mark);
  return value === undefined ? text : String(value);
}

/** A fix's time: a number as it is (seconds, milliseconds...), or an ISO 8601 date-time in ms. */
export type Instant = { readonly kind: 'number' | 'date'; readonly value: number };

// Date.parse reads almost anything; a date-time must at least start with a calendar date. An
// offset follows a time of day, in any of ISO 8601's forms: Z (or z), +02, +0200, +02:00; a
// fraction of a second takes ISO 8601's comma as well as its point.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}([.,]\d+)?)?([Zz]|[+-]\d{2}(:?\d{2})?)?)?$/;
// An offset of whole hours (`+02`), which Date.parse does not read: it reads `+02:00`.
const HOURS_OFFSET = /[T ].*[+-]\d{2}$/;

/**
 * The instant, or undefined when the text is neither a number nor an ISO 8601 date-time. A number
 * is read with `mark` when the input declares one (input.decimal: `1.700.000.000`, `12,5`).
 */
export function readInstant(text: string, mark?: DecimalMark): Instant | undefined {
  const dated = /^\d{4}-\d{2}-\d{2}/.test(text);
  if (!dated && (mark !== undefined || text.includes(','))) {
    // Without a declared mark a comma is read as the decimal one, as in every other number cell.
    const value = readDecimal(text, mark);
    if (value !== undefined) return { kind: 'number', value };
  } else if (NUMBER.test(text)) return { kind: 'number', value: Number(text) };
  const parts = DATE_TIME.exec(text);
  if (parts === null) return undefined;
  // Date.parse rolls an impossible day over (2024-02-30 is read as 1 March): the calendar decides.
  const [year, month, day] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate())
    return undefined;
  // A time of day without an offset is read as UTC, not as the machine's local time: the same
  // track must match alike on every machine (a queue's workers in their own zones), and a local
  // reading skipped the hour clocks jump forward (02:30 became 03:30 and the fixes out of order).
  const local = parts[1] !== undefined && parts[4] === undefined;
  // As Date.parse reads it: a point before the fraction, an upper-case Z.
  const iso = text.replace(',', '.').replace(/z$/, 'Z');
  const value = Date.parse(local ? `${iso.replace(' ', 'T')}Z` : HOURS_OFFSET.test(iso) ? `${iso}:00` : iso);
  return Number.isFinite(value) ? { kind: 'date', value } : undefined;
}

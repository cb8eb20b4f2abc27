/**
 * JSON numbers kept as the input wrote them. A number whose text does not survive a round trip
 * through a double (`12345678901234567891`, `1.50`, `-0`, `1e400`) becomes a row field holding its
 * text, a FieldValue every consumer reads as CSV text is read; the row's fields then list the keys
 * of such fields (src/number-texts.ts), so that JSON outputs write the text back as a number.
 * Every other number stays a plain number: finding the rest costs one regular expression a line.
 */
import { rawNumber } from '../number-texts.js';

/**
 * Lines that may hold a number a double cannot repeat as written: a fraction ending in 0 or with
 * 8+ digits, 8+ digits before a point, 6+ zeros after it, or an exponent after a number's digits.
 * A necessary condition, so cheap that it is tested on every line; integers past 2^53, -0 and
 * overflow are found on the parsed values instead (numberExact).
 */
const MAY_HOLD_NUMBER_TEXT = /\.(?:\d*0(?!\d)|0{6}|\d{8})|(?<=\d{8})\.|[eE](?<=[:,[]\s*-?[\d.]*\d[eE])/;

export function mayHoldNumberText(line: string): boolean {
  return MAY_HOLD_NUMBER_TEXT.test(line);
}

/** False for a parsed number whose text cannot have been what String() gives for it. */
export function numberExact(n: number): boolean {
  if (Number.isSafeInteger(n)) return n !== 0 || Object.is(n, 0);
  return Number.isFinite(n) && !Number.isInteger(n);
}

/** True when no number in a parsed value (nested ones included) fails numberExact. */
export function numbersExact(value: unknown): boolean {
  if (typeof value === 'number') return numberExact(value);
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) return value.every(numbersExact);
  for (const key in value) if (!numbersExact((value as Record<string, unknown>)[key])) return false;
  return true;
}

/** A number's text when String(Number(text)) would not give it back, else undefined. */
export function textToKeep(text: string): string | undefined {
  return String(Number(text)) === text ? undefined : text;
}

function keepNumberText(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  const text = textToKeep(context.source);
  return text === undefined ? value : rawNumber(text);
}

/** JSON.parse, with every number that textToKeep keeps left as a raw JSON value of its text. */
export function parseKeepingNumbers(text: string): unknown {
  return JSON.parse(text, keepNumberText as (key: string, value: unknown) => unknown);
}

/**
 * JSON numbers kept as the input wrote them. A number whose text does not survive a round trip
 * through a double (`12345678901234567891`, `1.50`, `-0`, `1e400`) becomes a row field holding its
 * text, a FieldValue every consumer reads as CSV text is read; the row's fields then carry the keys
 * of such fields under NUMBER_TEXTS, so that JSON outputs write the text back as a number.
 * Every other number stays a plain number: finding the rest costs one regular expression a line.
 */

/** JSON.rawJSON and JSON.isRawJSON (Node >= 21, V8 11.4), which the ES2023 lib does not declare. */
export interface RawJson {
  readonly rawJSON: string;
}
const json = JSON as typeof JSON & {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
};

/**
 * Where a row's fields list the keys that hold number text (an array of strings, not enumerable).
 * A registered symbol: the output side, which may not import the input side, asks for the same one.
 */
export const NUMBER_TEXTS: symbol = Symbol.for('geobatch.numberTexts');

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
  return text === undefined ? value : json.rawJSON(text);
}

/** JSON.parse, with every number that textToKeep keeps left as a raw JSON value of its text. */
export function parseKeepingNumbers(text: string): unknown {
  return JSON.parse(text, keepNumberText as (key: string, value: unknown) => unknown);
}

/** A raw JSON value holding a number's text (JSON.stringify writes it as that number). */
export function rawNumber(text: string): RawJson {
  return json.rawJSON(text);
}

export function isRawJson(value: unknown): value is RawJson {
  return json.isRawJSON(value);
}

/** Records which of `fields`' keys hold number text (see NUMBER_TEXTS). */
export function markNumberTexts(fields: object, keys: readonly string[]): void {
  Object.defineProperty(fields, NUMBER_TEXTS, { value: Object.freeze([...keys]) });
}

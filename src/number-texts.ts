/**
 * Input values kept as their JSON text, shared by the readers that keep them and the writers that
 * write them back: a JSON number whose text a double cannot repeat (`12345678901234567891`,
 * `1.50`, `-0`), and a nested object or array of an NDJSON or GeoJSON record. Each travels in a
 * row as its text (a CSV cell holds no object); the row's fields list those keys under
 * NUMBER_TEXTS, so that JSON outputs write the text as the value it was and CSV writes it as it
 * stands.
 */
import type { Fields } from './types.js';

/** JSON.rawJSON and JSON.isRawJSON (Node >= 21, V8 11.4), which the ES2023 lib does not declare. */
export interface RawJson {
  readonly rawJSON: string;
}

const json = JSON as typeof JSON & {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
};

/** Where a row's fields list the keys that hold number text (a frozen array, not enumerable). */
const NUMBER_TEXTS: unique symbol = Symbol('geobatch.numberTexts');

/** A raw JSON value holding a number's text: JSON.stringify writes it as that number. */
export function rawNumber(text: string): RawJson {
  return json.rawJSON(text);
}

export function isRawJson(value: unknown): value is RawJson {
  return json.isRawJSON(value);
}

/** Records which of `fields`' keys hold number text. */
export function markNumberTexts(fields: object, keys: readonly string[]): void {
  Object.defineProperty(fields, NUMBER_TEXTS, { value: Object.freeze([...keys]) });
}

/** A nested value's JSON text (an object or an array), as opposed to a number's. */
export function isNestedText(text: string): boolean {
  const first = text.charCodeAt(0);
  return first === 0x7b || first === 0x5b; // { [
}

/** Numbers a double cannot repeat as written stay raw JSON of their text. */
function keepNumberText(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  return String(value) === context.source ? value : rawNumber(context.source);
}

/** The value a kept JSON text stands for, as JSON.stringify writes it back: exactly as it was. */
export function jsonValue(text: string): unknown {
  return isNestedText(text)
    ? (JSON.parse as (text: string, reviver: typeof keepNumberText) => unknown)(text, keepNumberText)
    : rawNumber(text);
}

/** The keys of `fields` that hold a number's text, if any. */
export function numberTextKeys(fields: Fields): readonly string[] | undefined {
  return (fields as { [NUMBER_TEXTS]?: readonly string[] })[NUMBER_TEXTS];
}

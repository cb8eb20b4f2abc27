/**
 * Input numbers kept as written, shared by the readers that keep them and the writers that write
 * them back. A JSON number whose text a double cannot repeat (`12345678901234567891`, `1.50`, `-0`)
 * travels in a row as its text; the row's fields list those keys under NUMBER_TEXTS, so that JSON
 * outputs write the text as the number it was (JSON.rawJSON) and CSV writes it as it stands.
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

/** The keys of `fields` that hold a number's text, if any. */
export function numberTextKeys(fields: Fields): readonly string[] | undefined {
  return (fields as { [NUMBER_TEXTS]?: readonly string[] })[NUMBER_TEXTS];
}

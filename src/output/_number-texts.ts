/**
 * Input numbers that a double cannot repeat as written (`12345678901234567891`, `1.50`, `-0`)
 * arrive as their text (src/input/_json-numbers.ts), the row's fields listing their keys under a
 * registered symbol. CSV writes the text as it is; JSON outputs write it back as the number it
 * was, through JSON.rawJSON; the GeoPackage types it by what the text holds (_gpkg-columns.ts).
 */
import type { Fields } from '../types.js';

/** JSON.rawJSON and JSON.isRawJSON (Node >= 21, V8 11.4), which the ES2023 lib does not declare. */
export interface RawJson {
  readonly rawJSON: string;
}
const json = JSON as typeof JSON & {
  rawJSON(text: string): RawJson;
  isRawJSON(value: unknown): value is RawJson;
};

/** The symbol the input side registers; the same one, since output may not import input. */
const NUMBER_TEXTS = Symbol.for('geobatch.numberTexts');

/** The keys of `fields` that hold a number's text, if any. */
export function numberTextKeys(fields: Fields): readonly string[] | undefined {
  return (fields as { [NUMBER_TEXTS]?: readonly string[] })[NUMBER_TEXTS];
}

/**
 * `object` (the fields of `source` as written, by default `source` itself) with each number text
 * of `source` as raw JSON, which JSON.stringify writes as the number as it was written. A copy
 * when there are any; `object` itself, untouched, when not.
 */
export function withNumbers(
  source: Fields,
  object: Readonly<Record<string, unknown>> = source,
): Record<string, unknown> {
  const keys = numberTextKeys(source);
  if (keys === undefined) return object;
  const out = { ...object };
  for (const key of keys) {
    const text = out[key];
    // A key a job column has taken over holds the job's value, not the input's text.
    if (typeof text === 'string' && text === source[key]) out[key] = json.rawJSON(text);
  }
  return out;
}

export function isRawJson(value: unknown): value is RawJson {
  return json.isRawJSON(value);
}

/**
 * Input numbers that a double cannot repeat as written (`12345678901234567891`, `1.50`, `-0`), and
 * the nested objects and arrays of NDJSON and GeoJSON records, arrive as their JSON text, the row's
 * fields listing their keys (src/number-texts.ts). CSV writes the text as it is; JSON outputs write
 * it back as the value it was (a number through JSON.rawJSON, an object as the object); the
 * GeoPackage types a number by what the text holds (_gpkg-columns.ts) and keeps a nested value's
 * JSON text, as a TEXT column holds it.
 */
import { isNestedText, jsonValue, numberTextKeys } from '../number-texts.js';
import type { Fields } from '../types.js';

/**
 * `object` (the fields of `source` as written, by default `source` itself) with each number text
 * of `source` as raw JSON, which JSON.stringify writes as the number as it was written. A copy
 * when there are any; `object` itself, untouched, when not.
 */
export function withNumbers(
  source: Fields,
  object: Readonly<Record<string, unknown>> = source,
  nested: 'value' | 'text' = 'value',
): Record<string, unknown> {
  const keys = numberTextKeys(source);
  if (keys === undefined) return object;
  const out = { ...object };
  for (const key of keys) {
    const text = out[key];
    // A key a job column has taken over holds the job's value, not the input's text.
    if (typeof text !== 'string' || text !== source[key]) continue;
    if (nested === 'text' && isNestedText(text)) continue;
    out[key] = jsonValue(text);
  }
  return out;
}

/**
 * Input numbers that a double cannot repeat as written (`12345678901234567891`, `1.50`, `-0`)
 * arrive as their text, the row's fields listing their keys (src/number-texts.ts). CSV writes the
 * text as it is; JSON outputs write it back as the number it was, through JSON.rawJSON; the
 * GeoPackage types it by what the text holds (_gpkg-columns.ts).
 */
import { numberTextKeys, rawNumber } from '../number-texts.js';
import type { Fields } from '../types.js';

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
    if (typeof text === 'string' && text === source[key]) out[key] = rawNumber(text);
  }
  return out;
}

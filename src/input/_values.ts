/**
 * JSON values to row fields: scalars stay; nested values travel as their JSON text, and a number
 * kept as raw JSON (see _json-numbers.ts) becomes its text, both keys listed (src/number-texts.ts)
 * so that JSON outputs write them back as the values they were.
 */

import { isRawJson, markNumberTexts, numberTextKeys } from '../number-texts.js';
import type { Fields, FieldValue } from '../types.js';
import { numberExact, numbersExact } from './_json-numbers.js';

/** Nested values are JSON text, which JSON.stringify writes with raw numbers as they were. */
function nestedText(value: unknown): FieldValue {
  // A CSV cell cannot hold an object; the JSON text keeps it whole for every output format.
  return JSON.stringify(value) ?? null;
}

function setField(fields: Fields, key: string, value: FieldValue): void {
  // Assigning `__proto__` would replace the prototype instead of adding a field.
  if (key === '__proto__')
    Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
  else fields[key] = value;
}

/** The fields of a parsed object, raw JSON numbers included. */
export function toFields(object: Readonly<Record<string, unknown>>): Fields {
  const fields: Fields = {};
  let texts: string[] | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (typeof value === 'object' && value !== null && isRawJson(value)) {
      setField(fields, key, value.rawJSON);
      texts ??= [];
      texts.push(key);
    } else if (value === null || typeof value !== 'object') setField(fields, key, value as FieldValue);
    else {
      setField(fields, key, nestedText(value));
      texts ??= [];
      texts.push(key);
    }
  }
  if (texts !== undefined) markNumberTexts(fields, texts);
  return fields;
}

/**
 * The fields of an object parsed by plain JSON.parse, or undefined when one of its numbers
 * (nested ones included) cannot be what its text said: parse it again keeping number text.
 */
export function exactFields(object: Readonly<Record<string, unknown>>): Fields | undefined {
  const fields: Fields = {};
  let texts: string[] | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    if (typeof value === 'number') {
      if (!numberExact(value)) return undefined;
      setField(fields, key, value);
    } else if (value === null || typeof value === 'string' || typeof value === 'boolean')
      setField(fields, key, value);
    else if (!numbersExact(value)) return undefined;
    else {
      setField(fields, key, nestedText(value));
      texts ??= [];
      texts.push(key);
    }
  }
  if (texts !== undefined) markNumberTexts(fields, texts);
  return fields;
}

/** Any UTF-16 surrogate code unit: a quick test before the exact one. */
const SURROGATE = /[\ud800-\udfff]/;
/** A surrogate without its other half (in `u` mode, a whole pair is one code point, not Cs). */
const LONE_SURROGATE = /\p{Cs}/u;

/** A key or text value that no output can carry as it is. */
export interface BadText {
  /** The key as the row has it. */
  readonly key: string;
  /** The key, escaped where it holds what is wrong, so that it can be written anywhere. */
  readonly field: string;
  readonly message: string;
}

/** Why `text` cannot be written as it is, or undefined. */
function textFault(text: string): string | undefined {
  const nul = text.indexOf('\0');
  if (nul !== -1)
    return `a NUL character (\\u0000) at character ${nul + 1}, where GeoPackage readers, databases and C tools take the text to end (in a CSV, the mark of a damaged file)`;
  if (!SURROGATE.test(text) || !LONE_SURROGATE.test(text)) return undefined;
  const unit = text.charCodeAt(text.search(LONE_SURROGATE));
  return `\\u${unit.toString(16)}, half of a UTF-16 surrogate pair without its other half: it is no character, and cannot be written as UTF-8`;
}

/**
 * The first key or text value holding what no output can carry: a lone UTF-16 surrogate (JSON's
 * `"\ud800"`), which UTF-8 output would write as U+FFFD, or a NUL (a damaged file's zero bytes,
 * JSON's `"\u0000"`), at which GeoPackage readers and C tools end the text. Nested values are JSON
 * text, in which JSON.stringify writes either as the escape it was.
 */
export function badText(fields: Fields, noun: string): BadText | undefined {
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    const inKey = textFault(key);
    const fault = inKey ?? (typeof value === 'string' ? textFault(value) : undefined);
    if (fault === undefined) continue;
    const field = JSON.stringify(key).slice(1, -1);
    const where = inKey !== undefined ? `${noun} name "${field}"` : `${noun} "${field}"`;
    return { key, field, message: `${where} holds ${fault}` };
  }
  return undefined;
}

/**
 * The fields of a row failed for `bad`, to keep with its issue: the others as they are, so that its
 * output record and its report line still say which row it is; a value that cannot be written
 * empty, a key that cannot be left out.
 */
export function withoutBadText(fields: Fields): Fields {
  const kept: Fields = {};
  for (const key of Object.keys(fields)) {
    if (textFault(key) !== undefined) continue;
    const value = fields[key] as FieldValue;
    setField(kept, key, typeof value === 'string' && textFault(value) !== undefined ? null : value);
  }
  // Numbers kept as written (and nested values) stay so: JSON outputs write them back as values.
  const texts = numberTextKeys(fields)?.filter((key) => typeof kept[key] === 'string');
  if (texts !== undefined && texts.length > 0) markNumberTexts(kept, texts);
  return kept;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

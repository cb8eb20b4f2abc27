/**
 * JSON values to row fields: scalars stay; nested values travel as their JSON text, and a number
 * kept as raw JSON (see _json-numbers.ts) becomes its text, both keys listed (src/number-texts.ts)
 * so that JSON outputs write them back as the values they were.
 */

import { isRawJson, markNumberTexts } from '../number-texts.js';
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

/** What a lone surrogate in a key or a text value makes of a row. */
export interface LoneSurrogate {
  /** The key, escaped where it holds the lone surrogate, so that it can be written anywhere. */
  readonly field: string;
  readonly message: string;
}

/**
 * The first key or text value holding a lone UTF-16 surrogate (JSON's `"\ud800"`): no character,
 * so UTF-8 output cannot hold it, and writing it would put U+FFFD into the data. Nested values are
 * JSON text, in which JSON.stringify writes it as the escape it was.
 */
export function loneSurrogate(fields: Fields, noun: string): LoneSurrogate | undefined {
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    const inKey = SURROGATE.test(key) && LONE_SURROGATE.test(key);
    if (!inKey && !(typeof value === 'string' && SURROGATE.test(value) && LONE_SURROGATE.test(value)))
      continue;
    const text = inKey ? key : (value as string);
    const unit = text.charCodeAt(text.search(LONE_SURROGATE));
    const escaped = `\\u${unit.toString(16)}`;
    const field = JSON.stringify(key).slice(1, -1);
    const where = inKey ? `${noun} name "${field}"` : `${noun} "${field}"`;
    return {
      field,
      message: `${where} holds ${escaped}, half of a UTF-16 surrogate pair without its other half: it is no character, and cannot be written as UTF-8`,
    };
  }
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** JSON values to row fields: scalars stay, nested values travel as their JSON text. */
import type { Fields, FieldValue } from '../types.js';

export function toFieldValue(value: unknown): FieldValue {
  if (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'number' ||
    typeof value === 'boolean'
  ) {
    return value;
  }
  // A CSV cell cannot hold an object; the JSON text keeps it whole for every output format.
  return JSON.stringify(value) ?? null;
}

export function toFields(object: Readonly<Record<string, unknown>>): Fields {
  const fields: Fields = {};
  for (const key of Object.keys(object)) {
    // Assigning `__proto__` would replace the prototype instead of adding a field.
    if (key === '__proto__')
      Object.defineProperty(fields, key, {
        value: toFieldValue(object[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else fields[key] = toFieldValue(object[key]);
  }
  return fields;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

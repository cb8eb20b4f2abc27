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
  const fields: Fields = Object.create(null);
  for (const key of Object.keys(object)) fields[key] = toFieldValue(object[key]);
  return fields;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

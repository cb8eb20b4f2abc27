/**
 * A row's field by name. Fields are plain objects (V8 keeps them fast), so a record without a
 * column named `constructor` or `toString` would show Object.prototype's function there, and an
 * output would write `function Object() { [native code] }` where the cell is empty.
 */
import type { Fields, FieldValue } from './types.js';

/** The row's own value under `name`; undefined when the record has none. */
export function fieldOf(fields: Readonly<Fields>, name: string): FieldValue | undefined {
  const value: unknown = fields[name];
  // A field holds a scalar or null: anything else came from the prototype. Cheaper than hasOwn.
  if (typeof value === 'function' || (typeof value === 'object' && value !== null)) return undefined;
  return value as FieldValue | undefined;
}

/** Whether the record has a field `name` of its own. */
export function hasField(fields: Readonly<Fields>, name: string): boolean {
  return Object.hasOwn(fields, name);
}

/**
 * The attribute columns of the GeoPackage feature table: their names, and the SQL type each one
 * ends up with.
 *
 * Typing rule: a column's type is what its values are in the GeoJSON output. INTEGER when every
 * value is a whole number, REAL when they are numbers, BOOLEAN when they are booleans, TEXT when
 * they are strings, mixed, or all empty. CSV input gives strings, so its columns stay TEXT (a
 * postcode keeps its leading zero); the numbers a job adds (coordinates, distances) are numeric.
 * The type is settled by the whole run, not by a sample: values are stored as they come, and a
 * column that turns out mixed has its earlier numbers rewritten as the text JSON shows for them.
 */
import type { SQLInputValue } from 'node:sqlite';

export type ColumnKind = 'none' | 'boolean' | 'integer' | 'real' | 'text';

export interface GpkgLayout {
  /** The integer primary key: `fid`, or `fid_1`... when an attribute already has that name. */
  readonly fid: string;
  /** The geometry column: `geom`, or `geom_1`... likewise. */
  readonly geom: string;
  /** Keys of the output records, in column order. */
  readonly keys: readonly string[];
  /** The column name of each key: unique regardless of case (as SQLite compares names), never empty. */
  readonly names: readonly string[];
}

export function gpkgLayout(keys: readonly string[], warn: (message: string) => void): GpkgLayout {
  // A made-up name is never one a key has elsewhere: with keys `Name`, `name` and `name_1`, the
  // second is `name_2`, and `name_1` keeps its own name.
  const written = new Set(keys.map((key) => key.toLowerCase()));
  const used = new Set<string>();
  const claim = (base: string, own?: string): string => {
    const mine = own?.toLowerCase();
    const taken = (name: string) => used.has(name) || (name !== mine && written.has(name));
    let name = base;
    for (let n = 1; taken(name.toLowerCase()); n++) name = `${base}_${n}`;
    used.add(name.toLowerCase());
    return name;
  };
  const names = keys.map((key, i) => {
    const name = key.trim() === '' ? claim(`field_${i + 1}`) : claim(key, key);
    if (name !== key)
      warn(
        `Column ${JSON.stringify(key)} is named ${JSON.stringify(name)} in the GeoPackage (names must differ regardless of case)`,
      );
    return name;
  });
  return { fid: claim('fid'), geom: claim('geom'), keys, names };
}

export function valueKind(value: unknown): ColumnKind {
  switch (typeof value) {
    case 'string':
      return 'text';
    case 'boolean':
      return 'boolean';
    case 'number':
      if (!Number.isFinite(value)) return 'none';
      return Number.isSafeInteger(value) ? 'integer' : 'real';
    case 'undefined':
      return 'none';
    default:
      return value === null ? 'none' : 'text';
  }
}

export function joinKinds(a: ColumnKind, b: ColumnKind): ColumnKind {
  if (a === b || b === 'none') return a;
  if (a === 'none') return b;
  if ((a === 'integer' && b === 'real') || (a === 'real' && b === 'integer')) return 'real';
  return 'text';
}

/**
 * The value as bound into a column of `kind` (the column's kind with this value joined in). Whole
 * numbers go in as SQLite integers; a REAL column reads them back as reals once declared REAL.
 */
export function bindValue(value: unknown, kind: ColumnKind): SQLInputValue {
  if (valueKind(value) === 'none') return null;
  switch (kind) {
    case 'text':
      return typeof value === 'string' ? value : jsonText(value);
    case 'boolean':
      return value === true ? 1n : 0n;
    case 'integer':
      return BigInt(value as number);
    default:
      return value as number;
  }
}

/** How a value stored under `kind` reads as text, the way the GeoJSON output shows it. */
export function storedAsText(stored: unknown, kind: ColumnKind): string | null {
  if (stored === null || stored === undefined) return null;
  if (kind === 'boolean') return Number(stored) === 0 ? 'false' : 'true';
  return String(Number(stored));
}

export function declaredType(kind: ColumnKind): string {
  switch (kind) {
    case 'boolean':
      return 'BOOLEAN';
    case 'integer':
      return 'INTEGER';
    case 'real':
      return 'REAL';
    default:
      return 'TEXT';
  }
}

function jsonText(value: unknown): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

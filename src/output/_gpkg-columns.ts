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
 *
 * An input number kept as its text (raw JSON, see _number-texts.ts) is typed by what the text
 * holds: a whole number that fits 64 bits is an INTEGER, exactly; one that a double holds as
 * written (`1.50`, `-0`, `1E3`) is that number; any other (more digits than a double keeps,
 * `1e400`) is TEXT, so that nothing is rounded away.
 */
import type { SQLInputValue } from 'node:sqlite';
import { isRawJson } from '../number-texts.js';
import { ERROR_COLUMN, STATUS_COLUMN } from './_columns.js';

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

/** The columns geobatch adds to every output row. */
const OWN: ReadonlySet<string> = new Set([STATUS_COLUMN, ERROR_COLUMN]);

/**
 * `first`: the keys that claim their names before the others (geobatch's status columns always,
 * and the job's columns), so that where an input column and one geobatch writes are one name to
 * SQLite, the input's is renamed and QGIS shows geobatch's value under the name the job gives it.
 */
export function gpkgLayout(
  keys: readonly string[],
  warn: (message: string) => void,
  first: ReadonlySet<string> = OWN,
): GpkgLayout {
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
  // geobatch's own status columns (and the job's) claim their names first: an input's
  // `Geobatch_Status` (or `Elevation_M`), a name SQLite takes for the same, is the one renamed, so
  // that a QGIS filter on geobatch_status reads geobatch's and not the input's.
  const claimsFirst = new Set([...OWN, ...first]);
  const order = keys.map((_, i) => i);
  order.sort(
    (a, b) =>
      Number(!claimsFirst.has(keys[a] as string)) - Number(!claimsFirst.has(keys[b] as string)) || a - b,
  );
  const names = new Array<string>(keys.length);
  for (const i of order) {
    const key = keys[i] as string;
    const unnamed = key.trim() === '';
    const name = unnamed ? claim(`field_${i + 1}`) : claim(key, key);
    if (name !== key)
      warn(
        `Column ${JSON.stringify(key)} is named ${JSON.stringify(name)} in the GeoPackage (${unnamed ? 'a column needs a name' : 'names must differ regardless of case'})`,
      );
    names[i] = name;
  }
  return { fid: claim('fid'), geom: claim('geom'), keys, names };
}

export function valueKind(value: unknown): ColumnKind {
  switch (typeof value) {
    case 'object':
      if (value !== null && isRawJson(value)) return textKind(value.rawJSON);
      return value === null ? 'none' : 'text';
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
      return 'text';
  }
}

const INTEGER = /^-?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The kind of a number written as `text` (a JSON number a double does not repeat as written). */
function textKind(text: string): ColumnKind {
  if (INTEGER.test(text)) {
    const n = BigInt(text);
    if (n >= INT64_MIN && n <= INT64_MAX) return 'integer';
  }
  const n = Number(text);
  if (!Number.isFinite(n)) return 'text';
  if (n === 0 ? decimal(text) !== '0' : decimal(text) !== decimal(String(n))) return 'text';
  return valueKind(n);
}

/** A decimal number's digits and exponent without leading or trailing zeros (`1.50` -> `15e-1`). */
function decimal(text: string): string | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const fraction = m[3] ?? '';
  const digits = `${m[2]}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const trimmed = digits.replace(/0+$/, '');
  const exponent = Number(m[4] ?? 0) - fraction.length + digits.length - trimmed.length;
  return `${m[1]}${trimmed}e${exponent}`;
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
  if (typeof value === 'object' && value !== null && isRawJson(value)) return bindText(value.rawJSON, kind);
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

/** A number's text bound into a column of `kind`: exactly, as an integer or as the text. */
function bindText(text: string, kind: ColumnKind): SQLInputValue {
  if (kind === 'text') return text;
  if (kind === 'integer') return INTEGER.test(text) ? BigInt(text) : BigInt(Number(text));
  return Number(text);
}

/** How a value stored under `kind` reads as text, the way the GeoJSON output shows it. */
export function storedAsText(stored: unknown, kind: ColumnKind): string | null {
  if (stored === null || stored === undefined) return null;
  if (kind === 'boolean') return Number(stored) === 0 ? 'false' : 'true';
  // Integers come as BigInts (useBigIntArguments), so that one past 2^53 keeps its digits.
  return typeof stored === 'bigint' ? String(stored) : String(Number(stored));
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

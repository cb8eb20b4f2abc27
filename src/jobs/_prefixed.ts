/**
 * A job's output columns: suffixes fixed by the kind, a prefix chosen by the job file, names made
 * once per job and filled per row.
 *
 * Why not an object literal with computed keys (`{ [name]: x, ... }`): V8 builds one on its slow
 * path on every row (about 0.9-1.3 µs for ten columns on Node 24, more than reading and writing
 * the CSV line), and the template strings are built again each time. A literal with fixed keys
 * copied under names made once costs about 0.2 µs and gives every row's object the same shape.
 */
import type { Fields, FieldValue } from '../types.js';

export interface PrefixedColumns<S extends string> {
  /** The column names, in output order. */
  readonly names: readonly string[];
  /** A row's columns from its values by suffix, in output order. */
  fields(values: { readonly [K in S]: FieldValue }): Fields;
}

export function prefixedColumns<const S extends string>(
  prefix: string,
  suffixes: readonly S[],
): PrefixedColumns<S> {
  const names = suffixes.map((suffix) => `${prefix}${suffix}`);
  return {
    names,
    fields(values) {
      const out: Fields = {};
      for (let i = 0; i < suffixes.length; i++) {
        out[names[i] as string] = values[suffixes[i] as S];
      }
      return out;
    },
  };
}

/** The same per prefix, made once per process: for columns shared by kinds (geocode's match). */
export function prefixedCache<const S extends string>(
  suffixes: readonly S[],
): (prefix: string) => PrefixedColumns<S> {
  const made = new Map<string, PrefixedColumns<S>>();
  return (prefix) => {
    let columns = made.get(prefix);
    if (columns === undefined) {
      columns = prefixedColumns(prefix, suffixes);
      made.set(prefix, columns);
    }
    return columns;
  };
}

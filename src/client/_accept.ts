/**
 * A fast yes for answers that a zod schema accepts as they are.
 *
 * zod's parse builds a new copy of every object and array it checks: on a geocoding run that is
 * about 3.7 KB allocated per answer, 12% of everything the run allocates, all of it garbage the
 * moment the answer is read. Almost every answer has the expected shape, and for those the copy
 * is the input itself, field by field. `accepter(schema)` compiles the schema once into a
 * predicate that only looks: when it says yes, zod would have accepted the value and returned a
 * copy equal to it, so the value can be used as zod's output. When it says no, nothing is decided:
 * the caller asks zod, which accepts what the predicate was too strict for and names the field
 * of a real failure, exactly as before.
 *
 * Only schema parts whose output is their input are compiled (strings, finite numbers, booleans,
 * literals, enums, unknown, nullable, optional, arrays, tuples, unions of primitives, objects
 * that keep or refuse unknown keys) plus two that change it in known cases, which the predicate
 * then leaves to zod: a default (its input is missing) and an object that strips unknown keys
 * (one is there). Anything else (refinements, transforms, pipes...) makes the whole schema
 * uncompiled: `accepter` returns undefined and zod checks every answer.
 */
import type { z } from 'zod';

export type Accept = (value: unknown) => boolean;

/** Anything beyond the shape (refine, min, int...) is a check zod runs; then zod decides. */
interface Def {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly coerce?: boolean;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly items?: readonly z.ZodType[];
  readonly rest?: z.ZodType | null;
  readonly options?: readonly z.ZodType[];
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly catchall?: z.ZodType;
  readonly values?: readonly unknown[];
  readonly entries?: Readonly<Record<string, unknown>>;
}

const compiled = new WeakMap<z.ZodType, Accept | null>();

/** The predicate for `schema`, or undefined when a part of it is not one that can be compiled. */
export function accepter(schema: z.ZodType): Accept | undefined {
  let accept = compiled.get(schema);
  if (accept === undefined) {
    accept = compile(schema) ?? null;
    compiled.set(schema, accept);
  }
  return accept ?? undefined;
}

const PRIMITIVES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'literal', 'enum', 'null']);

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function compile(schema: z.ZodType): Accept | undefined {
  const def = defOf(schema);
  if ((def.checks !== undefined && def.checks.length > 0) || def.coerce === true) return undefined;
  switch (def.type) {
    case 'string':
      return (v) => typeof v === 'string';
    case 'number':
      return (v) => typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'null':
      return (v) => v === null;
    case 'unknown':
    case 'any':
      return () => true;
    case 'literal': {
      const values = def.values ?? [];
      return (v) => values.includes(v) && !Number.isNaN(v);
    }
    case 'enum': {
      const values = Object.values(def.entries ?? {});
      return (v) => values.includes(v);
    }
    case 'nullable':
      return wrap(def.innerType, (inner) => (v) => v === null || inner(v));
    case 'optional':
      return wrap(def.innerType, (inner) => (v) => v === undefined || inner(v));
    case 'default':
      // A missing value becomes the default: an output that is not the input, so zod's to make.
      return wrap(def.innerType, (inner) => (v) => v !== undefined && inner(v));
    case 'array':
      return wrap(def.element, (element) => (v) => {
        if (!Array.isArray(v)) return false;
        for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
        return true;
      });
    case 'tuple':
      return tuple(def);
    case 'union':
      return union(def);
    case 'object':
      return object(def);
    default:
      return undefined;
  }
}

function wrap(inner: z.ZodType | undefined, make: (inner: Accept) => Accept): Accept | undefined {
  const accept = inner === undefined ? undefined : compile(inner);
  return accept === undefined ? undefined : make(accept);
}

function tuple(def: Def): Accept | undefined {
  const items = (def.items ?? []).map((item) =>
    defOf(item).type === 'optional' ? undefined : compile(item),
  );
  if (items.some((item) => item === undefined)) return undefined;
  const fixed = items as Accept[];
  const rest = def.rest == null ? null : compile(def.rest);
  if (rest === undefined) return undefined;
  return (v) => {
    if (!Array.isArray(v) || v.length < fixed.length) return false;
    if (rest === null && v.length !== fixed.length) return false;
    for (let i = 0; i < fixed.length; i++) if (!(fixed[i] as Accept)(v[i])) return false;
    for (let i = fixed.length; i < v.length; i++) if (!(rest as Accept)(v[i])) return false;
    return true;
  };
}

/**
 * zod's output is that of the first option that accepts. Options that are all primitives output
 * their input whichever accepts, so any option saying yes is enough; other unions are zod's.
 */
function union(def: Def): Accept | undefined {
  const options = def.options ?? [];
  if (!options.every((option) => PRIMITIVES.has(defOf(option).type))) return undefined;
  const accepts = options.map(compile);
  if (accepts.some((accept) => accept === undefined)) return undefined;
  const list = accepts as Accept[];
  return (v) => list.some((accept) => accept(v));
}

function object(def: Def): Accept | undefined {
  const shape = def.shape ?? {};
  const keys = Object.keys(shape);
  const accepts: Accept[] = [];
  for (const key of keys) {
    const accept = compile(shape[key] as z.ZodType);
    if (accept === undefined) return undefined;
    accepts.push(accept);
  }
  const catchall = def.catchall === undefined ? 'strip' : defOf(def.catchall).type;
  // Any other catchall (a schema for the unknown keys' values) is zod's to check.
  if (catchall !== 'strip' && catchall !== 'unknown' && catchall !== 'never') return undefined;
  const known = new Set(keys);
  return (v) => {
    // zod takes any non-array object; a plain one is what JSON.parse makes, and what its copy is.
    if (typeof v !== 'object' || v === null || Object.getPrototypeOf(v) !== Object.prototype) return false;
    // An own "__proto__" (JSON.parse makes one) is left out of zod's copy.
    if (Object.hasOwn(v, '__proto__')) return false;
    const record = v as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++)
      if (!(accepts[i] as Accept)(record[keys[i] as string])) return false;
    // Unknown keys are stripped or refused by these two: either way not the input as it is.
    if (catchall !== 'unknown') for (const key in record) if (!known.has(key)) return false;
    return true;
  };
}

/**
 * "Did you mean" for job-file errors: the keys a schema knows at a path, the candidates that
 * nearest-word.ts picks the misspelt key's nearest from.
 */
import type { z } from 'zod';

export { nearest } from '../nearest-word.js';

/** Every object key a schema knows, at any depth (the candidates for an unknown key). */
export function schemaKeys(schema: z.ZodType): Set<string> {
  const keys = new Set<string>();
  const seen = new Set<unknown>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (def === undefined) return;
    if (def.type === 'object') {
      const shape = def.shape as Record<string, unknown>;
      for (const [key, value] of Object.entries(shape)) {
        keys.add(key);
        walk(value);
      }
    }
    for (const field of ['innerType', 'element', 'valueType', 'in', 'out', 'left', 'right']) walk(def[field]);
    if (Array.isArray(def.options)) for (const option of def.options) walk(option);
    if (Array.isArray(def.items)) for (const item of def.items) walk(item);
  };
  walk(schema);
  return keys;
}

/**
 * The keys the object at `path` of `document` may have, by the schema: a discriminated union is
 * followed into the branch the document names (`job: geocode`), wrappers (optional, default,
 * pipe, lazy) are looked through. Undefined when no single object schema is found there.
 */
export function keysAt(
  schema: z.ZodType,
  document: unknown,
  path: readonly PropertyKey[],
): string[] | undefined {
  let node: unknown = schema;
  let value: unknown = document;
  let depth = 0;
  // Each turn either unwraps a schema or steps one key down the path; a schema graph is finite, but
  // a lazy one may loop, so the turns are bounded.
  for (let turns = 0; turns < 200; turns++) {
    const def = (node as { _zod?: { def?: Record<string, unknown> } } | null)?._zod?.def;
    if (def === undefined) return undefined;
    switch (def.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'nonoptional':
      case 'readonly':
      case 'catch':
        node = def.innerType;
        continue;
      case 'pipe':
        node = def.in;
        continue;
      case 'lazy':
        node = (def.getter as () => unknown)();
        continue;
      case 'union': {
        const chosen = branchOf(def, value);
        if (chosen === undefined) return undefined;
        node = chosen;
        continue;
      }
      case 'object': {
        const shape = def.shape as Record<string, unknown>;
        if (depth === path.length) return Object.keys(shape);
        const key = path[depth++] as PropertyKey;
        if (typeof key !== 'string' || !(key in shape)) return undefined;
        node = shape[key];
        value = child(value, key);
        continue;
      }
      case 'array': {
        if (depth === path.length) return undefined;
        node = def.element;
        value = child(value, path[depth++] as PropertyKey);
        continue;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

function child(value: unknown, key: PropertyKey): unknown {
  return value !== null && typeof value === 'object'
    ? (value as Record<PropertyKey, unknown>)[key]
    : undefined;
}

/** The branch of a discriminated union whose literal matches the document's value; else undefined. */
function branchOf(def: Record<string, unknown>, value: unknown): unknown {
  const discriminator = def.discriminator;
  if (typeof discriminator !== 'string' || !Array.isArray(def.options)) return undefined;
  const given = child(value, discriminator);
  return def.options.find((option) => {
    const shape = (option as { _zod?: { def?: { shape?: Record<string, unknown> } } })._zod?.def?.shape;
    const literal = (shape?.[discriminator] as { _zod?: { def?: { values?: unknown[] } } } | undefined)?._zod
      ?.def;
    return literal?.values?.includes(given) === true;
  });
}

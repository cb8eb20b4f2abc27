/**
 * Checking answers at the boundary: a zod schema, or a hand-written normaliser, turns a JSON value
 * into a typed result or a ResponseError whose `context.path` names the field that did not fit
 * (`AddressItems[3].BasicData.Identifiers.ProviderForeignKey`).
 */
import type { z } from 'zod';
import { ResponseError } from '../errors.js';
import { accepter } from './_accept.js';

type PathSegment = PropertyKey;

/** `['a', 3, 'b']` -> `a[3].b`; the form a user can paste into jq or a debugger. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/** A short, secret-free description of what was found, for `context.received`. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string')
    return value.length > 40 ? `a string of ${value.length} chars` : JSON.stringify(value);
  return String(value);
}

/** The value at `path` inside `root`, for error reports. */
function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** Throws the ResponseError for a field at `path` that is not what `expected` says. */
export function invalid(
  what: string,
  path: readonly PathSegment[],
  expected: string,
  received: unknown,
): never {
  const where = formatPath(path);
  throw new ResponseError(
    `the ${what} answer does not have the expected shape at ${where === '' ? 'its top level' : where}: expected ${expected}, got ${describe(received)}`,
    { path: where, expected, received: describe(received) },
  );
}

/**
 * Parses `value` with `schema`, or throws a ResponseError naming the first field that failed;
 * `at` is where `value` sits inside the whole answer.
 */
export function check<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
  at: readonly PathSegment[] = [],
): z.output<S> {
  // The usual answer has the expected shape, and zod's copy of it would equal it (_accept.ts).
  if (accepter(schema)?.(value) === true) return value as z.output<S>;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const expected = issue === undefined ? 'a valid answer' : expectedOf(issue);
  return invalid(what, [...at, ...path], expected, valueAt(value, path));
}

function expectedOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return String(issue.expected);
  if (issue.code === 'invalid_value') return issue.values.map((v) => JSON.stringify(v)).join(' or ');
  // zod's message for the rest ("Too small: expected string to have >=1 characters") is generic.
  return issue.message;
}

/** Reads a number that may arrive as a numeric string (the service sends many numbers as strings). */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

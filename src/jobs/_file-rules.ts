/**
 * Rules a job's mapping and options must keep, each written once as a function that returns the
 * broken rule as a FileIssue: a kind's `checkFile` reports it when the job file is loaded (naming
 * the file and the path), and its `create` refuses a job built in code with `refuse`, so that a
 * job file and a library caller meet the same rule in the same words.
 */
import type { z } from 'zod';
import { ConfigError } from '../errors.js';

type MappingLike = Readonly<Record<string, unknown>>;

/** Every one of `fields` must be mapped (a column or a constant): without it no row can be answered. */
export function requireEach(
  mapping: MappingLike,
  fields: readonly string[],
  what: string,
): FileIssue | undefined {
  const missing = fields.find((field) => mapping[field] === undefined);
  if (missing === undefined) return undefined;
  return {
    path: `mapping.${missing}`,
    expected: `expected a column for ${missing} (${what}), got none`,
    received: 'nothing',
    hint: `map ${missing} to the column that holds it (${missing}: <column>)`,
  };
}

/** At least one of `fields` must be mapped; the issue names the first. */
export function requireOne(
  mapping: MappingLike,
  fields: readonly [string, ...string[]],
  what: string,
): FileIssue | undefined {
  if (fields.some((field) => mapping[field] !== undefined)) return undefined;
  const [first] = fields;
  const names = `${fields.slice(0, -1).join(', ')} or ${fields.at(-1)}`;
  return {
    path: `mapping.${first}`,
    expected: `expected a column for ${names} (${what}), got none of them`,
    received: 'nothing',
    hint: `map one of them to the column that holds it (${first}: <column>), or give a constant (${first}: { value: ... })`,
  };
}

/**
 * Where a key is in a job file, as a user reads it: an array's item by its index in brackets
 * (`steps[1].options.overlap`, `outputs[0].format`), never dotted (`steps.1...`). Every message
 * and `context.path` about a job file writes its paths this way; empty for no segment.
 */
export function keyPath(segments: readonly PropertyKey[]): string {
  let text = '';
  for (const segment of segments)
    text += typeof segment === 'number' ? `[${segment}]` : `${text === '' ? '' : '.'}${String(segment)}`;
  return text;
}

/** A rule across a job file's mapping and options broken: where, what was expected, what to do. */
export interface FileIssue {
  /** Within the job or step (`options.overlap`); a step's place goes in front (`steps[1].`). */
  readonly path: string;
  /** The message after the path: what was expected and, where there is one, what came. */
  readonly expected: string;
  /** What the file gives at the path, for the error's context. */
  readonly received?: string;
  readonly hint?: string;
}

/**
 * Every option the kind's schema requires must be given, also when the whole `options:` block is
 * left out. The issue names the first missing key and says what it is (the key's `.describe()`).
 * `options` that are not an object are left to the schema to refuse.
 */
export function requireOptions(schema: z.ZodObject, options: unknown): FileIssue | undefined {
  if (options !== undefined && (typeof options !== 'object' || options === null)) return undefined;
  const given = (options ?? {}) as Readonly<Record<string, unknown>>;
  const shape = schema.shape as Readonly<Record<string, z.ZodType>>;
  const missing = Object.entries(shape).filter(
    ([key, value]) => given[key] === undefined && !value.safeParse(undefined).success,
  );
  const [first] = missing;
  if (first === undefined) return undefined;
  const [key, value] = first;
  return {
    path: `options.${key}`,
    expected: `expected ${value.description ?? 'a value'} (required), got none`,
    received: 'nothing',
    hint: `add ${missing.map(([name]) => `options.${name}`).join(' and ')}`,
  };
}

/**
 * A kind that has no default column to read (`mappingRequired`) needs a mapping that names at least
 * one field. A missing `mapping:` block is read as `{}`, so this speaks only when the kind's own
 * rules, which name the field it cannot do without, did not: it says what the kind reads.
 */
export function requireMapping(
  kind: {
    readonly name: string;
    readonly mappingRequired: boolean;
    readonly docs: { readonly mapping: string };
  },
  mapping: MappingLike,
): FileIssue | undefined {
  if (!kind.mappingRequired || Object.values(mapping).some((source) => source !== undefined))
    return undefined;
  return {
    path: 'mapping',
    expected: `expected the columns the ${kind.name} job reads (${kind.docs.mapping}), got none`,
    received: 'nothing',
    hint: 'add a mapping: block naming the columns (field: <column>)',
  };
}

/** The first issue of several rules, in order. */
export function firstIssue(...issues: readonly (FileIssue | undefined)[]): FileIssue | undefined {
  return issues.find((issue) => issue !== undefined);
}

/** For `create`: a job built in code that breaks a rule is refused as its job file would be. */
export function refuse(kind: string, issue: FileIssue | undefined): void {
  if (issue !== undefined) throw refusal(kind, issue);
}

/** The error `refuse` throws, for a caller that needs the type to narrow after it. */
export function refusal(kind: string, issue: FileIssue): ConfigError {
  return new ConfigError(`${kind}: ${issue.path}: ${issue.expected}`, { ...issue });
}

/**
 * Rules a job's mapping and options must keep, each written once as a function that returns the
 * broken rule as a FileIssue: a kind's `checkFile` reports it when the job file is loaded (naming
 * the file and the path), and its `create` refuses a job built in code with `refuse`, so that a
 * job file and a library caller meet the same rule in the same words.
 */
import { ConfigError } from '../errors.js';
import type { FileIssue } from './_kind.js';

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

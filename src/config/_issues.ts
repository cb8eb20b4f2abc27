/**
 * Turns zod's issues into one ConfigError that names the file, the path inside it, what was
 * expected and what was found: "jobs/x.yaml: options.batchSize: expected at most 500, got 600".
 */
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { nearest } from './_suggest.js';
import { type WrittenNumbers, writtenPath } from './_written.js';

type Issue = z.core.$ZodIssue;

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let node = document;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** A value as the file writes it: a number YAML read (`0100` as 100) as its source. */
function show(value: unknown, source?: string): string {
  if (value === undefined) return 'nothing';
  const text = typeof value === 'number' && source !== undefined ? source : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function pathText(path: readonly PropertyKey[], written: WrittenNumbers | undefined): string {
  return path.length === 0 ? '(top level)' : writtenPath(path, written);
}

/** The keys an object branch of a union did not know, or undefined for a branch of another type. */
function unknownKeys(branch: readonly Issue[]): readonly string[] | undefined {
  if (branch.some((inner) => inner.path.length === 0 && inner.code !== 'unrecognized_keys')) return undefined;
  return branch.flatMap((inner) =>
    inner.code === 'unrecognized_keys' && inner.path.length === 0 ? inner.keys : [],
  );
}

/**
 * The most useful issue of a union is the one that got furthest into the document, unless the
 * value holds a key that no object branch knows: `{ colum: plz }` is a misspelt key, which says
 * more than the `column` it then lacks.
 */
function deepest(issue: Issue): Issue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: Issue = issue;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const candidate = deepest({ ...inner, path: [...issue.path, ...inner.path] } as Issue);
      if (candidate.path.length > best.path.length) best = candidate;
    }
  }
  const objects = issue.errors.map(unknownKeys).filter((keys) => keys !== undefined);
  const [first = []] = objects;
  const misspelt = first.filter((key) => objects.every((keys) => keys.includes(key)));
  if (objects.length === 0 || misspelt.length === 0) return best;
  return { code: 'unrecognized_keys', keys: misspelt, path: issue.path, message: '', input: {} } as Issue;
}

/**
 * What a union wants, branch by branch: "expected one of "GEODECIMAL_POINT", ... or object", not
 * zod's "Invalid input". A branch that failed deeper than the value itself says no more than that.
 */
function unionExpectation(issue: Extract<Issue, { code: 'invalid_union' }>): string {
  // A union that says what it wants in its own words (a mapping's field source) is taken at them.
  if (!issue.message.startsWith('Invalid input')) return issue.message;
  const parts = new Set<string>();
  for (const branch of issue.errors) {
    const first = branch[0];
    if (first === undefined || first.path.length > 0) return issue.message.replace(/^Invalid input: /, '');
    if (first.code === 'invalid_type') parts.add(first.expected);
    else if (first.code === 'invalid_value') {
      const values = first.values.map((v) => JSON.stringify(v));
      parts.add(values.length === 1 ? (values[0] as string) : `one of ${values.join(', ')}`);
    } else if (first.code === 'too_small' || first.code === 'too_big')
      parts.add(expectation(first, new Set(), undefined).replace(/^expected /, 'a number '));
    else return issue.message.replace(/^Invalid input: /, '');
  }
  return parts.size === 0 ? issue.message : `expected ${[...parts].join(' or ')}`;
}

/** ` (did you mean "x"?)` when one of `candidates` is near `given`, else nothing. */
function meant(
  given: unknown,
  candidates: Iterable<string>,
  quote = (w: string) => JSON.stringify(w),
): string {
  if (typeof given !== 'string') return '';
  const near = nearest(given, candidates);
  return near === undefined ? '' : ` (did you mean ${quote(near)}?)`;
}

/** The words a value must be one of, when the issue names them (an enum, the job kind). */
function wordsOf(issue: Issue): string[] {
  if (issue.code === 'invalid_union' && !Array.isArray((issue as { options?: unknown[] }).options))
    return issue.errors.flatMap((branch) => (branch[0] === undefined ? [] : wordsOf(branch[0])));
  const values = issue.code === 'invalid_value' ? issue.values : (issue as { options?: unknown[] }).options;
  return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
}

/** The keys of one step: at a file's top level only in a job of one kind. */
const STEP_KEYS: ReadonlySet<string> = new Set(['job', 'name', 'mapping', 'options']);

/** Keys listed after an unknown one that is not a near miss; more are left to the README. */
const LISTED_KEYS = 24;

/**
 * "unknown key `stret` (did you mean `street`?)", nearest among the keys of that object when they
 * are known, else among every key of the schema; without a near miss, the keys that object takes.
 */
function unknownKeysText(
  keys: readonly string[],
  here: readonly string[] | undefined,
  known: ReadonlySet<string>,
): string {
  const candidates = here ?? known;
  const shown = keys.map((k) => `\`${k}\`${meant(k, candidates, (w) => `\`${w}\``)}`);
  const text = `unknown key${keys.length > 1 ? 's' : ''} ${shown.join(', ')}`;
  // A file of steps with a step's key at the top (`job:` beside `steps:`): say where it goes.
  const stepKeys = keys.filter((k) => STEP_KEYS.has(k));
  if (here?.includes('steps') === true && !here.includes('job') && stepKeys.length > 0)
    return `${text}: in a job file of steps, ${stepKeys.map((k) => `\`${k}\``).join(' and ')} belong${stepKeys.length === 1 ? 's' : ''} in each step (\`steps: [{ job: ..., mapping: ... }]\`), or leave \`steps:\` out for a job of one kind`;
  const missed = keys.some((k) => nearest(k, candidates) === undefined);
  if (here === undefined || here.length === 0 || !missed) return text;
  const listed = here.slice(0, LISTED_KEYS).map((k) => `\`${k}\``);
  const more =
    here.length > LISTED_KEYS ? ` and ${here.length - LISTED_KEYS} more (README, job file reference)` : '';
  return `${text}; known here: ${listed.join(', ')}${more}`;
}

function expectation(
  issue: Issue,
  known: ReadonlySet<string>,
  keysHere: ((path: readonly PropertyKey[]) => readonly string[] | undefined) | undefined,
  written?: WrittenNumbers,
): string {
  switch (issue.code) {
    case 'invalid_type':
      // zod's `int` is a schema's word: a job file's author reads "a whole number" (1.5 came).
      return `expected ${issue.expected === 'int' ? 'a whole number' : issue.expected}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union': {
      // A discriminated union (the job kind) names its options; zod's message quotes them its way.
      const options = (issue as { options?: unknown[] }).options;
      if (!Array.isArray(options)) return unionExpectation(issue);
      return `expected one of ${wordsOf(issue).join(', ')}`;
    }
    case 'unrecognized_keys': {
      // A key YAML read as a number (`01067:`) as the file writes it, not as '1067'.
      const keys = issue.keys.map((key) => written?.key([...issue.path, key]) ?? key);
      return unknownKeysText(keys, keysHere?.(issue.path), known);
    }
    case 'too_small':
      // A path or a column named as "": "expected at least 1" did not say 1 of what.
      if (issue.origin === 'string')
        return Number(issue.minimum) === 1
          ? 'expected a non-empty string'
          : `expected a string of at least ${String(issue.minimum)} characters`;
      return `expected ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}${issue.origin === 'array' ? ' items' : ''}`;
    case 'too_big':
      return issue.message.startsWith('Too big')
        ? `expected at most ${String(issue.maximum)}`
        : issue.message;
    default:
      return issue.message.replace(/^Invalid input: /, '');
  }
}

/**
 * `known`: every key the schema knows, for "did you mean" on an unknown key; `keysHere`: the keys
 * of the object at a path of the document, to suggest from and to list (_suggest.ts, keysAt);
 * `written`: the numbers as the file writes them, keys and values, which the message quotes;
 * `from`: ` (from ${VAR})` for a path whose value the environment gave (fromVariables).
 */
export function toConfigError(
  file: string,
  document: unknown,
  issues: readonly Issue[],
  known: ReadonlySet<string> = new Set(),
  keysHere?: (path: readonly PropertyKey[]) => readonly string[] | undefined,
  written?: WrittenNumbers,
  from: (path: readonly PropertyKey[]) => string = () => '',
): ConfigError {
  const lines = issues.map((raw) => {
    const issue = deepest(raw);
    const given = valueAt(document, issue.path);
    const shown = show(given, written?.(issue.path));
    const got = issue.code === 'unrecognized_keys' ? '' : `, got ${shown}${meant(given, wordsOf(issue))}`;
    return {
      path: pathText(issue.path, written),
      from: from(issue.path),
      text: `${expectation(issue, known, keysHere, written)}${got}`,
    };
  });
  const first = lines[0] ?? { path: '(top level)', text: 'invalid' };
  const message = lines.map((line) => `${file}: ${line.path}${line.from}: ${line.text}`).join('\n');
  return new ConfigError(message, { file, path: first.path, expected: first.text });
}

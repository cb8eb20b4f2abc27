/**
 * `${NAME}` interpolation from the environment. Secrets live only in the environment; a job file
 * names them and never holds them.
 */
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { keyPath } from '../jobs/_file-rules.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
const WHOLE_REFERENCE = /^\s*\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}\s*$/;
/** What YAML reads as a decimal number; `0x10`, `1_000`, `.inf` and blanks are not plain numbers. */
const PLAIN_NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

export type Env = Readonly<Record<string, string | undefined>>;

/** How one string of the file was made from the environment. */
export interface Substitution {
  /** The string as the file writes it, e.g. `${BS:-10}`. */
  readonly written: string;
  /** Each variable it names, in order, with its value (undefined when unset). */
  readonly variables: readonly { readonly name: string; readonly value: string | undefined }[];
}

export interface Interpolated {
  readonly document: unknown;
  /** The substitution that made the string at `path`, or undefined for a string written as it is. */
  readonly substitutionAt: (path: readonly PropertyKey[]) => Substitution | undefined;
  /** The same, by the path as messages write it (`steps[1].output`, keyPath). */
  readonly substitutionNamed: (path: string) => Substitution | undefined;
}

/**
 * Where a substituted value came from, for a message that names its key: ` (from ${MY_URL})`, or
 * ` (from the default of ${MY_URL})` when the variable was unset. Names only, never values: the
 * key's value is quoted, or not, by the message itself.
 */
export function fromVariables(substitution: Substitution | undefined): string {
  const names = variablesNamed(substitution);
  return names === undefined ? '' : ` (from ${names})`;
}

/** The variables of a substitution as fromVariables names them, or undefined for none. */
export function variablesNamed(substitution: Substitution | undefined): string | undefined {
  if (substitution === undefined) return undefined;
  const names = substitution.variables.map(({ name, value }) =>
    value === undefined || value === '' ? `the default of \${${name}}` : `\${${name}}`,
  );
  return names.join(' and ');
}

/** True when the whole string is one `${NAME}` reference (how a credential must be written). */
export function isEnvReference(value: string): boolean {
  return WHOLE_REFERENCE.test(value);
}

/** True when the string is one `${NAME:-default}` reference: a default is text written into the file. */
export function hasDefault(value: string): boolean {
  return WHOLE_REFERENCE.exec(value)?.[2] !== undefined;
}

/** The variable a value still names when its `${VAR}` was unset (see `interpolate`), else undefined. */
export function unsetVariable(value: string): string | undefined {
  return WHOLE_REFERENCE.exec(value)?.[1];
}

/** A key's place in the document: a name, or an array's index as a number. */
type KeyPath = readonly (string | number)[];

/** Credentials are needed only to call the real service: `--dry-run` and `--emulator` run without. */
function isCredential(path: KeyPath): boolean {
  return path.length === 3 && path[0] === 'service' && path[1] === 'credentials';
}

function pathKey(path: readonly PropertyKey[]): string {
  return JSON.stringify(path.map(String));
}

/**
 * Replaces `${NAME}` and `${NAME:-fallback}` in every string of a parsed document; the fallback
 * stands in for an unset or empty variable, as in a shell. An unset or empty variable without a
 * fallback is an error naming the variable and where it is used, except in `service.credentials`:
 * there the reference is left as it is, and the run refuses it only when it would call the service
 * with it (run/assemble.ts `checkService`, which names the variable). Every substituted string is
 * recorded, so that `coerceSubstituted` can read it as the number or boolean the schema wants.
 */
export function interpolate(document: unknown, env: Env, file: string): Interpolated {
  const made = new Map<string, Substitution>();
  const named = new Map<string, Substitution>();
  const walk = (node: unknown, path: KeyPath): unknown => {
    if (typeof node === 'string') {
      checkReferences(node, file, path);
      const variable = isCredential(path) ? unsetVariable(node) : undefined;
      if (variable !== undefined && !env[variable]) return node;
      const substitution = substitutionOf(node, env);
      if (substitution === undefined) return node;
      made.set(pathKey(path), substitution);
      named.set(keyPath(path), substitution);
      return interpolateString(node, env, file, path);
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i]));
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(
        Object.entries(node).map(([key, value]) => [key, walk(value, [...path, key])]),
      );
    return node;
  };
  return {
    document: walk(document, []),
    substitutionAt: (path) => made.get(pathKey(path)),
    substitutionNamed: (path) => named.get(path),
  };
}

/**
 * Refuses a `${` that no reference reads (`${ NAME }`, `${NAME-x}` as a shell writes it,
 * `${NAME`, `${1X}`): it was kept as text, so that a path or a constant held the reference
 * itself, `out/${ DATE }.csv`, with nothing said.
 */
function checkReferences(text: string, file: string, path: KeyPath): void {
  const rest = text.replace(REFERENCE, '');
  const at = rest.indexOf('${');
  if (at < 0) return;
  const end = rest.indexOf('}', at);
  // A credential's text is never shown: what follows `${` there may be the key itself.
  const written = isCredential(path)
    ? `a \${ that is no reference`
    : end < 0
      ? rest.slice(at, at + 24)
      : rest.slice(at, end + 1);
  const inside = (end < 0 ? rest.slice(at + 2) : rest.slice(at + 2, end)).trim();
  const shell = /^([A-Za-z_][A-Za-z0-9_]*)(:?[-=?+])(.*)$/s.exec(inside);
  const named = `write \${NAME}${isCredential(path) ? '' : ` or \${NAME:-default}`}: a name of letters, digits and _, not starting with a digit`;
  let hint = named;
  if (end < 0) hint = `close it with }: ${hint}`;
  else if (shell?.[2] === '-')
    hint = `write \${${shell[1]}:-${shell[3]}} (the default stands in for an unset or empty variable)`;
  else if (shell !== null) hint = `only \${NAME:-default} takes a default here: write \${${shell[1]}:-...}`;
  else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(inside)) hint = `write \${${inside}}, without spaces`;
  const shown = isCredential(path) ? written : `\`${written}\``;
  throw new ConfigError(`${file}: ${keyPath(path)}: ${shown} is not a reference geobatch reads`, {
    file,
    path: keyPath(path),
    expected: `\${NAME} or \${NAME:-default}`,
    received: written,
    hint: isCredential(path) ? named : hint,
  });
}

function substitutionOf(text: string, env: Env): Substitution | undefined {
  const variables = [...text.matchAll(REFERENCE)].map(([, name]) => ({
    name: name as string,
    value: env[name as string],
  }));
  return variables.length === 0 ? undefined : { written: text, variables };
}

function interpolateString(text: string, env: Env, file: string, path: KeyPath): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    const empty = value === '';
    throw new ConfigError(
      `${file}: ${keyPath(path)}: environment variable ${name} is ${empty ? 'empty' : 'not set'}`,
      {
        file,
        path: keyPath(path),
        expected: empty ? `${name} set to a value` : `${name} set in the environment`,
        hint: `export ${name}=... before running, or give a default with \${${name}:-value}`,
      },
    );
  });
}

type Issue = z.core.$ZodIssue;

/** What the schema would have taken at one path: any number, a boolean, or one of some literals. */
interface Wanted {
  /** Where, as the schema's issues give it (an array's index a number). */
  path: readonly PropertyKey[];
  number: boolean;
  boolean: boolean;
  /** Whether `null` was taken (`rate: null`, no limit): the text `null` reads as it. */
  null: boolean;
  words: unknown[];
}

/** Every path at which some branch of the schema wanted a number or a boolean, with what else it took. */
function wantedByPath(issues: readonly Issue[], prefix: readonly PropertyKey[], out: Map<string, Wanted>) {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union') {
      for (const branch of issue.errors) wantedByPath(branch, path, out);
      continue;
    }
    const key = pathKey(path);
    const wanted = out.get(key) ?? { path, number: false, boolean: false, null: false, words: [] };
    if (issue.code === 'invalid_type' && issue.expected === 'number') wanted.number = true;
    else if (issue.code === 'invalid_type' && issue.expected === 'boolean') wanted.boolean = true;
    else if (issue.code === 'invalid_type' && issue.expected === 'null') wanted.null = true;
    else if (issue.code === 'invalid_value') wanted.words.push(...issue.values);
    else continue;
    out.set(key, wanted);
  }
}

function read(text: string, wanted: Wanted): unknown {
  if (wanted.number && PLAIN_NUMBER.test(text)) return Number(text);
  if (wanted.boolean && (text === 'true' || text === 'false')) return text === 'true';
  if (wanted.null && text === 'null') return null;
  return wanted.words.find((word) => typeof word !== 'string' && String(word) === text);
}

/** True when some text could be read as what the schema wanted; a wanted word that is text was not. */
function readable(wanted: Wanted): boolean {
  return (
    wanted.number || wanted.boolean || wanted.null || wanted.words.some((word) => typeof word !== 'string')
  );
}

function describeWanted(wanted: Wanted): string {
  const kinds = [
    wanted.number ? 'a number' : '',
    wanted.boolean ? 'true or false' : '',
    wanted.null ? 'null' : '',
  ].filter(Boolean);
  return [...kinds, ...wanted.words.map((word) => JSON.stringify(word))].join(' or ');
}

function describeVariable({ name, value }: Substitution['variables'][number]): string {
  if (value === undefined) return `${name} is not set`;
  return value === '' ? `${name} is empty` : `${name}=${JSON.stringify(value)}`;
}

/**
 * Substitution yields text, and a string field keeps it as text (a postcode `${ZIP}` = `01067`
 * stays `01067`). Where the schema refused a substituted string because it wanted a number or a
 * boolean, the text is read as one when it is a plain number or `true`/`false`; strings written
 * in the file are never read this way. Sets the values read in `interpolated.document` (the
 * caller's own copy) and returns whether it set any, so that the caller validates again; text
 * that is neither is a ConfigError naming the variables, their values and what the field takes.
 */
export function coerceSubstituted(
  interpolated: Interpolated,
  issues: readonly Issue[],
  file: string,
): boolean {
  const wantedAt = new Map<string, Wanted>();
  wantedByPath(issues, [], wantedAt);
  let changed = false;
  for (const wanted of wantedAt.values()) {
    if (!readable(wanted)) continue;
    const { path } = wanted;
    const substitution = interpolated.substitutionAt(path);
    const parent = valueAt(interpolated.document, path.slice(0, -1)) as
      | Record<string | number, unknown>
      | undefined;
    const last = path.at(-1) as string | number;
    const text = parent?.[last];
    if (substitution === undefined || parent === undefined || typeof text !== 'string') continue;
    const value = read(text, wanted);
    if (value === undefined) throw notReadable(file, keyPath(path), text, substitution, wanted);
    parent[last] = value;
    changed = true;
  }
  return changed;
}

/** The value at `path` inside a parsed document, undefined where the path leads nowhere. */
export function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let node = document;
  for (const key of path) node = (node as Record<PropertyKey, unknown> | null)?.[key];
  return node;
}

function notReadable(file: string, at: string, text: string, substitution: Substitution, wanted: Wanted) {
  const expected = describeWanted(wanted);
  const names = substitution.variables.map((variable) => variable.name);
  const wants = wanted.number ? `a plain number, such as 10${wanted.null ? ', or null' : ''}` : expected;
  const sources = substitution.variables.map(describeVariable).join(', ');
  return new ConfigError(
    `${file}: ${at}: expected ${expected}, got ${JSON.stringify(text)} from \`${substitution.written}\` (${sources})`,
    {
      file,
      path: at,
      expected,
      received: text,
      hint:
        names.length === 1
          ? `set ${names[0]} to ${wants}`
          : `set ${names.join(' and ')} so that \`${substitution.written}\` gives ${wants}`,
    },
  );
}

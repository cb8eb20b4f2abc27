/**
 * Numbers as the job file writes them. The YAML 1.2 core schema reads a plain `010670` as the
 * integer 10670, `+49` as 49 and `1.10` as 1.1: a postcode, a house number or a customer key
 * written unquoted lost its text, passed every check as another value and was sent on every row.
 * The parsed document keeps each scalar's source; where the job file wants text, the text is that.
 */

import { type Document, isAlias, isMap, isScalar, isSeq, type Node } from 'yaml';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { keyPath } from '../jobs/_file-rules.js';
import { valueAt } from './env.js';

/** A key's place in the document: a name, or an array's index as a number. */
type KeyPath = readonly (string | number)[];

/** The source of each plain scalar the file writes that YAML read as a number, by its place. */
export interface WrittenNumbers {
  (path: readonly PropertyKey[]): string | undefined;
  /**
   * The source of the key that ends `path` where YAML read it as a number or as null: `01067:` is
   * the key '1067' of the parsed document and `null:` the key '', and a message naming them must
   * say 01067 and null.
   */
  readonly key: (path: readonly PropertyKey[]) => string | undefined;
}

/** The keys of a path as the file writes them (`mapping.01067`), for messages (keyPath). */
export function writtenPath(path: readonly PropertyKey[], written: WrittenNumbers | undefined): string {
  if (written === undefined) return keyPath(path);
  return keyPath(
    path.map((segment, i) =>
      typeof segment === 'string' ? (written.key(path.slice(0, i + 1)) ?? segment) : segment,
    ),
  );
}

/** A number in decimals, as the readers of a cell read one too; `0x1F`, `0o17`, `.inf` are not. */
const DECIMAL = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

function pathKey(path: readonly PropertyKey[]): string {
  return JSON.stringify(path.map(String));
}

/**
 * Every plain number of `doc` with its source, at the place `doc.toJS()` puts it (an alias's at
 * each place it is used, a YAML 1.1 merge's (`<<: *m`) at each map it is merged into). A number
 * given an explicit tag (`!!int "0123"`) was asked for as one.
 */
export function writtenNumbers(doc: Document): WrittenNumbers {
  const found = new Map<string, string>();
  const keys = new Map<string, string>();
  // `own`: a map's own keys win over what it merges, and an earlier merge over a later one, as in
  // toJS (yaml's merge.ts), so a merged number is recorded only where nothing was yet.
  const walk = (node: unknown, path: KeyPath, open: ReadonlySet<unknown>, own: boolean): void => {
    if (open.has(node)) return;
    const inside = new Set(open).add(node);
    if (isAlias(node)) walk(node.resolve(doc), path, inside, own);
    else if (isScalar(node)) {
      const key = pathKey(path);
      const text = numberSource(node);
      if (text !== undefined && (own || !found.has(key))) found.set(key, text);
    } else if (isMap(node)) {
      const merged: unknown[] = [];
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (isMergeKey(key)) merged.push(pair.value);
        else {
          // toJS names a null key (`null:`, `~:`) '', which a message would quote as ``.
          const name = key === null ? '' : String(key);
          const text = numberSource(pair.key) ?? nullSource(pair.key);
          const at = pathKey([...path, name]);
          if (text !== undefined && (own || !keys.has(at))) keys.set(at, text);
          walk(pair.value, [...path, name], inside, own);
        }
      }
      for (const value of merged) {
        const source = isAlias(value) ? value.resolve(doc) : value;
        for (const map of isSeq(source) ? source.items : [source]) walk(map, path, inside, false);
      }
    } else if (isSeq(node))
      node.items.forEach((item, i) => {
        walk(item, [...path, i], inside, own);
      });
  };
  walk(doc.contents as Node | null, [], new Set(), true);
  return Object.assign((path: readonly PropertyKey[]) => found.get(pathKey(path)), {
    key: (path: readonly PropertyKey[]) => keys.get(pathKey(path)),
  });
}

/** A plain scalar's source where YAML read it as a number without being asked to by a tag. */
function numberSource(node: unknown): string | undefined {
  if (!isScalar(node) || typeof node.value !== 'number') return undefined;
  return node.type === 'PLAIN' && node.tag === undefined ? node.source : undefined;
}

/** A plain null's source (`null`, `~`, `Null`), for a key that toJS names ''. */
function nullSource(node: unknown): string | undefined {
  return isScalar(node) && node.value === null && node.type === 'PLAIN' ? node.source : undefined;
}

/** A merge key of a schema that merges (YAML 1.1): yaml resolves its `<<` to a symbol. */
function isMergeKey(key: unknown): boolean {
  return typeof key === 'symbol' && key.description === '<<';
}

/** A constant YAML read as a number and kept as its text: where, and the number versions before c287dbb kept. */
export interface KeptConstant {
  /** Its `value` key's place in the document (`['steps', 0, 'mapping', 'zip', 'value']`). */
  readonly path: KeyPath;
  readonly read: number;
}

/**
 * A mapping constant (`zip: { value: 010670 }`) is text, as a cell is: one YAML read as a number
 * takes its text as written, in every `mapping:` of the file (a step's, a side input's). A number
 * written another way than in decimals (`0x1F`, `0o17`, `.inf`) is refused: as text it is not the
 * number YAML read, and whether the field wants the text or the number cannot be told. Returns the
 * constants it kept, with the numbers read, by which a checkpoint of an earlier version is known.
 */
export function keepWrittenConstants(
  document: unknown,
  written: WrittenNumbers,
  shown: string,
): KeptConstant[] {
  const kept: KeptConstant[] = [];
  const walk = (node: unknown, path: KeyPath): void => {
    if (Array.isArray(node))
      node.forEach((item, i) => {
        walk(item, [...path, i]);
      });
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
    const record = node as Record<string, unknown>;
    for (const [key, value] of Object.entries(record)) {
      if (key === 'mapping' && value !== null && typeof value === 'object')
        for (const [field, source] of Object.entries(value as Record<string, unknown>))
          keepConstant(source, [...path, key, field], written, shown, kept);
      walk(value, [...path, key]);
    }
  };
  walk(document, []);
  return kept;
}

/** What stepsAsRead needs of a step: its resolved mapping and options. */
interface StepMeaning {
  readonly mapping: Readonly<Record<string, unknown>>;
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * The steps with each kept constant as versions before c287dbb had it: a step's mapping constant
 * as the text of the number read (resolveMapping made `{ value: 52.5 }` "52.5"), one in its options
 * (a destinations file's mapping) as the number. Undefined when no constant was kept. `many`: the
 * document is a `steps:` file, whose paths start `steps, <index>`.
 */
export function stepsAsRead<S extends StepMeaning>(
  steps: readonly S[],
  kept: readonly KeptConstant[],
  many: boolean,
): S[] | undefined {
  if (kept.length === 0) return undefined;
  const out = steps.map((step) => ({
    ...step,
    mapping: { ...step.mapping },
    options: structuredClone(step.options) as Record<string, unknown>,
  }));
  for (const { path, read } of kept) {
    const index = many ? path[1] : 0;
    const step = typeof index === 'number' && (!many || path[0] === 'steps') ? out[index] : undefined;
    const [section, ...rest] = many ? path.slice(2) : path;
    if (step === undefined) continue;
    if (section === 'mapping' && rest.length === 2 && rest[1] === 'value') {
      const field = String(rest[0]);
      if (step.mapping[field] !== undefined) step.mapping[field] = { value: String(read) };
    } else if (section === 'options') {
      const parent = valueAt(step.options, rest.slice(0, -1)) as Record<PropertyKey, unknown> | undefined;
      const last = rest.at(-1);
      if (
        parent !== null &&
        typeof parent === 'object' &&
        last !== undefined &&
        typeof parent[last] === 'string'
      )
        parent[last] = read;
    }
  }
  return out;
}

function keepConstant(
  source: unknown,
  path: KeyPath,
  written: WrittenNumbers,
  shown: string,
  kept: KeptConstant[],
): void {
  const bare = typeof source === 'number' ? written(path) : undefined;
  // The schema says how to write a constant, in the words of the number it read (1067 for 01067).
  if (bare !== undefined && bare !== String(source))
    throw withoutValue(shown, writtenPath(path, written), bare);
  if (source === null || typeof source !== 'object') return;
  // A column's name is text as a header writes it: `{ column: 01067 }` names the column 01067.
  const named = source as { column?: unknown };
  const header = typeof named.column === 'number' ? written([...path, 'column']) : undefined;
  if (header !== undefined) named.column = header;
  if (!('value' in source)) return;
  const constant = source as { value: unknown };
  if (typeof constant.value !== 'number') return;
  const text = written([...path, 'value']);
  if (text === undefined) return;
  if (!DECIMAL.test(text))
    throw notDecimal(shown, writtenPath([...path, 'value'], written), text, constant.value);
  kept.push({ path: [...path, 'value'], read: constant.value });
  constant.value = text;
}

function withoutValue(shown: string, at: string, text: string): ConfigError {
  const expected = `a column name, or a constant written { value: ${text} }`;
  return new ConfigError(`${shown}: ${at}: expected ${expected}, got ${text}`, {
    file: shown,
    path: at,
    expected,
    received: text,
  });
}

function notDecimal(shown: string, at: string, text: string, number: number): ConfigError {
  const read = Number.isFinite(number) ? `the number ${number}` : `${number}, no number a field takes`;
  const instead = Number.isFinite(number) ? `, or write the number as ${number}` : '';
  return new ConfigError(
    `${shown}: ${at}: ${text} is read by YAML as ${read}, not as the text ${text}; quote it`,
    {
      file: shown,
      path: at,
      expected: `a constant in quotes ("${text}") for the text as written, or a number in decimals`,
      received: text,
      hint: `write ${JSON.stringify(text)} for the text${instead}`,
    },
  );
}

/**
 * Where the schema wanted text and the file writes a number (`branches: 0101`, `description:
 * 1.10`), the text as written; a union's branches are left to its own message (a mapping field
 * given a number is a constant written without `value:`). Returns whether it set any, so that the
 * caller validates again.
 */
export function keepWrittenText(
  document: unknown,
  written: WrittenNumbers,
  issues: readonly z.core.$ZodIssue[],
): boolean {
  let changed = false;
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || issue.expected !== 'string') continue;
    const parent = valueAt(document, issue.path.slice(0, -1)) as Record<PropertyKey, unknown> | undefined;
    const last = issue.path.at(-1);
    if (parent === undefined || parent === null || last === undefined) continue;
    const text = written(issue.path);
    if (typeof parent[last] !== 'number' || text === undefined) continue;
    parent[last] = text;
    changed = true;
  }
  return changed;
}

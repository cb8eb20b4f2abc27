/**
 * Reads the README's job-file reference (every ```yaml block that is a job file, and the table of
 * mapping fields and options per kind) and holds it against the schema, both ways: a key the
 * README documents must be one the schema accepts, and a key the schema accepts must be documented.
 *
 * Objects are compared by identity: a schema object used in several places (the limits of every
 * throttle interface) is documented once its keys appear under any one of those places.
 */
import { parse } from 'yaml';
import type { z } from 'zod';
import { parseJobFile } from '../../src/config/load.js';
import { jobFileSchema } from '../../src/config/schema.js';

type Schema = z.core.$ZodType;
interface Def {
  readonly type: string;
  readonly shape?: Record<string, Schema>;
  readonly innerType?: Schema;
  readonly options?: readonly Schema[];
  readonly in?: Schema;
}

const defOf = (schema: Schema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The object schemas a value may be (through optional, nullable, default, union, pipe). */
function objectsOf(schema: Schema): Schema[] {
  const def = defOf(schema);
  if (def.type === 'object') return [schema];
  if (def.innerType !== undefined) return objectsOf(def.innerType);
  if (def.options !== undefined) return def.options.flatMap(objectsOf);
  if (def.in !== undefined) return objectsOf(def.in);
  return [];
}

const ids = new WeakMap<object, number>();
let lastId = 0;
const idOf = (schema: Schema) => {
  if (!ids.has(schema)) ids.set(schema, ++lastId);
  return ids.get(schema) as number;
};

/** Every (object, key) pair reachable from `roots`, with a path to show in messages. */
function requirements(roots: readonly { schema: Schema; path: string }[]): Map<string, string> {
  const out = new Map<string, string>();
  const seen = new Set<Schema>();
  const walk = (schema: Schema, path: string) => {
    for (const object of objectsOf(schema)) {
      if (seen.has(object)) continue;
      seen.add(object);
      for (const [key, child] of Object.entries(defOf(object).shape ?? {})) {
        const at = path === '' ? key : `${path}.${key}`;
        out.set(`${idOf(object)}:${key}`, at);
        walk(child, at);
      }
    }
  };
  for (const root of roots) walk(root.schema, root.path);
  return out;
}

/** Marks a documented key path against the schema; returns a problem when the schema lacks it. */
function mark(root: Schema, path: readonly string[], documented: Set<string>, where: string): string[] {
  let candidates = objectsOf(root);
  for (const [i, key] of path.entries()) {
    const holders = candidates.filter((object) => defOf(object).shape?.[key] !== undefined);
    if (holders.length === 0)
      return [`${where}: \`${path.slice(0, i + 1).join('.')}\` is documented but the schema rejects it`];
    for (const holder of holders) documented.add(`${idOf(holder)}:${key}`);
    candidates = holders.flatMap((holder) => objectsOf(defOf(holder).shape?.[key] as Schema));
  }
  return [];
}

function branchOf(kind: string): Schema | undefined {
  return defOf(jobFileSchema).options?.find((branch) => {
    const job = defOf(branch).shape?.job;
    return job !== undefined && (defOf(job) as { values?: unknown[] }).values?.includes(kind);
  });
}

function keyPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    [...prefix, key],
    ...keyPaths(child, [...prefix, key]),
  ]);
}

export function yamlBlocks(readme: string): string[] {
  return [...readme.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/**
 * Keys a table cell names: backticked words outside parentheses (inside them: values and notes);
 * a `{` opens the keys of the key before it, also inside its parentheses (`x` ({ `a`, `b` })).
 */
export function cellKeys(cell: string): string[][] {
  const keys: string[][] = [];
  const stack: string[] = [];
  const depths = [0];
  let last: string | undefined;
  for (let i = 0; i < cell.length; i++) {
    const c = cell[i];
    const depth = depths.length - 1;
    if (c === '(') depths[depth] = (depths[depth] ?? 0) + 1;
    else if (c === ')') depths[depth] = (depths[depth] ?? 0) - 1;
    else if (c === '{' && last !== undefined) {
      stack.push(last);
      depths.push(0);
    } else if (c === '}') {
      stack.pop();
      depths.pop();
    } else if (c === '`') {
      const end = cell.indexOf('`', i + 1);
      if (depths[depth] === 0) {
        last = cell.slice(i + 1, end);
        keys.push([...stack, last]);
      }
      i = end;
    }
  }
  return keys;
}

/** The rows of the table of mapping fields and options per kind: [kind, mapping cell, options cell]. */
export function kindTable(readme: string): string[][] {
  const section = readme.slice(readme.indexOf('## Job file reference'));
  const start = section.indexOf('| job | mapping | options');
  const lines = section.slice(start).split('\n');
  const rows: string[][] = [];
  for (const line of lines.slice(2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** Everything wrong between the README's job-file reference and the schema; empty when they agree. */
export function readmeProblems(readme: string): string[] {
  const problems: string[] = [];
  // Every variable set; an address (GEOBATCH_..._URL, GEOBATCH_EMULATOR_URL) as a URL, which is checked.
  const env = new Proxy(
    {},
    {
      get: (_, name) =>
        String(name).endsWith('_URL') ? 'http://readme.example/' : 'set-for-the-readme-test',
    },
  ) as Record<string, string>;
  const documented = new Set<string>();
  let reference: Schema | undefined;
  for (const [n, block] of yamlBlocks(readme).entries()) {
    const document = parse(block) as { job?: unknown } | null;
    if (document === null || typeof document !== 'object' || typeof document.job !== 'string') continue;
    try {
      parseJobFile(block, '/readme/job.yaml', env, `README yaml block ${n + 1}`);
    } catch (error) {
      problems.push((error as Error).message);
    }
    const branch = branchOf(document.job);
    if (branch === undefined) continue;
    reference ??= branch;
    for (const path of keyPaths(document))
      problems.push(...mark(branch, path, documented, `yaml block ${n + 1}`));
  }
  if (reference === undefined) return [...problems, 'no yaml block in the README is a job file'];
  const required = new Map<string, string>();
  for (const [key, schema] of Object.entries(defOf(reference).shape ?? {})) {
    if (key === 'mapping' || key === 'options') continue; // per kind: the table
    required.set(`${idOf(reference)}:${key}`, key);
    for (const [k, v] of requirements([{ schema, path: key }])) required.set(k, v);
  }
  const rows = kindTable(readme);
  if (rows.length === 0) problems.push('the table of mapping fields and options per kind is missing');
  const kinds = new Set<string>();
  for (const [kind = '', mapping = '', options = ''] of rows) {
    kinds.add(kind);
    const branch = branchOf(kind);
    if (branch === undefined) {
      problems.push(`table: \`${kind}\` is not a job kind`);
      continue;
    }
    for (const path of cellKeys(mapping))
      problems.push(...mark(branch, ['mapping', ...path], documented, kind));
    for (const path of cellKeys(options))
      problems.push(...mark(branch, ['options', ...path], documented, kind));
    const shape = defOf(branch).shape ?? {};
    for (const part of ['mapping', 'options'] as const) {
      const schema = shape[part];
      if (schema === undefined) continue;
      for (const [k, v] of requirements([{ schema, path: `${kind} ${part}` }])) required.set(k, v);
    }
  }
  for (const branch of defOf(jobFileSchema).options ?? []) {
    const kind = (defOf(defOf(branch).shape?.job as Schema) as { values?: string[] }).values?.[0] ?? '?';
    if (!kinds.has(kind)) problems.push(`table: the job kind \`${kind}\` has no row`);
  }
  for (const [key, path] of required) {
    if (!documented.has(key)) problems.push(`\`${path}\` is in the schema but not in the README's reference`);
  }
  return problems;
}

/**
 * Turns zod's issues into one ConfigError that names the file, the path inside it, what was
 * expected and what was found: "jobs/x.yaml: options.batchSize: expected at most 500, got 600".
 */
import type { z } from 'zod';
import { ConfigError } from '../errors.js';

type Issue = z.core.$ZodIssue;

function valueAt(document: unknown, path: readonly PropertyKey[]): unknown {
  let node = document;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(top level)' : path.map(String).join('.');
}

/** The most useful issue of a union is the one that got furthest into the document. */
function deepest(issue: Issue): Issue {
  if (issue.code !== 'invalid_union' || issue.errors.length === 0) return issue;
  let best: Issue = issue;
  for (const branch of issue.errors) {
    for (const inner of branch) {
      const candidate = deepest({ ...inner, path: [...issue.path, ...inner.path] } as Issue);
      if (candidate.path.length > best.path.length) best = candidate;
    }
  }
  return best;
}

function expectation(issue: Issue): string {
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `\`${k}\``).join(', ')}`;
    case 'too_small':
      return `expected ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}${issue.origin === 'array' ? ' items' : ''}`;
    case 'too_big':
      return issue.message.startsWith('Too big')
        ? `expected at most ${String(issue.maximum)}`
        : issue.message;
    default:
      return issue.message.replace(/^Invalid input: /, '');
  }
}

export function toConfigError(file: string, document: unknown, issues: readonly Issue[]): ConfigError {
  const lines = issues.map((raw) => {
    const issue = deepest(raw);
    const got = issue.code === 'unrecognized_keys' ? '' : `, got ${show(valueAt(document, issue.path))}`;
    return { path: pathText(issue.path), text: `${expectation(issue)}${got}` };
  });
  const first = lines[0] ?? { path: '(top level)', text: 'invalid' };
  const message = lines.map((line) => `${file}: ${line.path}: ${line.text}`).join('\n');
  return new ConfigError(message, { file, path: first.path, expected: first.text });
}

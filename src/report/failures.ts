/**
 * Example rows per failure code for the report: the first few of each code, as the error report
 * has them (message scrubbed of secrets), with the first input fields cut short. Codes are a
 * closed set, so this holds at most `perCode` rows a code whatever the size of the run.
 */
import { ConfigError } from '../errors.js';
import { scrub } from '../secrets.js';
import type { Fields, RowIssue } from '../types.js';
import type { FailureExample } from './data.js';

export interface FailureExamplesOptions {
  /** Rows kept per code. @default 3 */
  readonly perCode?: number;
  /** Input fields shown per row. @default 8 */
  readonly fields?: number;
  /** Characters per field value and message. @default 160 */
  readonly maxLength?: number;
}

export interface FailureExamples {
  /** One failed row: its issue and whatever input fields it has. */
  add(issue: RowIssue, fields?: Fields): void;
  examples(): readonly FailureExample[];
}

const DEFAULTS = { perCode: 3, fields: 8, maxLength: 160 } as const;

export function createFailureExamples(options: FailureExamplesOptions = {}): FailureExamples {
  const perCode = count('perCode', options.perCode ?? DEFAULTS.perCode);
  const fieldCount = count('fields', options.fields ?? DEFAULTS.fields);
  const maxLength = count('maxLength', options.maxLength ?? DEFAULTS.maxLength);
  const byCode = new Map<string, FailureExample[]>();
  return {
    add(issue, fields = issue.fields ?? {}) {
      let list = byCode.get(issue.code);
      if (list === undefined) {
        list = [];
        byCode.set(issue.code, list);
      }
      if (list.length >= perCode) return;
      list.push({
        row: issue.ref.index + 1,
        line: issue.ref.line,
        stage: issue.stage,
        code: issue.code,
        status: issue.status ?? null,
        message: cut(scrub(issue.message), maxLength * 2),
        ...(issue.step === undefined ? {} : { step: cut(issue.step, maxLength) }),
        fields: shortFields(fields, fieldCount, maxLength),
      });
    },
    examples: () => [...byCode.values()].flat(),
  };
}

function shortFields(fields: Fields, max: number, maxLength: number): Record<string, string> {
  // fromEntries defines own properties: a column named `__proto__` stays a column.
  return Object.fromEntries(
    Object.entries(fields)
      .slice(0, max)
      .map(([name, value]) => [cut(name, maxLength), cut(value === null ? '' : String(value), maxLength)]),
  );
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function count(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`Expected \`${name}\` to be a positive integer, got \`${value}\``);
  return value;
}

/**
 * A mapping constant (`country: { value: GER }`) is the same on every row: one that no row can pass
 * is refused when the file loads (validate, a run, a dry run alike), naming the mapping key, the
 * value and what was expected, instead of failing every row after the steps before it were paid
 * for. Each kind names the row checks a constant may meet (`JobKind.constants`); its points are
 * checked from `coordinates` (src/jobs/_constant-points.ts). A constant is judged by the kind's
 * own row readers, so that the file and the rows are refused in the same words.
 */
import type { Row } from '../types.js';
import { asConstant, constantPointIssue } from './_constant-points.js';
import type { KindCoordinates } from './_coord-format.js';
import { type FieldSource, isPlanIssue, type Mapping, resolveMapping } from './_fields.js';
import type { FileIssue } from './_file-rules.js';

/** A row check that a constant may fail on every row alike. */
export interface ConstantCheck {
  /**
   * The mapping keys the check reads together. It runs when every one of them that is mapped is a
   * constant: a column beside one may decide what passes (a geocode's zip is a German postcode only
   * where the row's country is Germany), and only the rows can tell that.
   */
  readonly keys: readonly [string, ...string[]];
  /**
   * Reads those keys as the kind's `plan` reads a row, given a mapping of just the constants and a
   * row of no columns: a FIELD_INVALID naming one of them is what every row would get. What it says
   * of keys it was not given (FIELD_MISSING) is the rows' business.
   */
  read(row: Row, mapping: Mapping): unknown;
}

/** What a kind tells about its constants: the checks, and the points it reads (`coordinates`). */
export interface ConstantRules {
  readonly checks?: readonly ConstantCheck[];
  readonly coordinates?: KindCoordinates;
}

const NO_ROW: Row = { kind: 'row', ref: { index: 0, line: 0 }, fields: {} };

/** The mapping's constants by key, as the job file writes them. */
function constantsOf(mapping: Mapping): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, source] of Object.entries(mapping)) if ('value' in source) out.set(key, source.value);
  return out;
}

/**
 * An empty constant (`{ value: "" }`, or a `${VAR}` that was empty) reads as no value on every row:
 * a field the kind needs fails each of them, and any other is sent as if it were not mapped, which
 * is not what a file that gives it says.
 */
function blankIssue(constants: ReadonlyMap<string, string>): FileIssue | undefined {
  for (const [key, value] of constants) {
    if (value.trim() !== '') continue;
    return {
      path: `mapping.${key}`,
      expected: `expected a value, got an empty constant, which every row would read as no ${key} at all`,
      received: JSON.stringify(value),
      hint: `give the constant a value, map ${key} to a column (${key}: <column>), or leave ${key} out`,
    };
  }
  return undefined;
}

/** The first check that every row would fail because of a constant, as a FileIssue at its key. */
function checkIssue(
  checks: readonly ConstantCheck[],
  mapping: Mapping,
  constants: ReadonlyMap<string, string>,
): FileIssue | undefined {
  for (const check of checks) {
    const mapped = check.keys.filter((key) => mapping[key] !== undefined);
    const given = mapped.filter((key) => constants.has(key));
    if (given.length === 0 || given.length < mapped.length) continue;
    const only: Mapping = Object.fromEntries(given.map((key) => [key, mapping[key] as FieldSource]));
    const issue = check.read(NO_ROW, only);
    if (!isPlanIssue(issue) || issue.code !== 'FIELD_INVALID') continue;
    // A constant has no column: the readers name it by its key.
    const key = given.find((name) => name === issue.field);
    if (key === undefined) continue;
    const lead = `${key}: `;
    return {
      path: `mapping.${key}`,
      expected: asConstant(issue.message.startsWith(lead) ? issue.message.slice(lead.length) : issue.message),
      received: constants.get(key) as string,
    };
  }
  return undefined;
}

/**
 * The first constant of `raw` (a job file's mapping, or a library caller's resolved one) that no
 * row can pass: an empty one, a point out of range, a value the kind's row check refuses.
 */
export function constantIssue(
  rules: ConstantRules,
  raw: Readonly<Record<string, unknown>>,
): FileIssue | undefined {
  const mapping = resolveMapping(raw);
  const constants = constantsOf(mapping);
  if (constants.size === 0) return undefined;
  return (
    blankIssue(constants) ??
    constantPointIssue(rules.coordinates, raw) ??
    checkIssue(rules.checks ?? [], mapping, constants)
  );
}

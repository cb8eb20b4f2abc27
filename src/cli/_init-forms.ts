/**
 * One form for a kind that asks the service in several (address-search: a position, an address or
 * a rectangle; area-export: osm ids or rectangles), each reading mapping keys of its own. A file
 * maps one form's keys only; init drafted every key a column named, and `validate` refused the
 * draft of a file with both coordinates and an address as two forms.
 *
 * The form drafted is the one whose keys the most columns feed (all of a form's required keys, or
 * it is not one), a tie going to a form other than the kind's fallback: a file with an address and
 * coordinates searches by the address, one with coordinates only by the position. The other
 * forms' keys are left out, each with the word on how to choose its form instead. Likewise a key
 * of a pair a row gives only one of (onePerRow).
 */
import { fieldOf } from '../fields.js';
import type { JobKind } from '../jobs/index.js';
import type { Row } from '../types.js';
import type { ColumnGuess } from './_columns.js';

export interface FormPick {
  /** The form drafted. */
  readonly form: string;
  /** The keys of the other forms a column had named, left out of the mapping. */
  readonly dropped: readonly string[];
  /** Why they were left out, in a few words: one form per job, or what their form lacks. */
  readonly why: string;
  /** The comment beside each key left out. */
  readonly notes: ReadonlyMap<string, string>;
  /** Whether the form reads all of these keys. */
  reads(keys: readonly string[]): boolean;
}

/**
 * The form to draft for `mapping`, whose other forms' keys it removes; undefined for a kind of one
 * form, or when no key of any form is mapped (the kind's fallback then applies).
 */
export function pickForm(kind: JobKind, mapping: Map<string, ColumnGuess>): FormPick | undefined {
  const rule = kind.forms;
  if (rule === undefined) return undefined;
  const forms = Object.keys(rule.keys);
  const mappedOf = (form: string) => (rule.keys[form] ?? []).filter((key) => mapping.has(key));
  // A form whose rows all fail (an address of a street alone) is no more complete than one missing a
  // required key: a file with a street, a house number and coordinates searches by the position.
  const lacking = (form: string) => {
    const any = rule.oneOf?.[form];
    return any !== undefined && !any.keys.some((key) => mapping.has(key)) ? any : undefined;
  };
  const complete = (form: string) =>
    (rule.required?.[form] ?? []).every((key) => mapping.has(key)) && lacking(form) === undefined;
  const found = forms.filter((form) => mappedOf(form).length > 0);
  const usable = found.some(complete) ? found.filter(complete) : found;
  const rank = (form: string) => mappedOf(form).length * 2 + (form === rule.fallback ? 0 : 1);
  const [form] = [...usable].sort((a, b) => rank(b) - rank(a));
  if (form === undefined) return undefined;
  const own = rule.keys[form] ?? [];
  const taken = mappedOf(form);
  const dropped = [...mapping.keys()].filter(
    (key) => !own.includes(key) && forms.some((other) => (rule.keys[other] ?? []).includes(key)),
  );
  const notes = new Map<string, string>();
  let why = 'one form per job';
  for (const key of dropped) {
    const other = forms.find((f) => (rule.keys[f] ?? []).includes(key)) as string;
    const column = JSON.stringify((mapping.get(key) as ColumnGuess).column);
    const fields = mappedOf(other).join(', ');
    const needed = lacking(other);
    if (needed === undefined) {
      notes.set(
        key,
        `${column} not taken: one form per job, and the ${form} form is drafted (${taken.join(', ')}); ` +
          `for the ${other} form, map ${fields} and comment out ${taken.join(', ')}`,
      );
      continue;
    }
    const [first] = mappedOf(other);
    why = `the ${other} form needs ${oneOfText(needed.keys)} too, which no column gives`;
    // The whole word once, beside the first key: the others point to it.
    notes.set(
      key,
      key !== first
        ? `${column} not taken: see ${first} above`
        : `TODO: ${column} not taken: the ${other} form needs ${oneOfText(needed.keys)} beside ${fields}, and no column gives one ` +
            `(${needed.why}), so the ${form} form is drafted (${taken.join(', ')}); ` +
            `to search by the ${other}, add a column of ${oneOfText(needed.keys)}, map it with ${fields} and comment out ${taken.join(', ')}`,
    );
  }
  for (const key of dropped) mapping.delete(key);
  return {
    form,
    dropped,
    why,
    notes,
    reads: (keys) => keys.every((key) => own.includes(key)),
  };
}

/**
 * Pairs of keys of which a row gives one, not both: an isochrone reaches by minutes or by metres.
 * A file with a value in each column for every row was drafted with both, and each row failed
 * ("give minutes or metres, not both"); a file that gives one or the other per row keeps both.
 */
const ONE_PER_ROW: Readonly<Record<string, readonly [string, string]>> = {
  isochrone: ['minutes', 'metres'],
};

/**
 * The second key of such a pair left out when most of the first rows that give either give both;
 * returns the note that says why and how to take it instead.
 */
export function onePerRow(
  kind: JobKind,
  rows: readonly Row[],
  mapping: Map<string, ColumnGuess>,
): Map<string, string> {
  const notes = new Map<string, string>();
  const pair = ONE_PER_ROW[kind.name];
  if (pair === undefined) return notes;
  const [kept, left] = pair.map((key) => mapping.get(key)) as [
    ColumnGuess | undefined,
    ColumnGuess | undefined,
  ];
  if (kept === undefined || left === undefined) return notes;
  const given = (row: Row, column: string) => {
    const value = fieldOf(row.fields, column);
    return value !== undefined && value !== null && String(value).trim() !== '';
  };
  const either = rows.filter((row) => given(row, kept.column) || given(row, left.column));
  const both = either.filter((row) => given(row, kept.column) && given(row, left.column));
  if (either.length === 0 || both.length * 2 < either.length) return notes;
  mapping.delete(pair[1]);
  notes.set(
    pair[1],
    `${JSON.stringify(left.column)} not taken: a row gives ${pair[0]} or ${pair[1]}, not both, and ${both.length} of the first ${either.length} rows give both; ` +
      `to use ${pair[1]}, map it and comment out ${pair[0]}`,
  );
  return notes;
}

/** `zip, city or location`. */
function oneOfText(keys: readonly string[]): string {
  return keys.length < 2 ? keys.join('') : `${keys.slice(0, -1).join(', ')} or ${keys.at(-1)}`;
}

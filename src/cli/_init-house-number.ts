/**
 * `Nr`, `No` and `Number` name the house number in some address files and the record number in
 * many others (`Nr;Straße;PLZ;Ort`). Taken for houseNo, a record number goes out with every
 * address, and the service answers with the wrong house, as ok. So init offers such a column for
 * the house number only when the file bears it out: there is a street column, every value looks
 * like a house number (12, 12a, 7-9, 7/9), the street column does not carry the numbers itself
 * (`Hauptstraße 5`), and the values do not count up row by row across different streets, as
 * record numbers do. Names that say "house" (Hausnummer, housenumber, house_number, hnr) are
 * taken as they always were (_columns.ts).
 */

import { fieldOf } from '../fields.js';
import { guessByName, isBareNumber } from './_columns.js';
import type { InputHead } from './_job-yaml.js';

const HOUSE_NUMBER = /^\d+ ?[a-z]{0,2}( ?[-/] ?\d+ ?[a-z]{0,2})?$/i;

/** A street value that ends in a house number: the address is in the street column. */
const NUMBERED_STREET = /\D \d+ ?[a-z]?$/i;

/** Rows of a count: at least this many before values that only go up mean "record number". */
const COUNT_ROWS = 3;

function textOf(value: unknown): string {
  return value === null || value === undefined ? '' : String(value).trim();
}

/** Why `column` is not a house number, or undefined when the file says it may be one. */
function whyNot(head: InputHead, column: string, street: string | undefined): string | undefined {
  if (street === undefined) return 'no street column beside it';
  const rows = head.rows
    .map((row) => ({
      value: textOf(fieldOf(row.fields, column)),
      street: textOf(fieldOf(row.fields, street)),
    }))
    .filter((row) => row.value !== '');
  if (rows.length === 0) return 'no values to tell a house number by';
  if (!rows.every((row) => HOUSE_NUMBER.test(row.value)))
    return 'its values do not look like house numbers (12, 12a, 7-9)';
  const streets = rows.map((row) => row.street).filter((value) => value !== '');
  if (streets.filter((value) => NUMBERED_STREET.test(value)).length * 2 > streets.length)
    return `${street} holds the house numbers`;
  const numbers = rows.map((row) => Number(row.value));
  const counts = numbers.every((n, i) => Number.isInteger(n) && (i === 0 || n > (numbers[i - 1] as number)));
  if (rows.length >= COUNT_ROWS && counts && new Set(streets).size > 1)
    return 'its values count up row by row, as record numbers do';
  return undefined;
}

/**
 * The columns named only "number", in the input's order, each with why it is not the house
 * number, or undefined when the file bears it out: guessByName takes only those for houseNo.
 */
export function houseNumberColumns(head: InputHead): Map<string, string | undefined> {
  const street = guessByName(['street'], head.columns).get('street')?.column;
  return new Map(
    head.columns.filter(isBareNumber).map((column) => [column, whyNot(head, column, street)] as const),
  );
}

/** The houseNo line's word on the first number column not taken, when houseNo stayed unmapped. */
export function houseNoNote(
  mapping: ReadonlyMap<string, unknown>,
  numbers: ReadonlyMap<string, string | undefined>,
): Map<string, string> {
  const [column, why] = [...numbers].find(([, reason]) => reason !== undefined) ?? [];
  if (column === undefined || mapping.has('houseNo')) return new Map();
  return new Map([['houseNo', `no column found (${column} not taken: ${why})`]]);
}

/**
 * A match's `time` column drafted only when its numbers are epoch times. The match job reads a
 * number time as it is, only to check that each track's fixes come in order (the MATCH request
 * carries no times), and the README calls such a number a time. A GPS export's `t` of 0, 5, 12, 30
 * (seconds since the start, or sequence numbers) was drafted as the fixes' time by its name alone,
 * as if it were one: init now takes a column of numbers for the time only when every one is epoch
 * seconds or milliseconds of a plausible date, and otherwise leaves the key unmapped (the fixes go
 * in input order) with a TODO saying why and how to map it anyway.
 */
import { fieldOf } from '../fields.js';
import type { JobKind } from '../jobs/index.js';
import type { Row } from '../types.js';
import { type ColumnGuess, numberIn } from './_columns.js';

/** The dates a GPS fix's epoch time may be of: 1990-01-01 (GPS in use) to 2100-01-01, in seconds. */
const FIRST = Date.UTC(1990, 0, 1) / 1000;
const LAST = Date.UTC(2100, 0, 1) / 1000;

/** Whether `n` is epoch seconds or epoch milliseconds of a plausible date. */
function epochLike(n: number): boolean {
  return (n >= FIRST && n < LAST) || (n >= FIRST * 1000 && n < LAST * 1000);
}

/** The column's non-empty cells as numbers, or undefined when any is not a number. */
function numbersOf(rows: readonly Row[], column: string): number[] | undefined {
  const cells = rows
    .map((row) => fieldOf(row.fields, column))
    .filter((value) => value !== null && value !== undefined && String(value).trim() !== '');
  const numbers = cells.map(numberIn);
  return numbers.every((n) => n !== undefined) ? (numbers as number[]) : undefined;
}

/**
 * Leaves a match's `time` out of `mapping` when its column holds numbers that are not all epoch
 * times; returns the note written beside the key.
 */
export function settleTime(kind: JobKind, rows: readonly Row[], mapping: Map<string, ColumnGuess>) {
  const notes = new Map<string, string>();
  const guess = mapping.get('time');
  if (kind.name !== 'match' || guess === undefined) return notes;
  const numbers = numbersOf(rows, guess.column);
  if (numbers === undefined || numbers.length === 0 || numbers.every(epochLike)) return notes;
  const [low, high] = [Math.min(...numbers), Math.max(...numbers)];
  const range = low === high ? `${low}` : `${low} to ${high}`;
  const column = JSON.stringify(guess.column);
  mapping.delete('time');
  notes.set(
    'time',
    `TODO: ${column} not taken: its numbers (${range}) are no epoch seconds or milliseconds of a date ` +
      "(1990 to 2100); unmapped, each track's fixes go in input order. " +
      `If ${guess.column} orders them (seconds since the start, a sequence number), map it (time: ${guess.column}): ` +
      'a match uses a number time only to check that order',
  );
  return notes;
}

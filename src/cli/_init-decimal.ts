/**
 * The decimal mark of a CSV input's numbers, as `geobatch init` guesses it from the first rows:
 * the mark of a clear majority (four in five) of the numbers with a decimal in the numeric
 * columns. A file of decimal commas with a row or two written with points is still a file of
 * decimal commas: it declaring none left the output's coordinates written `11.571` in a `;` file.
 * The numbers that do not follow the mark, or both kinds when neither has the majority, are said
 * in the draft (see DecimalMix) rather than guessed over: under `decimal: ","` a run reports them
 * as row errors.
 */
import { fieldOf } from '../fields.js';
import type { Row } from '../types.js';

/** Numbers with the other mark than the guess, or, with no clear majority, both kinds. */
export interface DecimalMix {
  /** Numbers with a decimal comma and with a decimal point, in the numeric columns. */
  readonly commas: number;
  readonly points: number;
  /** Whether one mark had the clear majority (and is guessed); else neither is declared. */
  readonly decided: boolean;
  /**
   * The rows (1-based, as the run's error report numbers them) of the numbers the guess does not
   * read; with no guess, of the rarer kind.
   */
  readonly rows: readonly number[];
}

export interface DecimalGuess {
  /** Its numbers have a decimal comma (`1.234,50`, `6,95`), a clear majority of those with a mark. */
  readonly decimalComma: boolean;
  /** Any of the rows read holds a number with a decimal mark, either one. */
  readonly decimalNumbers: boolean;
  readonly decimalMix?: DecimalMix;
}

/** A number with a decimal comma, thousands maybe grouped by points: `6,95`, `-1.234,5`. */
const DECIMAL_COMMA = /^[-+]?(\d{1,3}(\.\d{3})+|\d+),\d+$/;
/** A number with a decimal point and no grouping: `6.95` (not `1.234`, a thousand in German). */
const DECIMAL_POINT = /^[-+]?\d*\.(\d{1,2}|\d{4,})$/;
/** A number with one mark before exactly three digits: `49.009`, `1.234`, `8,404`. */
const THREE_PLACES = /^[-+]?\d*[.,]\d{3}$/;
/** Digits and marks only: what a numeric column's cells look like. */
const NUMERIC = /^[-+]?[\d.,]*\d[\d.,]*$/;

/** The share of the numbers with a decimal that one mark must have to be guessed: four in five. */
const MAJORITY = 0.8;

type Kind = 'comma' | 'point' | 'pointThree' | 'marked' | 'other';

function kindOf(text: string): Kind {
  if (DECIMAL_COMMA.test(text)) return 'comma';
  if (DECIMAL_POINT.test(text)) return 'point';
  // `49.009`: a decimal to some, a thousand to others; either way a number with a mark.
  if (THREE_PLACES.test(text)) return text.includes('.') ? 'pointThree' : 'marked';
  return 'other';
}

interface Cell {
  readonly row: number;
  readonly kind: Kind;
  readonly text: string;
}

/** The cells of the columns most of whose values are numbers: a name or a street is no evidence. */
function numericColumns(rows: readonly Row[]): Cell[][] {
  const columns = new Map<string, Cell[]>();
  for (const row of rows)
    for (const [column, value] of Object.entries(row.fields)) {
      if (typeof value !== 'string' || value.trim() === '') continue;
      const text = value.trim();
      const cells = columns.get(column) ?? [];
      cells.push({ row: row.ref.index + 1, kind: NUMERIC.test(text) ? kindOf(text) : 'other', text });
      columns.set(column, cells);
    }
  return [...columns.values()].filter(
    (cells) => cells.filter((cell) => NUMERIC.test(cell.text)).length * 2 > cells.length,
  );
}

/**
 * Whether a column holds degrees written with decimal commas (`11,5134`): there `11.571` cannot be
 * the thousand `,` would read it as, so it is a decimal point the guess does not read.
 */
function degreesWithCommas(cells: readonly Cell[]): boolean {
  const commas = cells.filter((cell) => cell.kind === 'comma');
  return (
    commas.length > 0 &&
    commas.every((cell) => !cell.text.includes('.') && Math.abs(Number(cell.text.replace(',', '.'))) <= 180)
  );
}

/** The cells a decimal comma does not read: points, and in degrees `11.571` too (see degreesWithCommas). */
function unreadByComma(columns: readonly Cell[][]): Cell[] {
  return columns.flatMap((column) =>
    column.filter(
      (cell) => cell.kind === 'point' || (cell.kind === 'pointThree' && degreesWithCommas(column)),
    ),
  );
}

const rowsOf = (cells: readonly Cell[]) => [...new Set(cells.map((cell) => cell.row))].sort((a, b) => a - b);

export function guessDecimal(rows: readonly Row[]): DecimalGuess {
  const columns = numericColumns(rows);
  const cells = columns.flat();
  const of = (kind: Kind) => cells.filter((cell) => cell.kind === kind);
  const [commas, points] = [of('comma'), of('point')];
  const decimalNumbers = cells.some((cell) => cell.kind !== 'other');
  const decided = commas.length + points.length;
  const decimalComma = commas.length > 0 && commas.length >= decided * MAJORITY;
  if (decimalComma) {
    const unread = unreadByComma(columns);
    if (unread.length === 0) return { decimalComma, decimalNumbers };
    const mix = { commas: commas.length, points: unread.length, decided: true, rows: rowsOf(unread) };
    return { decimalComma, decimalNumbers, decimalMix: mix };
  }
  // A point's majority declares nothing, and a comma reads without a declared mark: nothing to say.
  if (decided === 0 || points.length >= decided * MAJORITY) return { decimalComma, decimalNumbers };
  const fewer = commas.length <= points.length ? commas : points;
  const mix = { commas: commas.length, points: points.length, decided: false, rows: rowsOf(fewer) };
  return { decimalComma, decimalNumbers, decimalMix: mix };
}

/** `rows 6, 19` or `rows 2, 3, 5, 8, 9 and 4 more`. */
function rowList(rows: readonly number[]): string {
  const shown = rows.slice(0, 5).join(', ');
  const more = rows.length > 5 ? ` and ${rows.length - 5} more` : '';
  return `${rows.length === 1 ? 'row' : 'rows'} ${shown}${more}`;
}

/** What the draft says of a mix, beside `decimal` in its input: a TODO either way. */
export function mixNote(mix: DecimalMix): string {
  if (mix.decided)
    return (
      `TODO: ${mix.points} of ${mix.commas + mix.points} numbers have a decimal point (${rowList(mix.rows)}); ` +
      'a run reports them as row errors: write them with a comma'
    );
  return (
    `TODO: mixed decimal marks, ${mix.commas} numbers with a comma and ${mix.points} with a point ` +
    `(the fewer in ${rowList(mix.rows)}), so none is guessed: set decimal to the file's mark ("," or ".") ` +
    'and write every number with it; once it is set, a run reports a number with the other as a row error'
  );
}

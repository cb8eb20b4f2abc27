/**
 * Source line numbers for CSV records, and which csv-parse skip events belong to one record.
 *
 * csv-parse's `info.lines` counts a `\r\n` inside a quoted field twice (Excel writes those), so
 * lines are counted here from each record's raw text, which is contiguous for well-formed input.
 * Only after a malformed record (whose tail csv-parse never shows) does the count resynchronise
 * from csv-parse's own, corrected by the drift measured on the last good record.
 */

const CR = 13;
const LF = 10;

/** Line breaks between `from` and `to` as an editor counts them: `\r\n`, `\n` or a lone `\r`. */
export function lineBreaks(text: string, from = 0, to = text.length): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code === LF) count++;
    else if (code === CR && (i + 1 >= to || text.charCodeAt(i + 1) !== LF)) count++;
  }
  return count;
}

/** Line-break characters in `from..to`, each counted as csv-parse counts them inside quotes. */
function breakChars(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code === LF || code === CR) count++;
  }
  return count;
}

/** Blank lines csv-parse skipped are prepended to the next record's raw text. */
function leadingBlank(raw: string): { readonly breaks: number; readonly length: number } {
  let length = 0;
  while (length < raw.length && (raw.charCodeAt(length) === LF || raw.charCodeAt(length) === CR)) length++;
  return { breaks: lineBreaks(raw, 0, length), length };
}

/** Where the record's own text ends: before the record delimiter's first character, if any. */
function bodyEnd(raw: string): number {
  const last = raw.charCodeAt(raw.length - 1);
  return last === LF || last === CR ? raw.length - 1 : raw.length;
}

export class CsvLineCounter {
  private next = 1;
  private drift = 0;
  private synced = true;

  /** Start line of a record csv-parse emitted; `parserLine` is its `info.lines` (the end line). */
  record(raw: string, parserLine: number): number {
    const blank = leadingBlank(raw);
    const body = lineBreaks(raw, blank.length, bodyEnd(raw));
    const start = this.synced ? this.next + blank.breaks : parserLine + this.drift - body;
    const end = start + body;
    this.drift = end - parserLine;
    this.next = end + 1;
    this.synced = true;
    return start;
  }

  /** Start line of a record csv-parse skipped; `parserLine` is the error's `lines`. */
  skipped(raw: string, parserLine: number): number {
    const blank = leadingBlank(raw);
    const start = this.synced
      ? this.next + blank.breaks
      : parserLine + this.drift - lineBreaks(raw, blank.length, bodyEnd(raw));
    this.synced = false;
    return start;
  }
}

/** What csv-parse tells about one error through `on_skip`. */
export interface SkipEvent {
  readonly code: string;
  readonly message: string;
  readonly raw: string;
  /** csv-parse's line count at the error. */
  readonly lines: number;
  /** Records emitted before the error (the header included). */
  readonly records: number;
}

/**
 * True when `next` is a further error inside the record `previous` was about: csv-parse reports
 * every error of a record and then drops the record, and each record must take exactly one index.
 * The raw text of one record only grows, and the lines between two of its errors are the line
 * breaks added to it; a new record restarts the raw text on a later line.
 */
export function sameRecord(previous: SkipEvent, next: SkipEvent): boolean {
  return (
    next.records === previous.records &&
    next.raw.startsWith(previous.raw) &&
    // At the end of the input csv-parse has not counted the last line break yet.
    next.lines - previous.lines === breakChars(next.raw, previous.raw.length, bodyEnd(next.raw))
  );
}

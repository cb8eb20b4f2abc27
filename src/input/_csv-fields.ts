/**
 * The CSV grammar for one physical line, continuing a quoted field left open by the line before.
 *
 * A field is quoted only when its first character is `"`. Inside it `""` is a quote, delimiters
 * are text and a line break continues the field on the next line; a quote followed by the
 * delimiter or the line end closes it. A quote anywhere else (`37°36'37.8"N`, `5'6"`) is text, as
 * Python's csv, Excel and DuckDB read it.
 */

const QUOTE = 0x22;

/** The fields of a record being read, and the text of a quoted field still open at a line end. */
export class RecordBuilder {
  fields: string[] = [];
  /** Pieces of the open quoted field, line breaks included; undefined when no field is open. */
  open: string[] | undefined;
}

/** How a line ended for the record. */
export type LineEnd = 'done' | 'open' | 'bad-close';

/**
 * Reads a quoted field's text from `from` (just after its opening quote, or the start of a
 * continuation line). Returns the index after the closing quote, or the line's end state.
 */
function closeQuoted(text: string, from: number, delimiter: number, record: RecordBuilder): number | LineEnd {
  const open = record.open as string[];
  let start = from;
  for (;;) {
    const quote = text.indexOf('"', start);
    if (quote === -1) {
      open.push(text.slice(start));
      return 'open';
    }
    const next = text.charCodeAt(quote + 1);
    if (next === QUOTE) {
      open.push(text.slice(start, quote + 1));
      start = quote + 2;
      continue;
    }
    if (quote + 1 < text.length && next !== delimiter) return 'bad-close';
    open.push(text.slice(start, quote));
    record.fields.push(open.length === 1 ? (open[0] as string) : open.join(''));
    record.open = undefined;
    return quote + 1;
  }
}

/** Adds the fields of `text` to `record`; `delimiter` is one character. */
export function scanLine(text: string, delimiter: string, record: RecordBuilder): LineEnd {
  const code = delimiter.charCodeAt(0);
  let i = 0;
  if (record.open !== undefined) {
    const end = closeQuoted(text, 0, code, record);
    if (typeof end !== 'number') return end;
    if (end === text.length) return 'done';
    i = end + 1;
  } else if (text.indexOf('"') === -1) {
    // Most lines have no quote at all.
    for (const value of text.split(delimiter)) record.fields.push(value);
    return 'done';
  }
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      record.open = [];
      const end = closeQuoted(text, i + 1, code, record);
      if (typeof end !== 'number') return end;
      if (end === text.length) return 'done';
      i = end + 1;
      continue;
    }
    const next = text.indexOf(delimiter, i);
    if (next === -1) {
      record.fields.push(text.slice(i));
      return 'done';
    }
    record.fields.push(text.slice(i, next));
    i = next + 1;
  }
}

/**
 * The fields of one malformed line for the report: quoted fields that close on the line are read
 * as such, and a quote that does not close properly is text up to the next delimiter, so that
 * the row's other columns are never blank.
 */
export function lenientFields(text: string, delimiter: string): string[] {
  const code = delimiter.charCodeAt(0);
  const record = new RecordBuilder();
  let i = 0;
  for (;;) {
    if (text.charCodeAt(i) === QUOTE) {
      record.open = [];
      const end = closeQuoted(text, i + 1, code, record);
      if (typeof end === 'number') {
        if (end === text.length) return record.fields;
        i = end + 1;
        continue;
      }
      record.open = undefined;
    }
    const next = text.indexOf(delimiter, i);
    if (next === -1) {
      record.fields.push(text.slice(i));
      return record.fields;
    }
    record.fields.push(text.slice(i, next));
    i = next + 1;
  }
}

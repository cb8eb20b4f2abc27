/**
 * Physical lines to CSV records, each good or bad taking exactly one index, in file order.
 *
 * A record may span lines only through a quoted field, and such a record is accepted only when it
 * is well formed: the field closes properly, the record has the header's number of fields, and it
 * stays within `maxRecordLines` lines and `maxRecordBytes`. Otherwise its opening quote was
 * probably a stray one, and the record costs only its first line: that line is reported whole and
 * the lines after it are read again as records. Every physical line therefore ends up in the
 * header, as a blank line, in exactly one row, or in exactly one report row. A record with no data
 * (every cell empty or white space: `;;;;`) counts as blank lines, as many as it spans.
 */
import { type GeobatchError, InputError } from '../errors.js';
import type { Fields, ReadItem, RowIssue, RowRef } from '../types.js';
import { lenientFields, RecordBuilder, scanLine } from './_csv-fields.js';
import type { InputEncoding } from './_encoding.js';
import type { Line } from './_lines.js';
import { badText, withoutBadText } from './_values.js';
import { cutRaw } from './reader.js';

export interface CsvLimits {
  /** A record's bytes: its line breaks inside quotes counted, the one that ends it not. */
  readonly maxRecordBytes: number;
  readonly maxRecordLines: number;
  /** The line number of Excel's `sep=` line (_delimiter.ts): not the header, not a row. */
  readonly separatorLine?: number;
  /** What a line's text was in the file, to measure it in bytes. @default 'utf-8' */
  readonly encoding?: InputEncoding;
}

/** The reader's view of the header and of the lines it has read. */
export interface CsvState {
  columns: readonly string[];
  blankLines: number;
  headerLines: number;
  /** The input ended inside a quoted field of its last line: cut short (RunSummary input.truncated). */
  truncated?: boolean;
}

export class CsvRecords {
  /** Lines from `start` on: the record being read, then lines to read again after a failure. */
  private queue: Line[] = [];
  private start = 0;
  /** Lines of the queue taken into the record so far. */
  private used = 0;
  /** Bytes of a record that spans lines, so far (a line alone is bounded by _lines.ts). */
  private bytes = 0;
  private record = new RecordBuilder();
  private index = 0;
  private header = false;
  /** Lines before the header that are not data: Excel's `sep=` line. */
  private skipped = 0;

  constructor(
    private readonly delimiter: string,
    private readonly limits: CsvLimits,
    private readonly state: CsvState,
    private readonly onWarning: (message: string) => void,
  ) {}

  /** Takes one line; pushes onto `out` the items it completes. */
  push(line: Line, out: ReadItem[]): void {
    this.queue.push(line);
    this.run(out, false);
  }

  /** The end of the input: a quote still open there never closes. */
  end(out: ReadItem[]): void {
    this.run(out, true);
  }

  private run(out: ReadItem[], final: boolean): void {
    for (;;) {
      const at = this.start + this.used;
      if (at === this.queue.length) {
        if (final && this.used > 0) {
          this.fail(out, 'is never closed');
          continue;
        }
        break;
      }
      const line = this.queue[at] as Line;
      if (!this.header && line.line === this.limits.separatorLine) {
        this.skipped = 1;
        this.advance(1);
        continue;
      }
      if (this.used === 0 && line.kind === 'text' && line.text === '') {
        this.state.blankLines++;
        this.advance(1);
        continue;
      }
      if (line.kind === 'cut') {
        if (this.used === 0) this.oversized(out, line);
        else
          this.fail(
            out,
            `runs into line ${line.line}, which is longer than maxRecordBytes (${this.limits.maxRecordBytes})`,
          );
        continue;
      }
      this.take(line, out);
    }
    if (this.start === this.queue.length) {
      this.queue = [];
      this.start = 0;
    } else if (this.start >= 1024) {
      // Failures can keep the queue from ever emptying: drop the lines already done with.
      this.queue = this.queue.slice(this.start);
      this.start = 0;
    }
  }

  private take(line: Line & { kind: 'text' }, out: ReadItem[]): void {
    this.used++;
    const end = scanLine(line.text, this.delimiter, this.record);
    const max = this.limits.maxRecordBytes;
    if (end === 'done') {
      // Checked on the closing line too: the open lines before it may hold up to the limit.
      if (this.used > 1) this.bytes += this.bytesOf(line.text);
      if (this.bytes > max)
        this.fail(
          out,
          `runs to line ${line.line} into a record of ${this.bytes} bytes, more than maxRecordBytes (${max})`,
        );
      else this.complete(out);
    } else if (end === 'bad-close')
      this.fail(
        out,
        this.used === 1
          ? undefined
          : `is closed on line ${line.line} by a quote not followed by a delimiter or line end`,
      );
    else if (line.eol === '') {
      // The input ends inside a quoted field with no line break after it: a file cut short
      // (a download, a disk that filled), not a stray quote of a whole file, whose last line
      // ends with its line break. Said as GeoJSON's cut is: the run ends with exit 4.
      if (this.used === 1 && this.header) this.state.truncated = true;
      this.fail(
        out,
        this.used === 1 && this.header
          ? 'is never closed: the input ends inside it (was the file cut short?)'
          : 'is never closed',
      );
    } else {
      (this.record.open as string[]).push(line.eol);
      this.bytes += this.bytesOf(line.text) + line.eol.length;
      if (this.used >= this.limits.maxRecordLines)
        this.fail(out, `is still open after ${this.used} lines (maxRecordLines)`);
      else if (this.bytes > max)
        this.fail(out, `is still open after ${this.bytes} bytes, more than maxRecordBytes (${max})`);
    }
  }

  /** The text's size in the file: one byte a character but in UTF-8 (as _lines.ts measures). */
  private bytesOf(text: string): number {
    const utf8 = (this.limits.encoding ?? 'utf-8') === 'utf-8';
    return utf8 ? Buffer.byteLength(text, 'utf8') : text.length;
  }

  private complete(out: ReadItem[]): void {
    const first = this.queue[this.start] as Line;
    const last = this.queue[this.start + this.used - 1] as Line;
    const values = this.record.fields;
    const columns = this.state.columns;
    if (this.header && values.length !== columns.length && this.used > 1) {
      this.fail(
        out,
        `runs to line ${last.line} into a record of ${values.length} fields, not ${columns.length} as in the header`,
      );
      return;
    }
    if (emptyRecord(values)) {
      // `;;;;`: the formatted but empty rows Excel writes at a sheet's end (or above its table).
      // Nothing to read: skipped as a blank line is, before the header too, and counted with them.
      this.state.blankLines += this.used;
      this.advance(this.used);
      return;
    }
    if (!this.header) {
      jsonHeader(first);
      // A name no output can carry (a GeoPackage's SQL ends it there): the header is damaged.
      const nul = values.findIndex((name) => name.includes('\0'));
      if (nul !== -1) throw headerError(`column ${nul + 1} holds a NUL character (\\u0000)`, first.line);
      this.header = true;
      this.state.columns = columnNames(values, this.onWarning);
      this.state.headerLines = this.skipped + this.used;
      this.advance(this.used);
      return;
    }
    const ref: RowRef =
      last.line > first.line
        ? { index: this.index++, line: first.line, lastLine: last.line }
        : { index: this.index++, line: first.line };
    if (values.length === columns.length) out.push(this.row(ref, toFields(values, columns)));
    else
      out.push(
        issue(
          ref,
          `expected ${columns.length} fields (as in the header), got ${values.length}`,
          (first as Line & { kind: 'text' }).text,
          toFields(values, columns),
        ),
      );
    this.advance(this.used);
  }

  /**
   * A complete record as a row, unless a field holds a NUL (the zero bytes of a damaged file past
   * the start the binary check reads): GeoPackage readers end its text there, so it fails, naming
   * the column, and the record's other fields stay with it. One search of the line for it.
   */
  private row(ref: RowRef, fields: Fields): ReadItem {
    for (let i = this.start; i < this.start + this.used; i++) {
      const line = this.queue[i] as Line & { kind: 'text' };
      if (!line.text.includes('\0')) continue;
      const bad = badText(fields, 'column');
      if (bad === undefined) break;
      const raw = (this.queue[this.start] as Line & { kind: 'text' }).text;
      return { ...issue(ref, bad.message, raw, withoutBadText(fields)), field: bad.field };
    }
    return { kind: 'row', ref, fields };
  }

  /**
   * The record starting at the queue's head is malformed: report its first line alone and read
   * the lines after it again. `quote` says what went wrong with a quote opened on that line.
   */
  private fail(out: ReadItem[], quote: string | undefined): void {
    const first = this.queue[this.start] as Line & { kind: 'text' };
    const what =
      quote === undefined
        ? 'a closing quote not followed by a delimiter or line end'
        : `the quoted field opened on this line ${quote}`;
    if (!this.header) {
      jsonHeader(first);
      throw headerError(what, first.line);
    }
    const why = quote === undefined ? what : `${what}; only this line is reported`;
    const fields = toFields(lenientFields(first.text, this.delimiter), this.state.columns);
    out.push(issue({ index: this.index++, line: first.line }, why, first.text, fields));
    this.advance(1);
  }

  private oversized(out: ReadItem[], line: Line & { kind: 'cut' }): void {
    const why = `the line is ${line.bytes} bytes long, more than maxRecordBytes (${this.limits.maxRecordBytes}); it was skipped`;
    if (!this.header) throw headerError(why, line.line);
    out.push(issue({ index: this.index++, line: line.line }, why, cutRaw(line.head, line.bytes, line.whole)));
    this.advance(1);
  }

  private advance(lines: number): void {
    this.start += lines;
    this.used = 0;
    this.bytes = 0;
    if (this.record.fields.length > 0 || this.record.open !== undefined) this.record = new RecordBuilder();
  }
}

/** Every cell empty or only white space (`;;;;`, `"";""`, a line of spaces): no data at all. */
function emptyRecord(values: readonly string[]): boolean {
  for (const value of values) if (value.trim() !== '') return false;
  return true;
}

function toFields(values: readonly string[], columns: readonly string[]): Fields {
  // A plain object keeps V8's fast properties; `__proto__` never gets here (columnNames renames it).
  const fields: Fields = {};
  const n = Math.min(values.length, columns.length);
  for (let i = 0; i < n; i++) fields[columns[i] as string] = values[i] as string;
  return fields;
}

function issue(ref: RowRef, why: string, raw: string, fields?: Fields): RowIssue {
  return {
    kind: 'issue',
    ref,
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `Malformed CSV record: ${why}`,
    raw,
    ...(fields === undefined ? {} : { fields }),
  };
}

/**
 * JSON read as CSV (NDJSON piped in without --input-format, a file named .csv): compact JSON
 * (`{"id":1,"lon":13.4}`, as jq -c and geobatch write it) failed as "a closing quote not followed
 * by a delimiter", spaced JSON as a header of JSON fragments that no mapping found; neither said
 * what was wrong. A first line that opens an object with a key, or an array of objects, is JSON:
 * a header whose first column is `{id}` is not.
 */
function jsonHeader(line: Line): void {
  if (line.kind !== 'text') return;
  const text = line.text.trimStart();
  const object = /^\{\s*("|$)/.test(text);
  const array = /^\[\s*(\{|$)/.test(text);
  if (!object && !array) return;
  const shown = text.length > 40 ? `${text.slice(0, 40)}...` : text;
  throw new InputError(
    'INPUT_MALFORMED',
    `The input reads as JSON, not CSV: its first line starts \`${shown}\``,
    {
      row: 0,
      field: 'input.format',
      detail: { line: line.line },
      expected: 'a CSV header, or the input format named',
      received: 'csv',
      hint: array
        ? 'Give --input-format geojson (or `input: { format: geojson }` in the job file) for a GeoJSON FeatureCollection; a JSON array of records, written one object a line, is NDJSON.'
        : 'Give --input-format ndjson for one JSON object a line, or geojson for a FeatureCollection (or `input: { format: ... }` in the job file), or name the file .ndjson / .geojson.',
    },
  );
}

function headerError(why: string, line: number): GeobatchError {
  return new InputError('INPUT_MALFORMED', `Cannot read the CSV header (line ${line}): ${why}`, {
    row: 0,
    detail: { line },
    hint: 'The first line must hold the column names.',
  });
}

/**
 * Empty names become `column_<n>`, repeated ones get `_2`, `_3`...: no field may hide another. A
 * made-up name is never one the header has elsewhere: in `lon,lon,lon_2` the second `lon` is read
 * as `lon_3`, so a mapping to `lon_2` still reads the column written so.
 */
export function columnNames(header: readonly string[], onWarning: (message: string) => void): string[] {
  const written = new Set(header);
  const used = new Set<string>();
  return header.map((raw, i) => {
    const base = raw === '' || raw === '__proto__' ? `column_${i + 1}` : raw;
    const taken = (name: string) => used.has(name) || (name !== raw && written.has(name));
    let name = base;
    for (let n = 2; taken(name); n++) name = `${base}_${n}`;
    const why = raw === '__proto__' ? ' (a name no field can have here)' : '';
    if (name !== raw)
      onWarning(`CSV header column ${i + 1} (${JSON.stringify(raw)}) is read as ${name}${why}`);
    used.add(name);
    return name;
  });
}

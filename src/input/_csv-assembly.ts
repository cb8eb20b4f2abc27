/**
 * Turns what csv-parse emits (records in band, skip events out of band) into read items in file
 * order, each record good or bad taking exactly one index.
 */
import { GeobatchError } from '../errors.js';
import type { Fields, ReadItem, RowIssue, RowRef } from '../types.js';
import { CsvLineCounter, type SkipEvent, sameRecord } from './_csv-lines.js';
import { clipRaw } from './reader.js';

/** A record as csv-parse gives it with `raw` on, plus its counters at the time it was pushed. */
export interface ParsedRecord {
  readonly record: string[];
  readonly raw: string;
  /** csv-parse's line count at the record's end. */
  readonly lines: number;
  /** Records emitted so far, this one and the header included. */
  readonly records: number;
}

const SKIP_MESSAGES: Readonly<Record<string, string>> = {
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote not followed by a delimiter or line end',
  CSV_QUOTE_NOT_CLOSED: 'a quote that is never closed (the record runs to the end of the input)',
};

interface Held {
  readonly first: SkipEvent;
  last: SkipEvent;
  readonly ref: RowRef;
}

export class CsvAssembly {
  private readonly lines = new CsvLineCounter();
  private index = 0;
  // A skipped record is held until the next event shows it complete: its last error shows the most text.
  private held: Held | undefined;

  constructor(
    private readonly skips: SkipEvent[],
    private readonly header: { columns: readonly string[] },
    private readonly onWarning: (message: string) => void,
  ) {}

  holding(): boolean {
    return this.held !== undefined;
  }

  /** Issues for the records csv-parse skipped before record number `records` (1-based, header included). */
  before(records: number): RowIssue[] {
    const issues: RowIssue[] = [];
    while (this.skips.length > 0 && (this.skips[0] as SkipEvent).records < records) {
      const skip = this.skips.shift() as SkipEvent;
      if (skip.records === 0) throw headerError(skip);
      if (this.held !== undefined && sameRecord(this.held.last, skip)) {
        this.held.last = skip;
        continue;
      }
      this.release(issues);
      this.held = {
        first: skip,
        last: skip,
        ref: { index: this.index++, line: this.lines.skipped(skip.raw, skip.lines) },
      };
    }
    // A record (or the end) follows: whatever is held is complete.
    this.release(issues);
    return issues;
  }

  /** The item for a record csv-parse emitted; undefined for the header, which sets the columns. */
  record(parsed: ParsedRecord): ReadItem | undefined {
    const line = this.lines.record(parsed.raw, parsed.lines);
    if (parsed.records === 1) {
      this.header.columns = columnNames(parsed.record, this.onWarning);
      return undefined;
    }
    return toItem(parsed, { index: this.index++, line }, this.header.columns);
  }

  private release(into: RowIssue[]): void {
    if (this.held !== undefined) into.push(malformed(this.held));
    this.held = undefined;
  }
}

function toItem(parsed: ParsedRecord, ref: RowRef, columns: readonly string[]): ReadItem {
  const values = parsed.record;
  // A plain object keeps V8's fast properties; `__proto__` never gets here (columnNames renames it).
  const fields: Fields = {};
  const n = Math.min(values.length, columns.length);
  for (let i = 0; i < n; i++) fields[columns[i] as string] = values[i] as string;
  if (values.length === columns.length) return { kind: 'row', ref, fields };
  return {
    kind: 'issue',
    ref,
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `Malformed CSV record: expected ${columns.length} fields (as in the header), got ${values.length}`,
    raw: clipRaw(parsed.raw.replace(/[\r\n]+$/, '')),
    fields,
  };
}

/** The first error names the problem; the last one's raw text shows the most of the record. */
function malformed(held: Held): RowIssue {
  return {
    kind: 'issue',
    ref: held.ref,
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `Malformed CSV record: ${SKIP_MESSAGES[held.first.code] ?? held.first.message}`,
    raw: clipRaw(held.last.raw.replace(/^[\r\n]+/, '')),
  };
}

function headerError(skip: SkipEvent): GeobatchError {
  return new GeobatchError(
    'INPUT_MALFORMED',
    `Cannot read the CSV header: ${SKIP_MESSAGES[skip.code] ?? skip.message}`,
    {
      row: 0,
      hint: 'The first line must hold the column names.',
    },
  );
}

/** Empty names become `column_<n>`, repeated ones get `_2`, `_3`...: no field may hide another. */
export function columnNames(header: readonly string[], onWarning: (message: string) => void): string[] {
  const seen = new Set<string>();
  return header.map((raw, i) => {
    let name = raw === '' || raw === '__proto__' ? `column_${i + 1}` : raw;
    for (let n = 2; seen.has(name); n++) name = `${raw}_${n}`;
    if (name !== raw) onWarning(`CSV header column ${i + 1} (${JSON.stringify(raw)}) is read as ${name}`);
    seen.add(name);
    return name;
  });
}

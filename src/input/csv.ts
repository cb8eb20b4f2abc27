/**
 * CSV through csv-parse: header row, detected delimiter, quotes, BOM, utf-8 or windows-1252.
 * A malformed record becomes a RowIssue and reading goes on; good or bad, every record takes
 * exactly one index.
 */
import { once } from 'node:events';
import { type Parser, parse } from 'csv-parse';
import { GeobatchError } from '../errors.js';
import type { Fields, ReadItem, RowIssue } from '../types.js';
import { CsvLineCounter, type SkipEvent, sameRecord } from './_csv-lines.js';
import { type CsvDelimiter, detectDelimiter } from './_delimiter.js';
import type { ByteSource } from './_source.js';
import { decodeText, effectiveEncoding, type InputEncoding, withFirst } from './_text.js';
import { clipRaw } from './reader.js';

export interface CsvSettings {
  readonly delimiter: CsvDelimiter | 'auto';
  readonly relaxQuotes: boolean;
  readonly maxFieldBytes: number;
  readonly encoding: InputEncoding;
  readonly onWarning: (message: string) => void;
}

/** What csv-parse gives per record with `info` and `raw` on. */
interface ParsedRecord {
  readonly record: string[];
  readonly raw: string;
  readonly info: { readonly lines: number; readonly records: number };
}

/** The reader's view of the header, filled once it is read. */
export interface CsvHeader {
  columns: readonly string[];
}

export async function* readCsv(
  source: ByteSource,
  settings: CsvSettings,
  header: CsvHeader,
): AsyncGenerator<ReadItem> {
  const chunks = source.chunks[Symbol.asyncIterator]();
  const first = await chunks.next();
  const head = first.done ? undefined : first.value;
  const encoding = effectiveEncoding(head, settings.encoding, settings.onWarning);
  const delimiter =
    settings.delimiter === 'auto' ? detectDelimiter(head ?? Buffer.alloc(0)) : settings.delimiter;
  const skips: SkipEvent[] = [];
  const parser = parse({
    delimiter,
    bom: true,
    relax_quotes: settings.relaxQuotes,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    info: true,
    raw: true,
    on_skip: (err, raw) => {
      skips.push(skipEvent(err, raw));
      return undefined;
    },
  });
  const stop = new AbortController();
  const bytes = withFirst(head, chunks);
  feed(parser, encoding === 'utf-8' ? bytes : reencode(decodeText(bytes, encoding)), settings, stop.signal);
  try {
    yield* records(parser, skips, settings, header);
  } finally {
    stop.abort();
    parser.destroy();
  }
}

async function* records(
  parser: Parser,
  skips: SkipEvent[],
  settings: CsvSettings,
  header: CsvHeader,
): AsyncGenerator<ReadItem> {
  const lines = new CsvLineCounter();
  let index = 0;
  // A skipped record is held until the next event shows it is complete: its last error carries the most text.
  let held: { first: SkipEvent; last: SkipEvent; ref: { index: number; line: number } } | undefined;
  function* release(): Generator<RowIssue> {
    if (held !== undefined) yield malformed(held.ref, held.first, held.last);
    held = undefined;
  }
  // Skip events arrive out of band; `records` places each one after the records emitted before it.
  function* skipsBefore(records: number): Generator<RowIssue> {
    while (skips.length > 0 && (skips[0] as SkipEvent).records < records) {
      const skip = skips.shift() as SkipEvent;
      if (skip.records === 0) throw headerError(skip);
      if (held !== undefined && sameRecord(held.last, skip)) {
        held.last = skip;
        continue;
      }
      yield* release();
      held = { first: skip, last: skip, ref: { index: index++, line: lines.skipped(skip.raw, skip.lines) } };
    }
  }
  for await (const parsed of parser as AsyncIterable<ParsedRecord>) {
    yield* skipsBefore(parsed.info.records);
    yield* release();
    const line = lines.record(parsed.raw, parsed.info.lines);
    if (parsed.info.records === 1) header.columns = columnNames(parsed.record, settings.onWarning);
    else yield toItem(parsed, index++, line, header.columns);
  }
  yield* skipsBefore(Number.POSITIVE_INFINITY);
  yield* release();
}

function toItem(parsed: ParsedRecord, index: number, line: number, columns: readonly string[]): ReadItem {
  const values = parsed.record;
  const fields: Fields = Object.create(null);
  const n = Math.min(values.length, columns.length);
  for (let i = 0; i < n; i++) fields[columns[i] as string] = values[i] as string;
  if (values.length === columns.length) return { kind: 'row', ref: { index, line }, fields };
  return {
    kind: 'issue',
    ref: { index, line },
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `Malformed CSV record: expected ${columns.length} fields (as in the header), got ${values.length}`,
    raw: clipRaw(parsed.raw.replace(/[\r\n]+$/, '')),
    fields,
  };
}

const SKIP_MESSAGES: Readonly<Record<string, string>> = {
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted field',
  CSV_INVALID_CLOSING_QUOTE: 'a closing quote not followed by a delimiter or line end',
  CSV_QUOTE_NOT_CLOSED: 'a quote that is never closed (the record runs to the end of the input)',
};

/** The first error names the problem; the last one's raw text shows the most of the record. */
function malformed(ref: { index: number; line: number }, first: SkipEvent, last: SkipEvent): RowIssue {
  const what = SKIP_MESSAGES[first.code] ?? first.message;
  return {
    kind: 'issue',
    ref,
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `Malformed CSV record: ${what}`,
    raw: clipRaw(last.raw.replace(/^[\r\n]+/, '')),
  };
}

function skipEvent(err: unknown, raw: string | undefined): SkipEvent {
  const e = err as { code?: string; message?: string; lines?: number; records?: number };
  return {
    code: e.code ?? 'UNKNOWN',
    message: e.message ?? String(err),
    raw: raw ?? '',
    lines: e.lines ?? 0,
    records: e.records ?? 0,
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

async function* reencode(texts: AsyncIterable<string>): AsyncGenerator<Buffer> {
  for await (const text of texts) yield Buffer.from(text, 'utf8');
}

/** Writes the bytes into the parser with backpressure; a failure ends the parser with that error. */
function feed(
  parser: Parser,
  bytes: AsyncIterable<Buffer>,
  settings: CsvSettings,
  signal: AbortSignal,
): void {
  void (async () => {
    let fed = 0;
    try {
      for await (const chunk of bytes) {
        if (signal.aborted) return;
        fed += chunk.length;
        // info.bytes moves at every field boundary, so this is the length of the open field.
        if (fed - parser.info.bytes > settings.maxFieldBytes) throw fieldTooLong(settings.maxFieldBytes);
        if (!parser.write(chunk)) await once(parser, 'drain', { signal });
      }
      parser.end();
    } catch (cause) {
      if (!signal.aborted) parser.destroy(cause as Error);
    }
  })();
}

function fieldTooLong(limit: number): GeobatchError {
  return new GeobatchError('INPUT_MALFORMED', `A CSV field is longer than ${limit} bytes`, {
    hint: 'A quote is probably never closed; fix the input or raise maxFieldBytes.',
  });
}

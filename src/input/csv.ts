/**
 * CSV through csv-parse: header row, detected delimiter, quotes, BOM, utf-8 or windows-1252.
 * A malformed record becomes a RowIssue and reading goes on; good or bad, every record takes
 * exactly one index.
 */
import { once } from 'node:events';
import { type Options, Parser } from 'csv-parse';
import { GeobatchError } from '../errors.js';
import type { ReadItem } from '../types.js';
import { CsvAssembly, type ParsedRecord } from './_csv-assembly.js';
import type { SkipEvent } from './_csv-lines.js';
import { type CsvDelimiter, detectDelimiter } from './_delimiter.js';
import type { ByteSource } from './_source.js';
import { decodeText, effectiveEncoding, type InputEncoding, withFirst } from './_text.js';

export interface CsvSettings {
  readonly delimiter: CsvDelimiter | 'auto';
  readonly relaxQuotes: boolean;
  readonly maxFieldBytes: number;
  readonly encoding: InputEncoding;
  readonly onWarning: (message: string) => void;
}

/** The reader's view of the header, filled once it is read. */
export interface CsvHeader {
  columns: readonly string[];
}

/**
 * csv-parse's `info` option copies its counters into every record, which costs more than the
 * parsing itself; the same counters are read here, live, when each record is pushed.
 */
class CountingParser extends Parser {
  constructor(options: Options) {
    super(options);
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk !== null && typeof chunk === 'object')
      Object.assign(chunk, { lines: this.info.lines, records: this.info.records });
    return super.push(chunk, encoding);
  }
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
  const parser = new CountingParser({
    delimiter,
    bom: true,
    relax_quotes: settings.relaxQuotes,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    raw: true,
    on_skip: (err, raw) => {
      skips.push(skipEvent(err, raw));
      return undefined;
    },
  });
  const stop = new AbortController();
  const bytes = withFirst(head, chunks);
  feed(parser, encoding === 'utf-8' ? bytes : reencode(decodeText(bytes, encoding)), settings, stop.signal);
  const assembly = new CsvAssembly(skips, header, settings.onWarning);
  try {
    for await (const parsed of parser as AsyncIterable<ParsedRecord>) {
      // Only a record after a malformed one has issues to let out first.
      if (skips.length > 0 || assembly.holding())
        for (const issue of assembly.before(parsed.records)) yield issue;
      const item = assembly.record(parsed);
      if (item !== undefined) yield item;
    }
    for (const issue of assembly.before(Number.POSITIVE_INFINITY)) yield issue;
  } finally {
    stop.abort();
    parser.destroy();
  }
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

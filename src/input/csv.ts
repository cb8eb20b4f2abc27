/**
 * CSV: a header record, then records, read from bounded physical lines by the grammar in
 * `_csv-fields.ts` and assembled, with recovery from stray quotes, in `_csv-records.ts`. A
 * malformed record becomes a RowIssue and reading goes on; good or bad, every record takes
 * exactly one index.
 */
import { BATCH_ITEMS } from '../batches.js';
import type { ReadItem } from '../types.js';
import { CsvRecords, type CsvState } from './_csv-records.js';
import type { Sniffed } from './_encoding.js';
import { readLines } from './_lines.js';
import { ByteReach, handedOn, type ReadPosition, unread } from './reader.js';

export type { CsvState } from './_csv-records.js';

export interface CsvSettings {
  /** One character. */
  readonly delimiter: string;
  readonly maxRecordBytes: number;
  readonly maxRecordLines: number;
  /** The line number of Excel's `sep=` line (_delimiter.ts): not the header, not a row. */
  readonly separatorLine?: number;
  readonly onWarning: (message: string) => void;
}

/** The records, in arrays of at most BATCH_ITEMS (see batches.ts). */
export async function* readCsv(
  chunks: AsyncIterable<Buffer>,
  sniffed: Sniffed,
  settings: CsvSettings,
  state: CsvState & { lines: number; position?: ReadPosition },
): AsyncGenerator<readonly ReadItem[]> {
  const limits = { ...settings, encoding: sniffed.encoding };
  const records = new CsvRecords(settings.delimiter, limits, state, settings.onWarning);
  const position = state.position ?? unread();
  const reach = new ByteReach();
  for await (const batch of lines(chunks, sniffed, settings, reach)) {
    let out: ReadItem[] = [];
    for (const line of batch) {
      records.push(line, out);
      state.lines = line.line;
      if (out.length >= BATCH_ITEMS) {
        yield handedOn(out, position, reach);
        out = [];
      }
    }
    if (out.length > 0) yield handedOn(out, position, reach);
  }
  const out: ReadItem[] = [];
  records.end(out);
  // The last records are known: the count is the input's before they leave.
  if (out.length > 0) handedOn(out, position, reach);
  position.bytes = reach.bytes;
  position.ended = true;
  if (out.length > 0) yield out;
}

function lines(chunks: AsyncIterable<Buffer>, sniffed: Sniffed, settings: CsvSettings, reach: ByteReach) {
  return readLines(
    chunks,
    { encoding: sniffed.encoding, bom: sniffed.bom, maxLineBytes: settings.maxRecordBytes, crLines: true },
    reach,
  );
}

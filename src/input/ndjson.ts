/**
 * NDJSON: one JSON object per line. A line that is not JSON, not an object, or longer than
 * `maxRecordBytes` becomes a RowIssue and reading goes on. Blank lines are skipped and take no
 * index (their line numbers still count).
 */
import type { ReadItem, RowRef } from '../types.js';
import type { Sniffed } from './_encoding.js';
import { readLines } from './_lines.js';
import { isPlainObject, toFields } from './_values.js';
import { cutRaw } from './reader.js';

export interface JsonState {
  columns: readonly string[];
  lines: number;
  blankLines: number;
}

export async function* readNdjson(
  chunks: AsyncIterable<Buffer>,
  sniffed: Sniffed,
  maxRecordBytes: number,
  state: JsonState,
): AsyncGenerator<ReadItem> {
  let index = 0;
  const lines = readLines(chunks, {
    encoding: sniffed.encoding,
    bom: sniffed.bom,
    maxLineBytes: maxRecordBytes,
    crLines: false,
  });
  for await (const batch of lines) {
    for (const line of batch) {
      state.lines = line.line;
      if (line.kind === 'cut') {
        const message = `NDJSON line of ${line.bytes} bytes is longer than maxRecordBytes (${maxRecordBytes}); it was skipped`;
        yield issue({ index: index++, line: line.line }, message, cutRaw(line.head, line.bytes));
        continue;
      }
      const { text } = line;
      if (text.trim() === '') {
        state.blankLines++;
        continue;
      }
      yield item(text, { index: index++, line: line.line }, state);
    }
  }
}

function item(text: string, ref: RowRef, state: JsonState): ReadItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return issue(ref, `Malformed NDJSON line: ${(cause as Error).message}`, text);
  }
  if (!isPlainObject(value))
    return issue(ref, `Malformed NDJSON line: expected a JSON object, got ${kindOf(value)}`, text);
  const fields = toFields(value);
  if (state.columns.length === 0) state.columns = Object.keys(fields);
  return { kind: 'row', ref, fields };
}

function issue(ref: RowRef, message: string, raw: string): ReadItem {
  return { kind: 'issue', ref, stage: 'input', code: 'INPUT_MALFORMED', message, raw };
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * NDJSON: one JSON object per line. A line that is not JSON, or not an object, becomes a RowIssue
 * and reading goes on. Blank lines are skipped and take no index (their line numbers still count).
 */
import type { ReadItem } from '../types.js';
import type { ByteSource } from './_source.js';
import { decodeText, effectiveEncoding, type InputEncoding, splitLines, withFirst } from './_text.js';
import { isPlainObject, toFields } from './_values.js';
import { clipRaw } from './reader.js';

export interface JsonHeader {
  columns: readonly string[];
}

export async function* readNdjson(
  source: ByteSource,
  declared: InputEncoding,
  onWarning: (message: string) => void,
  header: JsonHeader,
): AsyncGenerator<ReadItem> {
  const chunks = source.chunks[Symbol.asyncIterator]();
  const first = await chunks.next();
  const head = first.done ? undefined : first.value;
  const encoding = effectiveEncoding(head, declared, onWarning);
  let index = 0;
  for await (const { text, line } of splitLines(decodeText(withFirst(head, chunks), encoding))) {
    if (text.trim() === '') continue;
    const ref = { index: index++, line };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (cause) {
      yield issue(ref, `Malformed NDJSON line: ${(cause as Error).message}`, text);
      continue;
    }
    if (!isPlainObject(value)) {
      yield issue(ref, `Malformed NDJSON line: expected a JSON object, got ${kindOf(value)}`, text);
      continue;
    }
    const fields = toFields(value);
    if (header.columns.length === 0) header.columns = Object.keys(fields);
    yield { kind: 'row', ref, fields };
  }
}

function issue(ref: { index: number; line: number }, message: string, raw: string): ReadItem {
  return { kind: 'issue', ref, stage: 'input', code: 'INPUT_MALFORMED', message, raw: clipRaw(raw) };
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * NDJSON: one JSON object per line. A line that is not JSON, not an object, or longer than
 * `maxRecordBytes` becomes a RowIssue and reading goes on. Blank lines are skipped and take no
 * index (their line numbers still count).
 */
import { BATCH_ITEMS } from '../batches.js';
import type { ReadItem, RowRef } from '../types.js';
import type { Sniffed } from './_encoding.js';
import { featureToItem } from './_feature.js';
import { mayHoldNumberText, numbersExact, parseKeepingNumbers } from './_json-numbers.js';
import { type Line, readLines } from './_lines.js';
import { exactFields, isPlainObject, loneSurrogate, toFields } from './_values.js';
import { cutRaw } from './reader.js';

export interface JsonState {
  columns: readonly string[];
  lines: number;
  blankLines: number;
}

/** The lines' items, in arrays of at most BATCH_ITEMS (see batches.ts). */
export async function* readNdjson(
  chunks: AsyncIterable<Buffer>,
  sniffed: Sniffed,
  maxRecordBytes: number,
  state: JsonState,
): AsyncGenerator<readonly ReadItem[]> {
  const counter = { index: 0 };
  for await (const batch of lines(chunks, sniffed, maxRecordBytes)) {
    let out: ReadItem[] = [];
    for (const line of batch) {
      state.lines = line.line;
      const read = fromLine(line, maxRecordBytes, state, counter);
      if (read === undefined) continue;
      out.push(read);
      if (out.length >= BATCH_ITEMS) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  }
}

function lines(chunks: AsyncIterable<Buffer>, sniffed: Sniffed, maxRecordBytes: number) {
  return readLines(chunks, {
    encoding: sniffed.encoding,
    bom: sniffed.bom,
    maxLineBytes: maxRecordBytes,
    crLines: false,
  });
}

/** A line's item; undefined for a blank line (counted, no index). */
function fromLine(
  line: Line,
  maxRecordBytes: number,
  state: JsonState,
  counter: { index: number },
): ReadItem | undefined {
  if (line.kind === 'cut') {
    const message = `NDJSON line of ${line.bytes} bytes is longer than maxRecordBytes (${maxRecordBytes}); it was skipped`;
    return issue(
      { index: counter.index++, line: line.line },
      message,
      cutRaw(line.head, line.bytes, line.whole),
    );
  }
  const { text } = line;
  if (text.trim() === '') {
    state.blankLines++;
    return undefined;
  }
  return item(text, { index: counter.index++, line: line.line }, state);
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
  if (value.type === 'Feature' && 'geometry' in value) return featureLine(text, value, ref, state);
  const fields =
    (mayHoldNumberText(text) ? undefined : exactFields(value)) ??
    toFields(parseKeepingNumbers(text) as Record<string, unknown>);
  // A decoded line holds no lone surrogate: only a `\u` escape can make one.
  if (text.includes('\\u')) {
    const lone = loneSurrogate(fields, 'field');
    if (lone !== undefined) return issue(ref, `Malformed NDJSON line: ${lone.message}`, text, lone.field);
  }
  if (state.columns.length === 0) state.columns = Object.keys(fields);
  return { kind: 'row', ref, fields };
}

/**
 * Newline-delimited GeoJSON (`.geojsonl`, GeoJSONSeq without its separators): a line that is a
 * Feature is read as a GeoJSON feature is, its properties the row's fields and its geometry the
 * job's. Properties keep their numbers as written; coordinates stay numbers.
 */
function featureLine(text: string, value: Record<string, unknown>, ref: RowRef, state: JsonState): ReadItem {
  const { properties } = value;
  const exact = !mayHoldNumberText(text) && (properties === null || numbersExact(properties));
  const kept = exact
    ? value
    : { ...value, properties: (parseKeepingNumbers(text) as Record<string, unknown>).properties };
  const read = featureToItem(kept, ref);
  if (read.kind === 'issue') return { ...read, raw: text };
  if (state.columns.length === 0) state.columns = Object.keys(read.fields);
  return read;
}

function issue(ref: RowRef, message: string, raw: string, field?: string): ReadItem {
  const item = { kind: 'issue', ref, stage: 'input', code: 'INPUT_MALFORMED', message, raw } as const;
  return field === undefined ? item : { ...item, field };
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

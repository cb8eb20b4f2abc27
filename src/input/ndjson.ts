/**
 * NDJSON: one JSON object per line. A line that is not JSON, not an object, or longer than
 * `maxRecordBytes` becomes a RowIssue and reading goes on. Blank lines are skipped and take no
 * index (their line numbers still count).
 */
import { BATCH_ITEMS } from '../batches.js';
import type { Fields, ReadItem, RowRef } from '../types.js';
import type { Sniffed } from './_encoding.js';
import { featureToItem } from './_feature.js';
import { mayHoldNumberText, numbersExact, parseKeepingNumbers } from './_json-numbers.js';
import { type Line, readLines } from './_lines.js';
import { nestsTooDeep, TOO_DEEP } from './_nesting.js';
import { badText, exactFields, isPlainObject, toFields, withoutBadText } from './_values.js';
import { ByteReach, cutRaw, handedOn, type ReadPosition, unread } from './reader.js';

export interface JsonState {
  columns: readonly string[];
  lines: number;
  blankLines: number;
  position?: ReadPosition;
  /** The input ended inside its last line (RunSummary input.truncated). */
  truncated?: boolean;
}

/** The lines' items, in arrays of at most BATCH_ITEMS (see batches.ts). */
export async function* readNdjson(
  chunks: AsyncIterable<Buffer>,
  sniffed: Sniffed,
  maxRecordBytes: number,
  state: JsonState,
): AsyncGenerator<readonly ReadItem[]> {
  const counter = { index: 0 };
  const position = state.position ?? unread();
  const reach = new ByteReach();
  for await (const batch of lines(chunks, sniffed, maxRecordBytes, reach)) {
    let out: ReadItem[] = [];
    for (const line of batch) {
      state.lines = line.line;
      const read = fromLine(line, maxRecordBytes, state, counter);
      if (read === undefined) continue;
      out.push(read);
      if (out.length >= BATCH_ITEMS) {
        yield handedOn(out, position, reach);
        out = [];
      }
    }
    if (out.length > 0) yield handedOn(out, position, reach);
  }
  position.bytes = reach.bytes;
  position.ended = true;
}

function lines(chunks: AsyncIterable<Buffer>, sniffed: Sniffed, maxRecordBytes: number, reach: ByteReach) {
  return readLines(
    chunks,
    { encoding: sniffed.encoding, bom: sniffed.bom, maxLineBytes: maxRecordBytes, crLines: false },
    reach,
  );
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
  const read = item(text, { index: counter.index++, line: line.line }, state);
  // The last line, with no line break after it, not whole JSON: the input ends inside it, a file
  // cut short (a download, a disk that filled). Said as GeoJSON's cut is: the run ends with exit 4.
  if (read.kind === 'issue' && line.eol === '' && read.message.startsWith(NOT_JSON) && !isJson(text)) {
    state.truncated = true;
    return {
      ...read,
      message: `NDJSON input ends inside line ${line.line}, which is not whole JSON (${read.message.slice(NOT_JSON.length)}): was the file cut short?`,
    };
  }
  return read;
}

const NOT_JSON = 'Malformed NDJSON line: ';

function isJson(text: string): boolean {
  try {
    JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return true;
  } catch {
    return false;
  }
}

function item(line: string, ref: RowRef, state: JsonState): ReadItem {
  // A byte order mark starting a later line: files joined (`cat jan.ndjson feb.ndjson`), each with
  // its own. It is no data, as at the start of the input.
  const text = line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
  if (nestsTooDeep(text)) return issue(ref, `Malformed NDJSON line: ${TOO_DEEP}`, text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    return issue(ref, `Malformed NDJSON line: ${(cause as Error).message}`, text);
  }
  if (!isPlainObject(value))
    return issue(ref, `Malformed NDJSON line: expected a JSON object, got ${kindOf(value)}`, text);
  if (value.type === 'Feature' && 'geometry' in value) return featureLine(text, value, ref, state);
  if (isReportRecord(value)) return reportLine(text, value, ref, state);
  return objectLine(text, value, ref, state);
}

/** A line's object (or, `within` a key of it, that object) as the row's fields. */
function objectLine(
  text: string,
  value: Record<string, unknown>,
  ref: RowRef,
  state: JsonState,
  within?: string,
): ReadItem {
  const reparse = () => {
    const whole = parseKeepingNumbers(text) as Record<string, unknown>;
    return (within === undefined ? whole : whole[within]) as Record<string, unknown>;
  };
  const fields = (mayHoldNumberText(text) ? undefined : exactFields(value)) ?? toFields(reparse());
  // A decoded line holds no lone surrogate nor NUL: only a `\u` escape can make one.
  if (text.includes('\\u')) {
    const bad = badText(fields, 'field');
    if (bad !== undefined)
      return issue(ref, `Malformed NDJSON line: ${bad.message}`, text, bad.field, withoutBadText(fields));
  }
  if (state.columns.length === 0) state.columns = Object.keys(fields);
  return { kind: 'row', ref, fields };
}

/**
 * Newline-delimited GeoJSON (`.geojsonl`, GeoJSONSeq without its separators): a line that is a
 * Feature is read as a GeoJSON feature is, its properties the row's fields and its geometry the
 * job's. Properties keep their numbers as written; coordinates stay numbers.
 */
function featureLine(
  text: string,
  value: Record<string, unknown>,
  ref: RowRef,
  state: JsonState,
  key = 'properties',
): ReadItem {
  const properties = value[key];
  const exact = !mayHoldNumberText(text) && (properties === null || numbersExact(properties));
  const kept = exact
    ? { ...value, properties }
    : { ...value, properties: (parseKeepingNumbers(text) as Record<string, unknown>)[key] };
  const read = featureToItem(kept, ref);
  if (state.columns.length === 0 && read.fields !== undefined) state.columns = Object.keys(read.fields);
  return read.kind === 'issue' ? { ...read, raw: text } : read;
}

/** The keys of a record of geobatch's NDJSON error report (src/output/report.ts). */
const REPORT_KEYS = new Set([
  'row',
  'line',
  'job',
  'stage',
  'code',
  'status',
  'message',
  'attempts',
  'detail',
  'raw',
  'fields',
  'geometry',
]);

function isReportRecord(value: Record<string, unknown>): boolean {
  return (
    typeof value.row === 'number' &&
    typeof value.code === 'string' &&
    isPlainObject(value.fields) &&
    Object.keys(value).every((key) => REPORT_KEYS.has(key))
  );
}

/**
 * A record of an NDJSON error report fed back as input: the row it reported, its fields (and
 * geometry, for a row read from GeoJSON), as the CSV report's input columns are read back; the
 * report's own keys described the earlier run.
 */
function reportLine(text: string, value: Record<string, unknown>, ref: RowRef, state: JsonState): ReadItem {
  const fields = value.fields as Record<string, unknown>;
  if (value.geometry === undefined) return objectLine(text, fields, ref, state, 'fields');
  const feature = { type: 'Feature', geometry: value.geometry, fields };
  return featureLine(text, feature, ref, state, 'fields');
}

function issue(ref: RowRef, message: string, raw: string, field?: string, fields?: Fields): ReadItem {
  const item = { kind: 'issue', ref, stage: 'input', code: 'INPUT_MALFORMED', message, raw } as const;
  return { ...item, ...(field === undefined ? {} : { field }), ...(fields === undefined ? {} : { fields }) };
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

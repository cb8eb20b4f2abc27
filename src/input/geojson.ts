/**
 * GeoJSON FeatureCollection, streamed feature by feature with stream-json (`pick` on `features`,
 * then `streamArray`), so memory holds one feature at a time whatever the file size, and a
 * feature larger than `maxRecordBytes` is dropped as it streams and reported.
 *
 * The stages run as one synchronous pipeline: chained as async generators they cost an await per
 * token, which made reading three times slower. Text is fed one line piece at a
 * time, so the line on which a feature's `{` was parsed is its `line`. A syntax error cannot be
 * skipped in a JSON stream: it becomes one RowIssue and the reader ends, marked truncated.
 */
import { getManyValues, isMany, none } from 'stream-chain/defs.js';
import pick from 'stream-json/filters/pick.js';
import { jsonParser } from 'stream-json/parser.js';
import streamArray from 'stream-json/streamers/stream-array.js';
import { isGeobatchError, UsageError } from '../errors.js';
import type { ReadItem, RowRef } from '../types.js';
import type { Sniffed } from './_encoding.js';
import { featureToItem } from './_feature.js';
import { crsAfterFeatures, type DeclaredCrs } from './_geojson-crs.js';
import { CUT_HEAD_CHARS } from './_geojson-head.js';
import { FeatureTracker, Skipped, type Token } from './_geojson-tokens.js';
import { TOO_DEEP } from './_nesting.js';
import { type Piece, readPieces } from './_pieces.js';
import { isPlainObject } from './_values.js';
import { ByteReach, type ReadPosition, unread } from './reader.js';

export interface GeojsonState {
  columns: readonly string[];
  truncated: boolean;
  /** A projected `crs` member found after the features (one before them is refused at open). */
  crs?: DeclaredCrs | undefined;
  position?: ReadPosition;
}

export interface GeojsonSettings {
  readonly path: string;
  readonly maxRecordBytes: number;
  readonly onWarning: (message: string) => void;
}

const PARSER = {
  packKeys: true,
  packStrings: false,
  packNumbers: true,
  streamStrings: true,
  streamNumbers: false,
} as const;

export async function* readGeojson(
  chunks: AsyncIterable<Buffer>,
  sniffed: Sniffed,
  settings: GeojsonSettings,
  state: GeojsonState,
): AsyncGenerator<ReadItem> {
  const tracker = new FeatureTracker(settings.maxRecordBytes);
  // Features are collected here rather than returned, so that those completed before a syntax
  // error in the same piece of text are not lost with it.
  const done: unknown[] = [];
  const assemble = streamArray({
    objectFilter: () => (tracker.oversized ? false : undefined),
    includeUndecided: true,
  }) as (token: Token) => { key: number; value: unknown } | typeof none;
  const onToken = (token: Token): void => {
    const packed = tracker.see(token);
    if (packed !== undefined) {
      const out = assemble(packed);
      if (out !== none) done.push(out.value);
    }
    const skipped = tracker.skipped();
    if (skipped !== undefined) done.push(skipped);
  };
  // Strings are streamed, not packed, so that one huge value is never joined. Numbers and keys
  // stay packed (streaming numbers costs a third of the speed); one that alone outgrows the limit
  // stops the reading (see FeatureTracker.runaway).
  const parse = pipeline(
    jsonParser(PARSER) as (text: string | typeof none) => unknown,
    pick({ filter: 'features' }) as (token: Token) => unknown,
    onToken,
  );
  const position = state.position ?? unread();
  // Characters decoded and fed to the parser, against bytes read: where a feature ends in bytes.
  const reach = new ByteReach();
  const counted = { bytes: 0, decoded: 0, fed: 0 };
  let index = 0;
  function* take(): Generator<ReadItem> {
    for (const value of done.splice(0)) {
      const ref = { index: index++, line: tracker.next() };
      const item =
        value instanceof Skipped ? oversized(ref, value, settings.maxRecordBytes) : featureToItem(value, ref);
      // A feature that failed but kept its properties names the columns as well as a row would.
      if (state.columns.length === 0 && item.fields !== undefined) state.columns = Object.keys(item.fields);
      position.records = index;
      position.bytes = reach.at(counted.fed);
      yield item;
    }
  }
  const finish = () => {
    position.bytes = counted.bytes;
    position.ended = true;
  };
  let text = '';
  // The part fed last: on a syntax error, the text from the last feature read on (the raw line).
  let failing = '';
  // The input's first characters, to say what it is when it is no FeatureCollection.
  let head = '';
  // Only white space so far: a 0-byte or blank file is an empty input, not a broken one.
  let blank = true;
  let ending = false;
  // What follows the features array (a `crs` member written after it), up to TAIL_CHARS.
  let tail = '';
  try {
    for await (const pieces of readPieces(countBytes(chunks, counted), sniffed.encoding, sniffed.bom)) {
      for (const piece of pieces) counted.decoded += piece.text.length;
      reach.mark(counted.decoded, counted.bytes);
      for (const slice of slices(pieces, tracker.slice)) {
        text = slice.text;
        // Kept only until the features array is found: a FeatureCollection's run holds no MiB of it.
        if (tracker.found) head = '';
        else if (head.length < HEAD_CHARS) head += text.slice(0, HEAD_CHARS - head.length);
        if (blank && /\S/.test(text)) blank = false;
        for (const part of closedParts(text)) {
          failing = part;
          tracker.piece(slice.line, part);
          // A feature that this part completes is taken to end with it.
          counted.fed += part.length;
          parse(part);
          // The part that closes the array is kept whole: its last `]` is where the members begin.
          if (tracker.closed && tail.length < TAIL_CHARS) tail += part.slice(0, TAIL_CHARS - tail.length);
          if (done.length > 0) yield* take();
          if (tracker.runaway())
            throw new Error(
              'no JSON token in more than maxRecordBytes characters: one number or key is too long',
            );
        }
      }
    }
    ending = true;
    parse(none);
    yield* take();
  } catch (cause) {
    if (isGeobatchError(cause) && cause.code === 'INPUT_ENCODING') throw cause;
    if (blank) return finish();
    if (!tracker.found) throw notACollection(settings.path, cause, head);
    yield* take();
    if (pastFeatures(tracker, failing) && !objectAfter(tracker.closed ? tail + failing : failing)) {
      // Every feature was read: the error is in what follows the array (text after the
      // collection, a comma before its `]`, a broken member after it). Nothing was cut short, and
      // a row for it would be one the file never had.
      settings.onWarning(
        `GeoJSON syntax error at line ${tracker.line}, after the features array (${(cause as Error).message}): every feature was read; what follows them is ignored`,
      );
      state.crs = crsAfterFeatures(settings.path, tail + failing);
      finish();
      return;
    }
    state.truncated = true;
    settings.onWarning(
      `GeoJSON syntax error at line ${tracker.line}: reading stopped; later features cannot be read`,
    );
    // No record comes after this one: the count is final.
    position.records = index + 1;
    finish();
    yield syntaxIssue(index, { line: tracker.line, open: tracker.open(), ending }, cause, failing);
    return;
  }
  if (blank) return finish();
  if (!tracker.found) throw notACollection(settings.path, undefined, head);
  // Kept for the run's summary, whose warnings the run logs as it ends: said here as well, it
  // was said twice within a moment.
  state.crs = crsAfterFeatures(settings.path, tail);
  finish();
}

/**
 * Whether a syntax error came after the features array had ended: the parser handed on its end,
 * or the text it failed in (which hands on nothing) begins with that end, between two features,
 * perhaps after a comma (`,]`). The caller also wants no `{` after that end: one begins another
 * object, which may hold features (a second collection of `cat a.geojson b.geojson`, features
 * after a stray `]`), and those would be lost without a word; the input is then cut short.
 */
function pastFeatures(tracker: FeatureTracker, failing: string): boolean {
  return tracker.closed || (tracker.found && tracker.open() === undefined && /^\s*(?:,\s*)?\]/.test(failing));
}

/**
 * Whether the text after the features array (from its `]`, inside the collection) begins an
 * object that is no member's value: one after the collection has closed (a second collection of
 * `cat a.geojson b.geojson`), or one not after a key's `:` (features after a stray `]`). Such an
 * object may hold features, which would be lost without a word; a member's value (`"crs": {...}`)
 * holds none.
 */
function objectAfter(text: string): boolean {
  let depth = 1;
  let last = '';
  for (let i = text.indexOf(']') + 1; i < text.length && i > 0; i++) {
    const c = text[i] as string;
    if (c === '"') {
      // A string, skipped whole (its escapes too): its braces are text.
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      last = '"';
      continue;
    }
    if (/\s/.test(c)) continue;
    if (c === '{' || c === '[') {
      if (c === '{' && (depth === 0 || (depth === 1 && last !== ':'))) return true;
      depth++;
    } else if (c === '}' || c === ']') depth--;
    last = c;
  }
  return false;
}

/** DOS's end-of-file mark, which old tools still write as a file's last byte. */
const CTRL_Z = 0x1a;

/**
 * The chunks, their bytes added to `counted.bytes` as they are taken. A Ctrl-Z that is the input's
 * last byte is the end, not text (as for CSV and NDJSON, src/input/_lines.ts): JSON has no place
 * for it, so the parser failed the file's end as a row. It is held back until a byte follows it,
 * and counted at the end, so that the position still reaches the file's size.
 */
async function* countBytes(
  chunks: AsyncIterable<Buffer>,
  counted: { bytes: number },
): AsyncGenerator<Buffer> {
  let held = false;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    const bytes: Buffer = held ? Buffer.concat([HELD, chunk]) : chunk;
    held = bytes[bytes.length - 1] === CTRL_Z;
    const out = held ? bytes.subarray(0, -1) : bytes;
    counted.bytes += out.length;
    if (out.length > 0) yield out;
  }
  if (held) counted.bytes += 1;
}

const HELD = Buffer.from([CTRL_Z]);

/**
 * A slice cut after each `}` that may end an element of an array, as far as the next characters
 * tell (white space aside): one that `]` or `{` follows (a comma missing), or a comma that no key
 * follows (`},{`, `} ,{`, `},]`, `},#`; not the `},"geometry"` of a feature's properties). The parser hands on no token of a text it fails in,
 * so a syntax error lost the features completed before it in the same slice (on a file written on
 * one line, up to a slice's worth of them), while the run reported them as never there. Fed this
 * way, every feature has been handed on when the parser fails after it; a file with a line break
 * between features is read a line at a time anyway. A cut inside a string does no harm; cutting
 * after every `}` cost a quarter more CPU on a file of points.
 */
function* closedParts(text: string): Generator<string> {
  let from = 0;
  for (let at = text.indexOf('}'); at !== -1; at = text.indexOf('}', at + 1)) {
    if (!endsElement(text, at + 1)) continue;
    yield text.slice(from, at + 1);
    from = at + 1;
  }
  if (from < text.length) yield text.slice(from);
}

const COMMA = 0x2c;
const QUOTE = 0x22;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const OPEN = 0x7b; // {
const CLOSE_ARRAY = 0x5d; // ]

function endsElement(text: string, after: number): boolean {
  const at = skipSpace(text, after);
  const next = text.charCodeAt(at);
  // `}{`: a comma missing between two features, the usual syntax error itself.
  if (next === CLOSE_ARRAY || next === OPEN) return true;
  if (next !== COMMA) return false;
  return text.charCodeAt(skipSpace(text, at + 1)) !== QUOTE;
}

/** The index of the first character at or after `from` that is no JSON white space. */
function skipSpace(text: string, from: number): number {
  let at = from;
  for (
    let c = text.charCodeAt(at);
    c === SPACE || c === TAB || c === LF || c === CR;
    c = text.charCodeAt(++at)
  );
  return at;
}

/** The pieces cut to at most `size` characters each, never inside a surrogate pair. */
function* slices(pieces: readonly Piece[], size: number): Generator<Piece> {
  for (const piece of pieces) {
    const { text, line } = piece;
    if (text.length <= size) {
      yield piece;
      continue;
    }
    for (let at = 0; at < text.length; ) {
      let end = Math.min(text.length, at + size);
      const last = text.charCodeAt(end - 1);
      if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
      yield { text: text.slice(at, end), line };
      at = end;
    }
  }
}

/**
 * parser -> filter -> sink, called directly: through stream-chain's `fun` the bookkeeping per
 * token cost as much as the parsing.
 */
function pipeline(
  parse: (text: string | typeof none) => unknown,
  filter: (token: Token) => unknown,
  sink: (token: Token) => void,
): (text: string | typeof none) => void {
  const each = (out: unknown, fn: (token: Token) => void): void => {
    if (out === none) return;
    if (isMany(out)) for (const token of getManyValues(out) as Token[]) fn(token);
    else fn(out as Token);
  };
  const filtered = (token: Token): void => each(filter(token), sink);
  return (text) => {
    each(parse(text), filtered);
    if (text === none) each(filter(none as unknown as Token), sink);
  };
}

function oversized(ref: RowRef, skipped: Skipped, limit: number): ReadItem {
  const raw = skipped.whole
    ? skipped.head
    : `${skipped.head}… [cut: the record is about ${skipped.size} characters; only its first ${skipped.head.length} characters are kept]`;
  return {
    kind: 'issue',
    ref,
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: skipped.tooDeep
      ? `GeoJSON feature ${TOO_DEEP}; it was skipped`
      : `GeoJSON feature of about ${skipped.size} characters is longer than maxRecordBytes (${limit}); it was skipped`,
    raw,
  };
}

/**
 * The row that stands for a syntax error: on the line of the feature it cut off, when one was
 * open, else on the error's line; its `raw` the text of the error's line. At the end of the input
 * no feature is open (they all closed): the file was cut short, and there is no text to show.
 */
function syntaxIssue(
  index: number,
  at: { line: number; open: number | undefined; ending: boolean },
  cause: unknown,
  text: string,
): ReadItem {
  const why = (cause as Error).message;
  const where = at.open === undefined ? '' : `; the feature that begins on line ${at.open} is cut off there`;
  const message = at.ending
    ? `GeoJSON input ends before its FeatureCollection closes (${why})${where}: was the file cut short?`
    : `GeoJSON syntax error at line ${at.line} (${why})${where}; the rest of the input cannot be read`;
  return {
    kind: 'issue',
    ref: { index, line: at.open ?? at.line },
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message,
    ...(at.ending ? {} : { raw: rawOf(text.trimEnd()) }),
  };
}

/** A syntax error's text as the report keeps a record's: its first CUT_HEAD_CHARS characters. */
function rawOf(text: string): string {
  if (text.length <= CUT_HEAD_CHARS) return text;
  return `${text.slice(0, CUT_HEAD_CHARS)}… [cut: the text is ${text.length} characters; only its first ${CUT_HEAD_CHARS} are kept]`;
}

export function notACollection(path: string, cause: unknown, head = ''): UsageError {
  const broken = cause === undefined ? undefined : brokenCollection(path, cause, head);
  if (broken !== undefined) return broken;
  const look = lookOf(head);
  const why = look?.what ?? (cause === undefined ? 'no features array found' : (cause as Error).message);
  return new UsageError(`Expected a GeoJSON FeatureCollection in ${path}: ${why}`, {
    file: path,
    hint: look?.hint ?? 'The input must be a FeatureCollection object with a `features` array.',
    cause,
  });
}

/**
 * A FeatureCollection with a JSON syntax error that the parser met before it handed on a feature
 * (a small file, read in one slice, with a comma after its last feature): "expected a
 * FeatureCollection" would send the user looking for what the file is, when it is one and the
 * error is a character somewhere in it. The error's line and column, for the message.
 */
function brokenCollection(path: string, cause: unknown, head: string): UsageError | undefined {
  const text = head.replace(/^\uFEFF/, '');
  // Its features array begun, or its type said: a FeatureCollection whichever comes first.
  if (!/^\s*\{/.test(text) || !/"features"\s*:\s*\[|"type"\s*:\s*"FeatureCollection"/.test(text))
    return undefined;
  const at = errorAt(head);
  const where = at === undefined ? '' : ` at line ${at.line}, column ${at.column}`;
  return new UsageError(
    `The GeoJSON input ${path} has a syntax error${where} (${(cause as Error).message}): no feature could be read`,
    {
      file: path,
      ...(at === undefined ? {} : { detail: { line: at.line, column: at.column } }),
      hint: 'Fix the JSON there: a comma after the last feature or property, or a missing comma, bracket or quote, is the usual cause.',
      cause,
    },
  );
}

/**
 * Where the parser fails in `text`: the end of the shortest start of it that a fresh parser
 * refuses, as line and column (1-based). Only for a message, so a score of parses costs nothing.
 */
function errorAt(text: string): { line: number; column: number } | undefined {
  const refused = (length: number): boolean => {
    try {
      jsonParser(PARSER)(text.slice(0, length));
      return false;
    } catch {
      return true;
    }
  };
  if (!refused(text.length)) return undefined;
  let accepted = 0;
  let failing = text.length;
  while (accepted + 1 < failing) {
    const mid = (accepted + failing) >>> 1;
    if (refused(mid)) failing = mid;
    else accepted = mid;
  }
  const index = failing - 1;
  const line = text.slice(0, index).split('\n').length;
  return { line, column: index - text.lastIndexOf('\n', index - 1) };
}

/** What notACollection looks at: enough for a first line holding a detailed parcel. */
const HEAD_CHARS = 1 << 20;
/** The text after the features kept for a `crs` member there: far more than one takes. */
const TAIL_CHARS = 1 << 16;
const WRAP = 'Wrap it as {"type":"FeatureCollection","features":[...]}';
const GEOMETRY = /^(Point|LineString|Polygon|MultiPoint|MultiLineString|MultiPolygon|GeometryCollection)$/;

/**
 * What a JSON file read as GeoJSON is instead, from its first characters, and what to do: the
 * usual mistakes are NDJSON named `.json`, one Feature or geometry alone, and an array of them.
 */
function lookOf(head: string): { what: string; hint: string } | undefined {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  const asNdjson = (kind: string | undefined) =>
    'Read it as NDJSON: run with --input-format ndjson (or input.format: ndjson in the job file), or name ' +
    `it ${kind === 'Feature' ? '.geojsonl' : '.ndjson'}.`;
  if (text.startsWith('[')) {
    // An array of features wants wrapping; one of plain records is NDJSON written as an array.
    const features = /^\[\s*\{\s*"type"\s*:\s*"Feature"/.test(text);
    return features
      ? { what: 'it is a JSON array of features, not an object', hint: `${WRAP}.` }
      : {
          what: 'it is a JSON array, not an object',
          hint: `${WRAP} if it holds features; records of plain fields are read as NDJSON, one object a line (--input-format ndjson).`,
        };
  }
  const lines = text.split('\n', 3).map((line) => line.trim());
  const [first, second] = lines as [string, string | undefined];
  if (lines.length >= 2 && first.startsWith('{') && second?.startsWith('{')) {
    const kind = typeOf(first);
    if (kind !== undefined) return { what: 'it holds one JSON object a line (NDJSON)', hint: asNdjson(kind) };
  }
  const kind = typeOf(text) ?? /^\{\s*"type"\s*:\s*"(\w+)"/.exec(text)?.[1];
  if (kind === 'Feature') return { what: 'it is a single Feature', hint: `${WRAP}.` };
  if (kind !== undefined && GEOMETRY.test(kind))
    return { what: `it is a bare ${kind} geometry`, hint: `${WRAP}, the geometry in a Feature.` };
  // One object of plain fields (typeOf gives '' for no type): NDJSON of one line.
  if (kind === '') return { what: 'it is a single JSON object of plain fields', hint: asNdjson(undefined) };
  return undefined;
}

/** The `type` of a whole JSON object's text, or undefined when it is none (or not whole). */
function typeOf(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) ? (typeof value.type === 'string' ? value.type : '') : undefined;
  } catch {
    return undefined;
  }
}

/** Opens an input by format: the one entry point the run uses. */
import { isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { BATCHES, batched, batchesOf } from '../batches.js';
import { UsageError } from '../errors.js';
import type { ReadItem } from '../types.js';
import { columnsFirst } from './_columns-first.js';
import { detectDelimiter, headerLine, separatorLine as separatorLineOf } from './_delimiter.js';
import { encodingError, firstInvalid, type InputEncoding, locate, sniff } from './_encoding.js';
import { type DeclaredCrs, refuseProjectedCrs } from './_geojson-crs.js';
import { lineBreakByte } from './_lines.js';
import { type ByteSource, openSource } from './_source.js';

export { inputFile } from './_source.js';

import { readCsv } from './csv.js';
import { notACollection, readGeojson } from './geojson.js';
import { readNdjson } from './ndjson.js';
import { type InputFormat, type InputReader, type ReaderOptions, unread } from './reader.js';

/** Reader defaults, validated once here. */
const DEFAULTS = {
  /** Most files are UTF-8; spreadsheets exported on Windows are often windows-1252. */
  encoding: 'utf-8',
  delimiter: 'auto',
  /** Far above any real record, far below what would exhaust memory. */
  maxRecordBytes: 16 * 1024 * 1024,
  /** Addresses and notes with line breaks span a few lines; a stray quote runs on for thousands. */
  maxRecordLines: 100,
} as const;

/**
 * Bytes read and checked before the first row leaves: a wrong encoding found there stops the run
 * before anything is sent or written. Later bytes are checked as they stream.
 */
const LOOK_AHEAD_BYTES = 1024 * 1024;

/**
 * From a pipe, how long its producer may stay quiet before the look-ahead takes what has come (at
 * least the first line, the CSV header): a producer that trickles its rows (a slow query, `tail
 * -f`, a script printing rows as it computes them) had the run wait for a mebibyte or the end.
 * Long enough to span the gaps between the chunks of a producer that writes as fast as it can.
 */
const QUIET_MS = 100;

const ENCODINGS = new Set(['utf-8', 'latin1', 'windows-1252']);
const DELIMITERS = new Set(['auto', ',', ';', '\t', '|']);

export async function openReader(options: ReaderOptions): Promise<InputReader> {
  const declared = options.encoding ?? DEFAULTS.encoding;
  const delimiter = options.csv?.delimiter ?? DEFAULTS.delimiter;
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULTS.maxRecordBytes;
  const maxRecordLines = options.csv?.maxRecordLines ?? DEFAULTS.maxRecordLines;
  if (!ENCODINGS.has(declared)) throw invalid('encoding', 'one of utf-8, latin1, windows-1252', declared);
  if (!DELIMITERS.has(delimiter)) throw invalid('delimiter', "one of auto , ; '\\t' |", delimiter);
  for (const [name, value] of [
    ['maxRecordBytes', maxRecordBytes],
    ['maxRecordLines', maxRecordLines],
  ] as const) {
    if (!Number.isInteger(value) || value <= 0) throw invalid(name, 'a positive integer', value);
  }
  const onWarning = options.onWarning ?? (() => {});
  const source = await openSource(options.path, {
    signal: options.signal,
    stdin: options.stdin,
    ...(options.sideInput === undefined ? {} : { sideInput: options.sideInput }),
  });
  const { head, rest, pending, ended } = await lookAhead(source, options.format);
  const sniffed = sniff(head, declared, onWarning);
  const utf8Look = checkHead(
    head.subarray(sniffed.bom),
    sniffed.encoding,
    ended,
    options.format === 'csv',
    onWarning,
  );
  if (options.format === 'geojson') {
    const text = head.subarray(sniffed.bom).toString('latin1');
    refuseProjectedCrs(options.path, text);
    // A whole file without a features array (a bare Feature, a Geometry): refused before any file
    // is written, as the stream would refuse it only at its end, after opening the outputs.
    if (ended && /\S/.test(text) && !/"features"\s*:/.test(text))
      throw notACollection(options.path, undefined, text);
  }
  const csvDelimiter = csvDelimiterOf(head.subarray(sniffed.bom), delimiter, onWarning);
  const separatorLine =
    options.format === 'csv' ? separatorLineOf(head.subarray(sniffed.bom))?.line : undefined;
  const headed = withHead([head], rest, pending);
  const chunks = utf8Look === undefined ? headed : watched(headed, utf8Look);
  const state = {
    columns: [] as readonly string[],
    truncated: false,
    crs: undefined as DeclaredCrs | undefined,
    lines: 0,
    blankLines: 0,
    headerLines: 0,
    position: unread(),
  };
  let used = false;
  function take(): void {
    if (used) throw new UsageError(`Input ${options.path} can only be read once`);
    used = true;
  }
  const csvSettings = {
    delimiter: csvDelimiter,
    maxRecordBytes,
    maxRecordLines,
    ...(separatorLine === undefined ? {} : { separatorLine }),
    onWarning,
  };
  // CSV: the header is read now, so that columns() names them before the first row is asked for
  // (a run checks its mapping against them) and a header that cannot be read stops the run here.
  const csv =
    options.format === 'csv' ? await primed(readCsv(chunks, sniffed, csvSettings, state)) : undefined;
  const geojsonSettings = { path: options.path, maxRecordBytes, onWarning };
  // One batch generator per format; who takes items one by one gets them flattened (batched()).
  const { [BATCHES]: batches, [Symbol.asyncIterator]: items } = batched<ReadItem>(() => {
    take();
    switch (options.format) {
      case 'csv':
        return csv as AsyncGenerator<readonly ReadItem[]>;
      case 'ndjson':
        return columnsFirst(readNdjson(chunks, sniffed, maxRecordBytes, state), state);
      case 'geojson':
        return columnsFirst(
          { [Symbol.asyncIterator]: () => batchesOf(readGeojson(chunks, sniffed, geojsonSettings, state)) },
          state,
        );
    }
  });
  return {
    path: options.path,
    format: options.format,
    sizeBytes: source.size,
    mtimeMs: source.mtimeMs,
    bytesRead: source.bytesRead,
    position: () => ({ ...state.position }),
    columns: () => state.columns,
    truncated: () => state.truncated,
    declaredCrs: () => state.crs,
    lineCounts: () => ({ lines: state.lines, blank: state.blankLines, header: state.headerLines }),
    [Symbol.asyncIterator]: items,
    [BATCHES]: batches,
  };
}

/** The generator with its first value already read: waiting in it, given first. */
async function primed<T>(generator: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await generator.next();
  return (async function* () {
    if (first.done === true) return;
    yield first.value;
    yield* generator;
  })();
}

interface LookAhead {
  readonly head: Buffer;
  readonly rest: AsyncIterator<Buffer>;
  /** The read of the next chunk, asked for when the look-ahead stopped waiting for it. */
  readonly pending: Promise<IteratorResult<Buffer>> | undefined;
  /** The head is all of the input. */
  readonly ended: boolean;
}

const QUIET = Symbol('quiet');

/**
 * The input's first bytes and the iterator over the rest. A regular file's head is its first
 * LOOK_AHEAD_BYTES (or all of it). A pipe's stops short of that when its producer has been quiet
 * for QUIET_MS once the head holds its first line (and the header after a `sep=` line), or, for
 * GeoJSON, the `"features"` key, before which a `crs` member is read (_geojson-crs.ts): the read
 * then waiting is handed on as `pending`.
 */
async function lookAhead(source: ByteSource, format: InputFormat): Promise<LookAhead> {
  const enough = format === 'geojson' ? featuresIn : firstLineIn;
  const rest = source.chunks[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let size = 0;
  let lineIn = false;
  while (size < LOOK_AHEAD_BYTES) {
    const pending = rest.next();
    const next = source.regular || !lineIn ? await pending : await quietOr(pending);
    if (next === QUIET) return { head: Buffer.concat(parts), rest, pending, ended: false };
    if (next.done === true) return { head: Buffer.concat(parts), rest, pending: undefined, ended: true };
    parts.push(next.value);
    size += next.value.length;
    if (!source.regular && !lineIn) lineIn = enough(parts.length === 1 ? next.value : Buffer.concat(parts));
  }
  return { head: Buffer.concat(parts), rest, pending: undefined, ended: false };
}

/** `pending`, or QUIET when it takes longer than QUIET_MS. */
async function quietOr<T>(pending: Promise<T>): Promise<T | typeof QUIET> {
  let timer: NodeJS.Timeout | undefined;
  const quiet = new Promise<typeof QUIET>((resolve) => {
    timer = setTimeout(resolve, QUIET_MS, QUIET);
  });
  try {
    return await Promise.race([pending, quiet]);
  } finally {
    clearTimeout(timer);
  }
}

/** A GeoJSON head that has reached its `"features"` key: what comes before it (a crs) is in. */
function featuresIn(head: Buffer): boolean {
  return head.includes('"features"');
}

/**
 * True when `head` holds its header line whole (after a byte order mark, Excel's `sep=` line and
 * lines without data; a CSV header's quoted line breaks inside it): what the sniffing reads (the
 * delimiter from the header, how lines end).
 */
function firstLineIn(head: Buffer): boolean {
  const body = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
  const sep = separatorLineOf(body);
  const line = headerLine(sep === undefined ? body : body.subarray(sep.bytes));
  return line.data && line.end !== -1;
}

/**
 * Stops on a byte that is not UTF-8 in the look-ahead, and warns when input declared single-byte
 * looks like UTF-8 (its accented letters would come out as `Ã¤`). For single-byte input whose head
 * is short of LOOK_AHEAD_BYTES (a pipe's, taken early) the look goes on over the bytes that follow
 * (`watched`): the look it returns then.
 */
function checkHead(
  head: Buffer,
  encoding: InputEncoding,
  ended: boolean,
  crLines: boolean,
  onWarning: (message: string) => void,
): Utf8Look | undefined {
  if (encoding === 'utf-8') {
    const { bad } = firstInvalid(head, ended);
    if (bad === -1) return undefined;
    throw encodingError(locate(head, bad, 1, 1, lineBreakByte(head, crLines)));
  }
  const look = new Utf8Look(encoding, onWarning);
  look.add(head);
  if (ended) look.end();
  else if (head.length >= LOOK_AHEAD_BYTES) look.stop();
  return look.decided ? undefined : look;
}

/**
 * Whether the first LOOK_AHEAD_BYTES of single-byte input read as UTF-8 with accented letters,
 * taken in pieces: the warning comes once they are all seen (or the input ends), as it did when
 * they were all looked at at once.
 */
class Utf8Look {
  decided = false;
  private seen = 0;
  private high = false;
  /** The bytes of a character cut by the end of the last piece. */
  private carry: Buffer | undefined;

  constructor(
    private readonly encoding: InputEncoding,
    private readonly onWarning: (message: string) => void,
  ) {}

  add(piece: Buffer): void {
    if (this.decided) return;
    this.seen += piece.length;
    const bytes = this.carry === undefined ? piece : Buffer.concat([this.carry, piece]);
    this.carry = undefined;
    if (isUtf8(bytes)) this.high ||= bytes.some((byte) => byte >= 0x80);
    else {
      const { bad, incomplete } = firstInvalid(bytes, false);
      if (bad !== -1) {
        this.decided = true;
        return;
      }
      const body = bytes.subarray(0, incomplete);
      this.high ||= body.some((byte) => byte >= 0x80);
      this.carry = Buffer.from(bytes.subarray(incomplete));
    }
    if (this.seen >= LOOK_AHEAD_BYTES) this.stop();
  }

  /** Enough seen: a character cut at the limit is not held against the input. */
  stop(): void {
    if (this.decided) return;
    this.decided = true;
    if (this.high)
      this.onWarning(
        `The input is declared ${this.encoding} but reads as valid UTF-8 with accented letters: ` +
          'if they come out as "Ã¤", set `input.encoding: utf-8`',
      );
  }

  /** The input's end: a character cut there is not UTF-8. */
  end(): void {
    if (this.carry !== undefined) this.decided = true;
    else this.stop();
  }
}

/** The chunks, shown to the look as they pass until it is decided. */
async function* watched(chunks: AsyncGenerator<Buffer>, look: Utf8Look): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) {
    look.add(chunk);
    yield chunk;
  }
  look.end();
}

/**
 * The pieces the look-ahead is handed on in, the size of the chunks read after it: handed on
 * whole, its megabyte of short lines became tens of thousands of rows parsed at once, all alive
 * together (and so copied into the old generation of the heap) while the engine took them in.
 */
const HEAD_PIECE_BYTES = 65536;

/**
 * The look-ahead, then the read it left waiting (if any), then the rest; the look-ahead is let go
 * of once handed on.
 */
async function* withHead(
  head: Buffer[],
  rest: AsyncIterator<Buffer>,
  pending: Promise<IteratorResult<Buffer>> | undefined,
): AsyncGenerator<Buffer> {
  const first = head.pop();
  if (first !== undefined) {
    for (let at = 0; at < first.length; at += HEAD_PIECE_BYTES)
      yield first.subarray(at, Math.min(first.length, at + HEAD_PIECE_BYTES));
  }
  if (pending !== undefined) {
    const next = await pending;
    if (next.done === true) return;
    yield next.value;
  }
  for (;;) {
    const next = await rest.next();
    if (next.done === true) return;
    yield next.value;
  }
}

function invalid(name: string, expected: string, got: unknown): UsageError {
  return new UsageError(`Expected \`${name}\` to be ${expected}, got \`${String(got)}\``, {
    expected,
    received: String(got),
  });
}

/** The format a path's extension suggests, or undefined. */
export function formatFromPath(path: string): InputFormat | undefined {
  const lower = path.toLowerCase();
  if (/\.(csv|tsv|txt)$/.test(lower)) return 'csv';
  if (/\.(ndjson|jsonl|geojsonl|geojsons)$/.test(lower)) return 'ndjson';
  if (/\.(geojson|json)$/.test(lower)) return 'geojson';
  return undefined;
}

/**
 * How a CSV file is written, as the reader sees it with `input.delimiter` left at auto: the
 * delimiter it picks from the file's first 64 KiB, and whether a UTF-8 byte order mark leads. What
 * `geobatch init` mirrors in the output it drafts, and `validate` compares the output with.
 */
export async function sniffCsvFile(path: string): Promise<{ delimiter: string; bom: boolean }> {
  const file = await open(path);
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf;
  return { delimiter: csvDelimiterOf(head.subarray(bom ? 3 : 0), 'auto', () => {}), bom };
}

/** Where the `sep=` line is: the first line, as Excel writes it, or after empty lines. */
function lineWords(line: number): string {
  return line === 1 ? 'first line' : `line ${line}`;
}

/**
 * The delimiter: the configured one; else the one Excel's `sep=` line names, when it is one the
 * reader takes; else the one the header line uses most.
 */
function csvDelimiterOf(head: Buffer, configured: string, onWarning: (message: string) => void): string {
  const line = separatorLineOf(head);
  if (configured !== 'auto') {
    if (line !== undefined && line.delimiter !== configured)
      onWarning(
        `The file's ${lineWords(line.line)} says sep=${line.delimiter}, but input.delimiter is ${JSON.stringify(configured)}: ${JSON.stringify(configured)} is used`,
      );
    return configured;
  }
  if (line === undefined) return detectDelimiter(head);
  if (DELIMITERS.has(line.delimiter)) return line.delimiter;
  onWarning(
    `The file's ${lineWords(line.line)} says sep=${line.delimiter}, which is not a delimiter geobatch reads (, ; tab |): the header decides`,
  );
  return detectDelimiter(head.subarray(line.bytes));
}

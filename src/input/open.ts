/** Opens an input by format: the one entry point the run uses. */
import { isUtf8 } from 'node:buffer';
import { BATCHES, batched, batchesOf } from '../batches.js';
import { UsageError } from '../errors.js';
import type { ReadItem } from '../types.js';
import { detectDelimiter, separatorLine as separatorLineOf } from './_delimiter.js';
import { encodingError, firstInvalid, type InputEncoding, locate, sniff } from './_encoding.js';
import { lineBreakByte } from './_lines.js';
import { type ByteSource, openSource } from './_source.js';
import { readCsv } from './csv.js';
import { readGeojson } from './geojson.js';
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
  const source = await openSource(options.path, { signal: options.signal, stdin: options.stdin });
  const { head, rest, ended } = await lookAhead(source);
  const sniffed = sniff(head, declared, onWarning);
  checkHead(head.subarray(sniffed.bom), sniffed.encoding, ended, options.format === 'csv', onWarning);
  const csvDelimiter = csvDelimiterOf(head.subarray(sniffed.bom), delimiter, onWarning);
  const separatorLine = options.format === 'csv' && separatorLineOf(head.subarray(sniffed.bom)) !== undefined;
  const chunks = withHead([head], rest);
  const state = {
    columns: [] as readonly string[],
    truncated: false,
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
  const csvSettings = { delimiter: csvDelimiter, maxRecordBytes, maxRecordLines, separatorLine, onWarning };
  // CSV: the header is read now, so that columns() names them before the first row is asked for
  // (a run checks its mapping against them) and a header that cannot be read stops the run here.
  const csv =
    options.format === 'csv' ? await primed(readCsv(chunks, sniffed, csvSettings, state)) : undefined;
  // One batch generator per format; who takes items one by one gets them flattened (batched()).
  const { [BATCHES]: batches, [Symbol.asyncIterator]: items } = batched<ReadItem>(() => {
    take();
    switch (options.format) {
      case 'csv':
        return csv as AsyncGenerator<readonly ReadItem[]>;
      case 'ndjson':
        return readNdjson(chunks, sniffed, maxRecordBytes, state);
      case 'geojson':
        return batchesOf(
          readGeojson(chunks, sniffed, { path: options.path, maxRecordBytes, onWarning }, state),
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
    lineCounts: () => ({ lines: state.lines, blank: state.blankLines, header: state.headerLines }),
    [Symbol.asyncIterator]: items,
    [BATCHES]: batches,
  };
}

/** The input's first bytes (up to LOOK_AHEAD_BYTES, or all of it), and the iterator over the rest. */
/** The generator with its first value already read: waiting in it, given first. */
async function primed<T>(generator: AsyncGenerator<T>): Promise<AsyncGenerator<T>> {
  const first = await generator.next();
  return (async function* () {
    if (first.done === true) return;
    yield first.value;
    yield* generator;
  })();
}

async function lookAhead(
  source: ByteSource,
): Promise<{ head: Buffer; rest: AsyncIterator<Buffer>; ended: boolean }> {
  const rest = source.chunks[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let size = 0;
  while (size < LOOK_AHEAD_BYTES) {
    const next = await rest.next();
    if (next.done === true) return { head: Buffer.concat(parts), rest, ended: true };
    parts.push(next.value);
    size += next.value.length;
  }
  return { head: Buffer.concat(parts), rest, ended: false };
}

/**
 * Stops on a byte that is not UTF-8 in the look-ahead, and warns when input declared single-byte
 * looks like UTF-8 (its accented letters would come out as `Ã¤`).
 */
function checkHead(
  head: Buffer,
  encoding: InputEncoding,
  ended: boolean,
  crLines: boolean,
  onWarning: (message: string) => void,
): void {
  const { bad, incomplete } = firstInvalid(head, ended);
  if (encoding === 'utf-8') {
    if (bad === -1) return;
    throw encodingError(locate(head, bad, 1, 1, lineBreakByte(head, crLines)));
  }
  const body = incomplete === -1 ? head : head.subarray(0, incomplete);
  if (bad === -1 && body.some((byte) => byte >= 0x80) && isUtf8(body))
    onWarning(
      `The input is declared ${encoding} but reads as valid UTF-8 with accented letters: ` +
        'if they come out as "Ã¤", set `input.encoding: utf-8`',
    );
}

/**
 * The pieces the look-ahead is handed on in, the size of the chunks read after it: handed on
 * whole, its megabyte of short lines became tens of thousands of rows parsed at once, all alive
 * together (and so copied into the old generation of the heap) while the engine took them in.
 */
const HEAD_PIECE_BYTES = 65536;

/** The look-ahead, then the rest; the look-ahead is let go of once handed on. */
async function* withHead(head: Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  const first = head.pop();
  if (first !== undefined) {
    for (let at = 0; at < first.length; at += HEAD_PIECE_BYTES)
      yield first.subarray(at, Math.min(first.length, at + HEAD_PIECE_BYTES));
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
 * The delimiter: the configured one; else the one Excel's `sep=` line names, when it is one the
 * reader takes; else the one the header line uses most.
 */
function csvDelimiterOf(head: Buffer, configured: string, onWarning: (message: string) => void): string {
  const line = separatorLineOf(head);
  if (configured !== 'auto') {
    if (line !== undefined && line.delimiter !== configured)
      onWarning(
        `The file's first line says sep=${line.delimiter}, but input.delimiter is ${JSON.stringify(configured)}: ${JSON.stringify(configured)} is used`,
      );
    return configured;
  }
  if (line === undefined) return detectDelimiter(head);
  if (DELIMITERS.has(line.delimiter)) return line.delimiter;
  onWarning(
    `The file's first line says sep=${line.delimiter}, which is not a delimiter geobatch reads (, ; tab |): the header decides`,
  );
  return detectDelimiter(head.subarray(line.bytes));
}

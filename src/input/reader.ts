/**
 * The input side of a run: one reader per format, all async generators of ReadItem that number
 * every record (good or bad) with one index, in file order.
 */
import type { Readable } from 'node:stream';
import { BATCHES } from '../batches.js';
import type { ReadItem } from '../types.js';
import type { CsvDelimiter } from './_delimiter.js';
import type { InputEncoding } from './_encoding.js';
import type { DeclaredCrs } from './_geojson-crs.js';

export type { CsvDelimiter } from './_delimiter.js';
export type { InputEncoding } from './_encoding.js';

export type InputFormat = 'csv' | 'ndjson' | 'geojson';

export interface CsvReadOptions {
  /** Field delimiter; `auto` picks the most frequent of `,` `;` TAB `|` in the header line. @default 'auto' */
  delimiter?: CsvDelimiter | 'auto';
  /**
   * Most physical lines one record may span through line breaks inside a quoted field. A quote
   * still open after this many lines is taken for a stray one: its line is reported alone and
   * reading resumes at the next line. @default 100
   */
  maxRecordLines?: number;
}

export interface ReaderOptions {
  /** A file path, or `-` for standard input. */
  path: string;
  format: InputFormat;
  /** @default 'utf-8' */
  encoding?: InputEncoding;
  /**
   * Largest record (a CSV record, an NDJSON line, a GeoJSON feature) read into memory. A larger
   * one is skipped to its end and reported as INPUT_MALFORMED with its first bytes, so memory
   * stays bounded whatever the input holds. @default 16777216 (16 MiB)
   */
  maxRecordBytes?: number;
  csv?: CsvReadOptions;
  /** Stops reading and closes the file. */
  signal?: AbortSignal;
  /** What `-` reads. @default process.stdin */
  stdin?: Readable;
  /**
   * The job file's key that names the file when it is a side input (`options.destinations`):
   * a refusal to open it names that key, not "the input". @default the input
   */
  sideInput?: string;
  /** Told about recoverable oddities (renamed header columns, a byte order mark that overrides the encoding). */
  onWarning?: (message: string) => void;
}

/** Where the physical lines read so far went (CSV and NDJSON; zero for GeoJSON). */
export interface LineCounts {
  /** Physical lines read so far. */
  readonly lines: number;
  /** Empty lines, and the lines of CSV records with no data (`;;;;`), skipped without a row number. */
  readonly blank: number;
  /** Lines the CSV header spans. */
  readonly header: number;
}

/** A single-use stream of read items, with what progress and the writers need to know about it. */
export interface InputReader extends AsyncIterable<ReadItem> {
  /** The items a chunk at a time, when the reader has them so (see batches.ts). */
  [BATCHES]?(): AsyncIterator<readonly ReadItem[]>;
  readonly path: string;
  readonly format: InputFormat;
  /** Size in bytes when known. */
  readonly sizeBytes: number | undefined;
  /** Modification time of a file input (for the checkpoint fingerprint). */
  readonly mtimeMs: number | undefined;
  /**
   * Bytes taken from the file or standard input so far. They run ahead of the records handed on,
   * by the look-ahead (a mebibyte, all of a smaller input, or what a pipe had sent when it paused)
   * and the chunk being parsed.
   */
  bytesRead(): number;
  /** How far the records handed on reach into the input: what progress estimates the total from. */
  position?(): Readonly<ReadPosition>;
  /** CSV: the header's columns. NDJSON and GeoJSON: the keys of the first readable row. Empty until known. */
  columns(): readonly string[];
  /** True when the input ended in a way that hides later records (a GeoJSON syntax error). */
  truncated(): boolean;
  /**
   * GeoJSON: the projected system a `crs` member after the features declares, known once they are
   * read (one before them is refused as the input opens). @default none
   */
  declaredCrs?(): DeclaredCrs | undefined;
  /**
   * CSV and NDJSON: every physical line read is blank, in the header, or in exactly one item's
   * `ref.line`..`ref.lastLine`, so that `lines = blank + header + the lines items cover`.
   */
  lineCounts(): LineCounts;
}

/**
 * How far a reader has handed records on. Progress scales `records` by the input's size over
 * `bytes`: both count what has left the reader, where the bytes read from the file run ahead.
 */
export interface ReadPosition {
  /** Records handed on so far, good or bad (each takes one index). */
  records: number;
  /** Bytes from the input's start to the end of the last record handed on. */
  bytes: number;
  /** Every record has been handed on: `records` is the input's count. */
  ended: boolean;
}

/** The position before the first record. */
export function unread(): ReadPosition {
  return { records: 0, bytes: 0, ended: false };
}

/**
 * Where in the input's bytes a point inside the text lies. A reader knows the byte offset only at
 * the end of each batch it decoded (a chunk's whole lines, a chunk's characters); inside the batch
 * the offset is taken in proportion to a unit it counts for nothing (line numbers, characters).
 */
export class ByteReach {
  private fromUnits = 0;
  private fromBytes = 0;
  private toUnits = 0;
  private toBytes = 0;

  /** The batch just decoded ends `units` and `bytes` into the input. */
  mark(units: number, bytes: number): void {
    this.fromUnits = this.toUnits;
    this.fromBytes = this.toBytes;
    this.toUnits = units;
    this.toBytes = bytes;
  }

  /** The byte offset `units` into the input: exact at a batch's end, in proportion inside it. */
  at(units: number): number {
    if (units >= this.toUnits) return this.toBytes;
    if (units <= this.fromUnits) return this.fromBytes;
    const share = (units - this.fromUnits) / (this.toUnits - this.fromUnits);
    return Math.round(this.fromBytes + share * (this.toBytes - this.fromBytes));
  }

  /** Bytes to the end of the latest batch. */
  get bytes(): number {
    return this.toBytes;
  }
}

/** `items`, with `position` moved past the last of them: its last line's end, by `reach`. */
export function handedOn(
  items: readonly ReadItem[],
  position: ReadPosition,
  reach: ByteReach,
): readonly ReadItem[] {
  const last = (items[items.length - 1] as ReadItem).ref;
  position.records = last.index + 1;
  position.bytes = reach.at(last.lastLine ?? last.line);
  return items;
}

/**
 * The raw text of a record too large to read: its start, marked as cut when characters were
 * dropped; a record over the limit but within the 4096 characters kept is shown whole, unmarked.
 */
export function cutRaw(head: string, bytes: number, whole: boolean): string {
  if (whole) return head;
  return `${head}… [cut: the record is ${bytes} bytes; only its first ${head.length} characters are kept]`;
}

/**
 * `reader` with other items (a selection of its rows, the same rows watched on their way): all
 * else, what progress and the writers read of it, stays the reader's own.
 */
export function withItems(
  reader: InputReader,
  items: AsyncIterable<ReadItem> & Pick<InputReader, typeof BATCHES>,
): InputReader {
  const batches = items[BATCHES];
  return {
    path: reader.path,
    format: reader.format,
    sizeBytes: reader.sizeBytes,
    mtimeMs: reader.mtimeMs,
    bytesRead: () => reader.bytesRead(),
    ...(reader.position === undefined ? {} : { position: reader.position }),
    columns: () => reader.columns(),
    truncated: () => reader.truncated(),
    ...(reader.declaredCrs === undefined ? {} : { declaredCrs: reader.declaredCrs }),
    lineCounts: () => reader.lineCounts(),
    [Symbol.asyncIterator]: () => items[Symbol.asyncIterator](),
    ...(batches === undefined ? {} : { [BATCHES]: batches }),
  };
}

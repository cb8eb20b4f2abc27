/**
 * The input side of a run: one reader per format, all async generators of ReadItem that number
 * every record (good or bad) with one index, in file order.
 */
import type { Readable } from 'node:stream';
import type { BATCHES } from '../batches.js';
import type { ReadItem } from '../types.js';
import type { CsvDelimiter } from './_delimiter.js';
import type { InputEncoding } from './_encoding.js';

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
  /** Told about recoverable oddities (renamed header columns, a byte order mark that overrides the encoding). */
  onWarning?: (message: string) => void;
}

/** Where the physical lines read so far went (CSV and NDJSON; zero for GeoJSON). */
export interface LineCounts {
  /** Physical lines read so far. */
  readonly lines: number;
  /** Empty lines, skipped without a row number. */
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
  /** Bytes consumed so far. */
  bytesRead(): number;
  /** CSV: the header's columns. NDJSON and GeoJSON: the keys of the first readable row. Empty until known. */
  columns(): readonly string[];
  /** True when the input ended in a way that hides later records (a GeoJSON syntax error). */
  truncated(): boolean;
  /**
   * CSV and NDJSON: every physical line read is blank, in the header, or in exactly one item's
   * `ref.line`..`ref.lastLine`, so that `lines = blank + header + the lines items cover`.
   */
  lineCounts(): LineCounts;
}

/**
 * The raw text of a record too large to read: its start, marked as cut when characters were
 * dropped; a record over the limit but within the 4096 characters kept is shown whole, unmarked.
 */
export function cutRaw(head: string, bytes: number, whole: boolean): string {
  if (whole) return head;
  return `${head}… [cut: the record is ${bytes} bytes; only its first ${head.length} characters are kept]`;
}

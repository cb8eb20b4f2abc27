/**
 * The input side of a run: one reader per format, all async generators of ReadItem that number
 * every record (good or bad) with one index, in file order.
 */
import type { Readable } from 'node:stream';
import type { ReadItem } from '../types.js';
import type { CsvDelimiter } from './_delimiter.js';
import type { InputEncoding } from './_text.js';

export type { CsvDelimiter } from './_delimiter.js';
export type { InputEncoding } from './_text.js';

export type InputFormat = 'csv' | 'ndjson' | 'geojson';

export interface CsvReadOptions {
  /** Field delimiter; `auto` picks the most frequent of `,` `;` TAB `|` in the header line. @default 'auto' */
  delimiter?: CsvDelimiter | 'auto';
  /** Read a quote inside an unquoted field (`5'6"`) as text instead of reporting the record. @default false */
  relaxQuotes?: boolean;
  /**
   * Stop with an error when one field grows past this many bytes: an unclosed quote would
   * otherwise read the rest of the file into memory. @default 16777216 (16 MiB)
   */
  maxFieldBytes?: number;
}

export interface ReaderOptions {
  /** A file path, or `-` for standard input. */
  path: string;
  format: InputFormat;
  /** @default 'utf-8' */
  encoding?: InputEncoding;
  csv?: CsvReadOptions;
  /** Stops reading and closes the file. */
  signal?: AbortSignal;
  /** What `-` reads. @default process.stdin */
  stdin?: Readable;
  /** Told about recoverable oddities (renamed header columns, a byte order mark that overrides the encoding). */
  onWarning?: (message: string) => void;
}

/** A single-use stream of read items, with what progress and the writers need to know about it. */
export interface InputReader extends AsyncIterable<ReadItem> {
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
}

/** Raw text of a bad record is kept up to this length in its RowIssue (the report stays readable). */
export const MAX_RAW_LENGTH = 4096;

export function clipRaw(raw: string): string {
  return raw.length > MAX_RAW_LENGTH ? `${raw.slice(0, MAX_RAW_LENGTH)}…` : raw;
}

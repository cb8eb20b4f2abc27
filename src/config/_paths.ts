/** Where files are and what format they are in: paths, extensions, delimiters, encodings. */
import path from 'node:path';
import { formatFromPath } from '../input/open.js';
import type { CsvDelimiter, InputEncoding } from '../input/reader.js';
import type { InputFormat, ReportFormat } from './schema.js';

export type Delimiter = 'auto' | CsvDelimiter;
export type OutputDelimiter = CsvDelimiter;

/** The format given, else the one the path's extension implies (the readers' rule), else the fallback. */
export function formatOf(file: string, given: InputFormat | undefined, fallback: InputFormat): InputFormat {
  return given ?? formatFromPath(file) ?? fallback;
}

export function resolvePath(base: string, file: string): string {
  return file === '-' ? '-' : path.resolve(base, file);
}

export function normaliseDelimiter(value: string | undefined): Delimiter | undefined {
  return value === 'tab' ? '\t' : (value as Delimiter | undefined);
}

export function normaliseEncoding(value: string | undefined): InputEncoding | undefined {
  if (value === 'utf8') return 'utf-8';
  return value === 'iso-8859-1' ? 'latin1' : (value as InputEncoding | undefined);
}

/** Default report path: beside the output, `x.csv` -> `x.errors.csv`. */
export function defaultErrorsPath(output: string, name: string, format: ReportFormat): string {
  const extension = format === 'csv' ? '.csv' : '.ndjson';
  if (output === '-') return path.resolve(`${name}.errors${extension}`);
  const stem = output.slice(0, output.length - path.extname(output).length);
  return `${stem}.errors${extension}`;
}

/** Where files are and what format they are in: paths, extensions, delimiters, encodings. */
import { homedir } from 'node:os';
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

/**
 * A job file's path, absolute: relative to the job file's directory, `~` and `~/…` to the home
 * directory as a shell would (the README's own example says `~/.cache/...`). Without it,
 * `output: ~/x.csv` wrote `./~/x.csv` beside the job file.
 */
export function resolvePath(base: string, file: string): string {
  return file === '-' ? '-' : path.resolve(base, fromHome(file));
}

/** `~` or `~/rest` as the home directory; any other path as it is (`~user` is not expanded). */
export function fromHome(file: string): string {
  if (file === '~') return homedir();
  return file.startsWith('~/') ? path.join(homedir(), file.slice(2)) : file;
}

export function normaliseDelimiter(value: string | undefined): Delimiter | undefined {
  return value === 'tab' ? '\t' : (value as Delimiter | undefined);
}

export function normaliseEncoding(value: string | undefined): InputEncoding | undefined {
  if (value === 'utf8') return 'utf-8';
  return value === 'iso-8859-1' ? 'latin1' : (value as InputEncoding | undefined);
}

/**
 * Default report path, beside the output: `x.csv` -> `x.errors.csv` when the output's extension is
 * the report's own, else the output's whole name kept (`x.geojson` -> `x.geojson.errors.csv`,
 * `x.csv` -> `x.csv.errors.ndjson` for an NDJSON report), so that runs of one job to `x.csv`,
 * `x.geojson` and `x.gpkg` keep reports of their own: `x.errors.csv` for all three made the
 * second run overwrite the first's report, or stop on its lock. The extension is compared as
 * written (`X.CSV` -> `X.CSV.errors.csv`): `x.csv` and `x.CSV` are two outputs where case counts.
 * For `-`, named after the job in the working directory (a job named by its pipe, `/dev/fd/63`,
 * by the last part).
 */
export function defaultErrorsPath(output: string, name: string, format: ReportFormat): string {
  const extension = format === 'csv' ? '.csv' : '.ndjson';
  if (output === '-') return path.resolve(`${path.basename(name)}.errors${extension}`);
  const stem = path.extname(output) === extension ? output.slice(0, -extension.length) : output;
  return `${stem}.errors${extension}`;
}

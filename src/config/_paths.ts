/** Where files are and what format they are in: paths, extensions, delimiters, encodings. */
import { homedir } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { formatFromPath } from '../input/open.js';
import type { CsvDelimiter, InputEncoding } from '../input/reader.js';
import type { InputFormat, ReportFormat } from './schema.js';

export type Delimiter = 'auto' | CsvDelimiter;
export type OutputDelimiter = CsvDelimiter;

/** The format given, else the one the path's extension implies (the readers' rule), else the fallback. */
export function formatOf(file: string, given: InputFormat | undefined, fallback: InputFormat): InputFormat {
  return given ?? formatFromPath(file) ?? fallback;
}

/** Where a file's path was given, for the refusal of one that names a directory. */
export interface FileKey {
  /** How messages name the job file. */
  readonly shown: string;
  /** The field: `output`, `outputs[1].path`, `options.destinations.path`. */
  readonly key: string;
  /** A file name to offer in the directory (`result.csv`); none for a file read. */
  readonly suggest?: string;
}

/**
 * A job file's path to a file, absolute: relative to the job file's directory, `~` and `~/…` to
 * the home directory as a shell would (the README's own example says `~/.cache/...`). Without it,
 * `output: ~/x.csv` wrote `./~/x.csv` beside the job file. A path that names a directory
 * (`output: out/`) is refused (directoryName).
 */
export function resolvePath(base: string, file: string, at: FileKey): string {
  const problem = directoryName(file, at.suggest);
  if (problem !== undefined)
    throw new ConfigError(`${at.shown}: ${at.key}: ${problem}`, {
      file: at.shown,
      path: at.key,
      expected: 'the path of a file',
      received: file,
    });
  return file === '-' ? '-' : path.resolve(base, fromHome(file));
}

/**
 * Why `file`, as given, names a directory whatever is there, or undefined when it may name a
 * file: it ends with `/` (or `/.`, `/..`, or is `.` or `..`). path.resolve drops that ending, so
 * it must be looked at before: `-o out/` wrote a file called `out`, `--cache db/` an SQLite file
 * `db`, and `-i in.csv/` read `in.csv`, which the system refuses ("Not a directory"). The words
 * end in what to name instead: a file in the directory, `suggest`, or for a file read, the path
 * without its ending.
 */
export function directoryName(file: string, suggest?: string): string | undefined {
  const ending = /(?:^|\/)(\.{0,2})$/.exec(file);
  if (ending === null || file === '') return undefined;
  const dots = ending[1] as string;
  const reason =
    ending[0] === dots ? `${file} names a directory` : `${file} ends with /${dots} and so names a directory`;
  const bare = file.replace(/\/+$/, '');
  if (suggest === undefined && dots === '' && bare !== '' && !/(?:^|\/)\.{1,2}$/.test(bare))
    return `${reason}: name the file without the /, e.g. ${bare}`;
  return `${reason}: name a file in it, e.g. ${path.join(file, suggest ?? 'file')}`;
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

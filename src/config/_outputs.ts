/**
 * The job file's outputs: `output:` (one) or `outputs:` (a list, each entry a path or
 * `{ path, format, formulaGuard, delimiter, bom, decimal }`), never both; and where the HTML run report goes.
 * Each output is written in the format its `format:` names, else its extension says.
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { OUTPUT_EXTENSIONS } from '../output/writer.js';
import { normaliseDelimiter, type OutputDelimiter, resolvePath } from './_paths.js';
import type { InputFormat, OutputEntry, OutputFormat } from './schema.js';

/** One output, resolved. */
export interface OutputConfig {
  /** Absolute path, or `-` for standard output. */
  readonly path: string;
  readonly format: OutputFormat;
  readonly formulaGuard?: boolean;
  /** CSV output delimiter. Undefined: the writer's default (`,`). */
  readonly delimiter?: OutputDelimiter;
  /** CSV output: a UTF-8 byte order mark before the header. @default false */
  readonly bom?: boolean;
  /** CSV output: the decimal mark of numbers. @default '.' */
  readonly decimal?: '.' | ',';
}

/** An output as the file gives it, and where: `output`, or `outputs[1]`. */
export interface GivenOutput {
  readonly entry: OutputEntry;
  readonly key: string;
}

/** The outputs the file names, in order. Throws CONFIG_INVALID for both keys or neither. */
export function givenOutputs(
  doc: { readonly output?: OutputEntry; readonly outputs?: readonly OutputEntry[] },
  shown: string,
): GivenOutput[] {
  if (doc.output !== undefined && doc.outputs !== undefined) {
    throw new ConfigError(`${shown}: outputs: give \`output\` (one) or \`outputs\` (a list), not both`, {
      file: shown,
      path: 'outputs',
      expected: '`output` or `outputs`',
      hint: 'Move the file named by `output` into the `outputs` list.',
    });
  }
  if (doc.outputs !== undefined) return doc.outputs.map((entry, i) => ({ entry, key: `outputs[${i}]` }));
  if (doc.output !== undefined) return [{ entry: doc.output, key: 'output' }];
  throw new ConfigError(`${shown}: output: expected a path (or \`outputs\`: a list of them), got nothing`, {
    file: shown,
    path: 'output',
    expected: 'a path, or `outputs` with a list of paths',
  });
}

/**
 * An output resolved against the job file's folder. Its format: `format:` as given (the path may
 * then be named freely), else its extension's (one geobatch does not write is refused), else the
 * input's.
 */
export function resolveOutput(
  given: GivenOutput,
  base: string,
  inputFormat: InputFormat,
  shown: string,
): OutputConfig {
  const entry = typeof given.entry === 'string' ? { path: given.entry } : given.entry;
  const format =
    entry.format ??
    formatOfFile(shown, given.key, entry.path, OUTPUT_EXTENSIONS, inputFormat as OutputFormat);
  const bom = 'bom' in entry ? entry.bom : undefined;
  // Only a CSV file is opened by a spreadsheet that needs the mark; JSON and GeoPackage must not carry one.
  if (bom === true && format !== 'csv')
    throw new ConfigError(
      `${shown}: ${given.key}.bom: a byte order mark is for CSV outputs only, got a ${format} output`,
      {
        file: shown,
        path: `${given.key}.bom`,
        expected: 'bom only on a CSV output',
        received: format,
        hint: 'drop bom, or write this output as .csv',
      },
    );
  const decimal = 'decimal' in entry ? entry.decimal : undefined;
  const delimiter = normaliseDelimiter('delimiter' in entry ? entry.delimiter : undefined) as
    | OutputDelimiter
    | undefined;
  // The job file's keys are checked so that no setting is ignored in silence: a delimiter on a JSON
  // or GeoPackage output would be.
  if (delimiter !== undefined && format !== 'csv')
    throw new ConfigError(
      `${shown}: ${given.key}.delimiter: a delimiter is for CSV outputs only, got a ${format} output`,
      {
        file: shown,
        path: `${given.key}.delimiter`,
        expected: 'delimiter only on a CSV output',
        received: format,
        hint: 'drop delimiter, or write this output as .csv',
      },
    );
  // A .tsv file without a delimiter is written with TAB (run/assemble.ts outputSpec).
  const written = delimiter ?? (path.extname(entry.path).toLowerCase() === '.tsv' ? '\t' : ',');
  if (decimal === ',' && (format !== 'csv' || written === ','))
    throw new ConfigError(
      `${shown}: ${given.key}.decimal: a decimal comma is for CSV outputs with another delimiter (; tab |), got ${format === 'csv' ? 'delimiter ","' : `a ${format} output`}`,
      {
        file: shown,
        path: `${given.key}.decimal`,
        expected: 'decimal: "," only with a CSV delimiter of ; tab or |',
        received: format === 'csv' ? written : format,
        hint: 'add delimiter: ";" (as German Excel reads it), or drop decimal',
      },
    );
  return {
    path: resolvePath(base, entry.path, {
      shown,
      key: typeof given.entry === 'string' ? given.key : `${given.key}.path`,
      suggest: `result.${format}`,
    }),
    format,
    ...(bom === undefined ? {} : { bom }),
    ...(decimal === undefined ? {} : { decimal }),
    formulaGuard: 'formulaGuard' in entry ? entry.formulaGuard : undefined,
    delimiter,
  };
}

/** Workbook extensions a user may try for Excel or LibreOffice: CSV is what opens there. */
const WORKBOOKS = new Set(['.xlsx', '.xlsm', '.xls', '.ods', '.numbers']);

/** What to write instead of a workbook, for the refusal's hint; undefined for other extensions. */
export function workbookHint(extension: string): string | undefined {
  if (!WORKBOOKS.has(extension)) return undefined;
  return 'geobatch writes no workbook: write .csv, which Excel opens by double-click; for a German Excel, with `output: { path: out.csv, bom: true, delimiter: ";", decimal: "," }` in the job file (README, Output).';
}

function optionalHint(hint: string | undefined): { hint?: string } {
  return hint === undefined ? {} : { hint };
}

/**
 * A file's format by its extension, from `table`: `fallback` without one (or for `-`); for an
 * extension the table lacks, the extension and the known ones, for the caller's error.
 */
export function formatByExtension<F extends string>(
  file: string,
  table: Readonly<Record<string, F>>,
  fallback: F,
): F | { readonly extension: string; readonly known: string } {
  const extension = file === '-' ? '' : path.extname(file).toLowerCase();
  if (extension === '') return fallback;
  return table[extension] ?? { extension, known: Object.keys(table).join(' ') };
}

/**
 * The format a file the job file names by path alone is written in: its extension's, from `table`;
 * `fallback` without extension (or for `-`). An extension geobatch does not write is a
 * ConfigError naming the file and the key, so that a file is never written in a format its name
 * does not say.
 */
export function formatOfFile<F extends string>(
  shown: string,
  key: string,
  file: string,
  table: Readonly<Record<string, F>>,
  fallback: F,
): F {
  const found = formatByExtension(file, table, fallback);
  if (typeof found === 'string') return found;
  const { extension, known } = found;
  throw new ConfigError(
    `${shown}: ${key}: geobatch does not write ${extension} files (${file}); known extensions: ${known}`,
    {
      file: shown,
      path: key,
      expected: `a path ending in one of ${known}, or \`format:\``,
      received: file,
      ...optionalHint(workbookHint(extension)),
    },
  );
}

/**
 * The run report's path as the file gives it: `false` for none, a path (resolved; it must end in
 * `.html` or `.htm`, as a browser opens it), undefined for the default beside the first output.
 */
export function resolveRunReport(
  given: string | false | undefined,
  base: string,
  shown: string,
): string | false | undefined {
  if (given === undefined || given === false) return given;
  if (!isHtml(given)) {
    throw new ConfigError(`${shown}: report: the run report is an HTML page, got ${given}`, {
      file: shown,
      path: 'report',
      expected: 'a path ending in .html, or false for none',
      received: given,
    });
  }
  return resolvePath(base, given, { shown, key: 'report', suggest: 'report.html' });
}

export function isHtml(file: string): boolean {
  return /\.html?$/i.test(file);
}

/**
 * CSV output through csv-stringify: the input columns, then the job's, then the status pair.
 * The header is fixed by the first row written (and kept in the checkpoint), so a resumed run
 * writes exactly the columns the interrupted one started with. geobatch's own columns in the
 * input (an earlier run's output fed back) are dropped, so that they appear once, with this run's values.
 */

import { fieldOf } from '../fields.js';
import type { Fields, Outcome } from '../types.js';
import { toCell } from './_cells.js';
import { inputColumnsOnly, isOwnColumn } from './_columns.js';
import { csvCell, csvField, csvLine } from './_csv-line.js';
import type { Sink } from './_sink.js';
import {
  ERROR_COLUMN,
  inputFields,
  type RecordWriter,
  STATUS_COLUMN,
  type WriterOptions,
  type WriterState,
  writtenRecords,
} from './writer.js';

/** Column layout of a CSV file: which input columns, which job columns, in which cells. */
export interface CsvLayout {
  readonly input: readonly string[];
  /** Job columns that are not also input columns (those replace the input's value in place). */
  readonly added: readonly string[];
  readonly header: readonly string[];
}

export function csvLayout(
  input: readonly string[],
  job: readonly string[],
  trailer: readonly string[],
): CsvLayout {
  const inputSet = new Set(input);
  const added = job.filter((c) => !inputSet.has(c));
  return { input, added, header: [...input, ...added, ...trailer] };
}

/**
 * The warning for job columns that replace input columns of the same name (a record holds one of
 * each, whatever its format), undefined for none. The run's files say it once as the first record
 * is written (files.ts); `geobatch validate` says it too (src/cli/_validate-replaced.ts).
 */
export function replacedColumnsWarning(input: readonly string[], job: readonly string[]): string | undefined {
  const clashes = job.filter((c) => input.includes(c));
  if (clashes.length === 0) return undefined;
  return `Job column(s) ${clashes.join(', ')} replace the input column(s) of the same name`;
}

export function createCsvWriter(sink: Sink, options: WriterOptions): RecordWriter {
  const guard = options.formulaGuard ?? true;
  const delimiter = options.delimiter ?? ',';
  // The numbers the job adds; the input's own cells (its numbers included, which an NDJSON input
  // may hold as numbers or as their text) are written as they came.
  const jobField =
    options.decimal === ','
      ? (value: Fields[string] | undefined) =>
          // A number is no formula: quoted if need be, never guarded (the guard would take -8,4 for one).
          typeof value === 'number'
            ? csvCell(String(value).replace('.', ','), delimiter)
            : csvField(value, guard, delimiter)
      : (value: Fields[string] | undefined) => csvField(value, guard, delimiter);
  const warn = options.onWarning ?? (() => {});
  const jobColumns = new Set(options.jobColumns);
  const resumed = options.resume as
    | { layout?: CsvLayout; records?: number; unknownKeyRows?: number }
    | undefined;
  let layout = resumed?.layout;
  let inputSet = new Set(layout?.input);
  let records = resumed?.records ?? 0;
  let unknownKeyRows = resumed?.unknownKeyRows ?? 0;

  function start(): CsvLayout {
    const next = csvLayout(inputColumnsOnly(options.inputColumns()), options.jobColumns, [
      STATUS_COLUMN,
      ERROR_COLUMN,
    ]);
    inputSet = new Set(next.input);
    const header = csvLine(
      next.header.map((h) => toCell(h, guard)),
      delimiter,
    );
    sink.write(options.bom === true ? `\uFEFF${header}` : header);
    return next;
  }

  // The sink gathers lines into writes of 64 KiB (its byte budget); nothing waits here.
  function flush(): boolean {
    return true;
  }

  function add(
    l: CsvLayout,
    fields: Fields,
    columns: Fields | undefined,
    status: string,
    code: string,
  ): boolean {
    // One string per record, built cell by cell: no array of cells, no per-field objects.
    let line = '';
    // A job column that replaces an input column holds this run's answer, empty for a failed row:
    // the input's value there is an earlier answer, not one to show as this run's.
    for (const name of l.input) {
      line += jobColumns.has(name)
        ? jobField(columns?.[name])
        : csvField(fieldOf(fields, name), guard, delimiter);
      line += delimiter;
    }
    for (const name of l.added) {
      line += jobField(columns?.[name]);
      line += delimiter;
    }
    line += csvCell(status, delimiter);
    line += delimiter;
    line += csvCell(code, delimiter);
    records++;
    return sink.write(`${line}\n`);
  }

  function checkKeys(fields: Fields, outcome: Outcome): void {
    for (const key in fields) {
      if (inputSet.has(key) || isOwnColumn(key)) continue;
      if (unknownKeyRows++ === 0) {
        warn(
          `Row ${outcome.ref.index + 1} has key ${JSON.stringify(key)}, which is not among the CSV columns ` +
            '(taken from the first row); such keys are left out of the CSV output and counted in the summary',
        );
      }
      return;
    }
  }

  return {
    write(outcome) {
      layout ??= start();
      const fields = inputFields(outcome);
      checkKeys(fields, outcome);
      let ok = true;
      for (const written of writtenRecords(outcome))
        ok = add(layout, fields, written.columns, written.status, written.code) && ok;
      return ok;
    },
    flush,
    state: (): WriterState => {
      flush();
      return { layout, records, unknownKeyRows };
    },
    stats: () => ({ records, unknownKeyRows }),
    end() {
      layout ??= start();
      flush();
    },
  };
}

/**
 * How many columns a GeoPackage's feature table may have. SQLite refuses a table of more than
 * SQLITE_MAX_COLUMN (2000 unless compiled otherwise, as node:sqlite is not), and it did so only
 * when the first row was written: after the requests of a window of rows had been paid for, and as
 * an IO_ERROR that sent the user to check the disk. The run checks the count before any request
 * (src/run/_output-columns.ts), validate before the run, and the writer once more at its table.
 */
import { UsageError } from '../errors.js';
import { ERROR_COLUMN, inputColumnsOnly, STATUS_COLUMN } from './_columns.js';
import { csvLayout } from './csv.js';

/** SQLite's default SQLITE_MAX_COLUMN, which node:sqlite keeps. */
export const GPKG_MAX_COLUMNS = 2000;

/** The feature table's columns: fid, geom, the input's, those the job adds, the status pair. */
export function gpkgColumnCount(input: readonly string[], job: readonly string[]): number {
  // An earlier run's own columns (its output fed back) are not written again, as in the writer.
  return 2 + csvLayout(inputColumnsOnly(input), job, [STATUS_COLUMN, ERROR_COLUMN]).header.length;
}

/** Throws USAGE when a GeoPackage at `path` would have more columns than SQLite holds. */
export function checkGpkgColumns(path: string, input: readonly string[], job: readonly string[]): void {
  const count = gpkgColumnCount(input, job);
  if (count <= GPKG_MAX_COLUMNS) return;
  const added = count - 2 - inputColumnsOnly(input).length;
  throw new UsageError(
    `The GeoPackage ${path} would have ${count} columns (fid, geom, ${inputColumnsOnly(input).length} of the input, ${added} geobatch adds), more than the ${GPKG_MAX_COLUMNS} an SQLite table holds`,
    {
      file: path,
      expected: `at most ${GPKG_MAX_COLUMNS} columns`,
      received: `${count} columns`,
      hint: 'Write CSV, NDJSON or GeoJSON instead (they have no column limit), or leave input columns out before the run.',
    },
  );
}

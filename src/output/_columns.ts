/**
 * The columns geobatch itself writes. An input that already has them (an output or an error
 * report fed back in) must not get them twice: the input's copies describe an earlier run and are
 * dropped, and this run writes its own.
 */

/** Added to every output record after the job's columns. */
export const STATUS_COLUMN = 'geobatch_status';
export const ERROR_COLUMN = 'geobatch_error';

/** The error report's own columns (CSV), before the input columns. */
export const REPORT_COLUMNS = [
  'geobatch_row',
  'geobatch_line',
  'geobatch_job',
  'geobatch_stage',
  ERROR_COLUMN,
  'geobatch_http_status',
  'geobatch_message',
  'geobatch_attempts',
  'geobatch_detail',
  'geobatch_raw',
] as const;

const OWN: ReadonlySet<string> = new Set<string>([STATUS_COLUMN, ...REPORT_COLUMNS]);

/** True for a column geobatch writes itself (in the output or the error report). */
export function isOwnColumn(name: string): boolean {
  return OWN.has(name);
}

/** The input's columns without geobatch's own. */
export function inputColumnsOnly(columns: readonly string[]): string[] {
  return columns.filter((c) => !OWN.has(c));
}

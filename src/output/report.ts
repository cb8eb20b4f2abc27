/**
 * The error report: one record per failed row, saying where (row number, source line), what
 * (stage, code, HTTP status, attempts, message, detail) and with which input. What geobatch
 * composes (the message, the service's detail, where a service error may echo a key) passes
 * through `scrub`; the input's own text, its fields and the raw line of a record that could not be
 * parsed, is written as it was read, as the output writes it: it is the user's data (scrubbing it
 * would hide nothing the fields do not show) and what the user fixes and feeds back. The CSV form
 * keeps the input columns under their own names, so the report can be fixed and fed back as input.
 */
import { stringify } from 'csv-stringify/sync';
import { fieldOf } from '../fields.js';
import { scrub } from '../secrets.js';
import type { Outcome, RowIssue } from '../types.js';
import { toCell } from './_cells.js';
import { inputColumnsOnly, REPORT_COLUMNS } from './_columns.js';
import { withNumbers } from './_number-texts.js';
import type { Sink } from './_sink.js';
import { inputFields, ownFieldsDropped, type RecordWriter, type WriterState } from './writer.js';

export { REPORT_COLUMNS } from './_columns.js';

export type ReportFormat = 'csv' | 'ndjson';

/** The extensions an error report may have, and the format each means. */
export const REPORT_EXTENSIONS: Readonly<Record<string, ReportFormat>> = {
  '.csv': 'csv',
  '.txt': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
};

export interface ReportOptions {
  format: ReportFormat;
  /** The job kind, written in every record (a pipeline's rows name the step they failed at). */
  job: string;
  inputColumns: () => readonly string[];
  /** @default true */
  formulaGuard?: boolean;
  /** CSV: a UTF-8 byte order mark before the header (Excel reads `Straße` right only with one). */
  bom?: boolean;
  /** CSV: the delimiter. @default ',' */
  delimiter?: string;
  resume?: WriterState;
}

interface Entry {
  readonly row: number;
  readonly line: number;
  readonly job: string;
  readonly stage: string;
  readonly code: string;
  readonly status: number | null;
  readonly message: string;
  readonly attempts: number | null;
  readonly detail: Readonly<Record<string, string | number>> | null;
  readonly raw: string | null;
}

function entry(issue: RowIssue, job: string): Entry {
  const detail = issue.detail === undefined ? null : scrubDetail(issue.detail);
  return {
    row: issue.ref.index + 1,
    line: issue.ref.line,
    job: issue.step ?? job,
    stage: issue.stage,
    code: issue.code,
    status: issue.status ?? null,
    message: scrub(issue.message),
    attempts: issue.attempts ?? null,
    detail,
    // The input's text as read, never scrubbed: a partner name in it would come back `[redacted]`,
    // a line the user can no longer feed back (RowIssue.raw is only ever set by an input reader).
    // A NUL shown as ␀ (U+2400): a report holding the byte would be refused as binary when fed back.
    raw: issue.raw === undefined ? null : issue.raw.replaceAll('\0', '\u2400'),
  };
}

function scrubDetail(detail: Readonly<Record<string, string | number>>): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(detail))
    out[key] = typeof value === 'string' ? scrub(value) : value;
  return out;
}

export function createReportWriter(sink: Sink, options: ReportOptions): RecordWriter {
  const resumed = options.resume as { columns?: readonly string[]; records?: number } | undefined;
  let columns = resumed?.columns;
  let records = resumed?.records ?? 0;
  const guard = options.formulaGuard ?? true;
  const dialect = { delimiter: options.delimiter ?? ',' };

  function startCsv(): readonly string[] {
    const input = inputColumnsOnly(options.inputColumns());
    const header = stringify([[...REPORT_COLUMNS, ...input].map((c) => toCell(c, guard))], dialect);
    // Only at the file's start: a resumed report has its columns, and its mark, already.
    sink.write(options.bom === true ? `\uFEFF${header}` : header);
    return input;
  }

  function csvLine(outcome: Outcome & { status: 'failed' }, input: readonly string[]): string {
    const e = entry(outcome.issue, options.job);
    const fields = inputFields(outcome);
    const detail = e.detail === null ? '' : JSON.stringify(e.detail);
    const meta = [e.row, e.line, e.job, e.stage, e.code, e.status, e.message, e.attempts, detail, e.raw];
    return stringify(
      [[...meta, ...input.map((c) => fieldOf(fields, c))].map((v) => toCell(v, guard))],
      dialect,
    );
  }

  return {
    write(outcome) {
      if (outcome.status !== 'failed') return true;
      records++;
      if (options.format === 'ndjson') {
        return sink.write(
          `${JSON.stringify({ ...entry(outcome.issue, options.job), fields: reportFields(outcome), ...geometryOf(outcome) })}\n`,
        );
      }
      columns ??= startCsv();
      return sink.write(csvLine(outcome, columns));
    },
    flush: () => true,
    state: () => ({ columns, records }),
    stats: () => ({ records, unknownKeyRows: 0 }),
    end() {
      if (options.format === 'csv') columns ??= startCsv();
    },
  };
}

/**
 * The failed row's geometry (GeoJSON input), so that the report, fed back, has what the job read:
 * a boundaries row is its Point. None for CSV and NDJSON rows, which have no geometry.
 */
function geometryOf(outcome: Outcome): { geometry?: unknown } {
  const geometry = outcome.row?.geometry;
  return geometry === undefined ? {} : { geometry };
}

/** A row's input fields for the NDJSON report, numbers kept as their text written as numbers. */
function reportFields(outcome: Outcome): Readonly<Record<string, unknown>> {
  const input = inputFields(outcome);
  return withNumbers(input, ownFieldsDropped(input));
}

/**
 * The output side of a run: one writer per format turning outcomes (in input order) into records.
 * Every row gets at least one record; a failed row one with the job's columns empty, unless the job
 * still gave records for the row's other parts.
 */
import type { Fields, Outcome, OutputRecord } from '../types.js';
import { ERROR_COLUMN, isOwnColumn, STATUS_COLUMN } from './_columns.js';
import { withNumbers } from './_number-texts.js';

export { ERROR_COLUMN, STATUS_COLUMN } from './_columns.js';

export type OutputFormat = 'csv' | 'ndjson' | 'geojson' | 'gpkg';

/**
 * The extensions geobatch writes, and the format each means (`.tsv`: CSV with TAB). An output path
 * with another extension is refused rather than written in a format its name does not say.
 */
export const OUTPUT_EXTENSIONS: Readonly<Record<string, OutputFormat>> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.txt': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.geojson': 'geojson',
  '.json': 'geojson',
  '.gpkg': 'gpkg',
};

/** What a writer needs to continue the same file in a resumed run (stored in the checkpoint). */
export type WriterState = Readonly<Record<string, unknown>>;

export interface WriterStats {
  /** Records written (a row the job explodes into hits writes several). */
  readonly records: number;
  /** Rows with keys the CSV columns (taken from the first row) could not hold. */
  readonly unknownKeyRows: number;
}

export interface RecordWriter {
  /** Writes one row's records. False asks the caller to await the sink's `drain()`. */
  write(outcome: Outcome): boolean;
  /** Hands rows gathered in the writer to the sink. False asks the caller to await `drain()`. */
  flush(): boolean;
  /** State to store with a checkpoint; flushes first, so that it matches the sink's bytes. */
  state(): WriterState;
  /**
   * The state as of the rows written so far, taken without flushing or committing anything, to be
   * laid over `state()` when a checkpoint is made later at this row (run/committer.ts `mark`).
   * Absent where `state()` is that already: a text writer's state is counts, nothing pending.
   */
  mark?(): WriterState;
  /** Counts for the summary (carried over a resume through the state). */
  stats(): WriterStats;
  /** Writes whatever closes the file (the GeoJSON trailer; a CSV header if no row came). */
  end(): void;
}

export interface WriterOptions {
  /** Columns the job adds, in order. */
  jobColumns: readonly string[];
  /** The input's columns (CSV header, or the first row's keys), asked for when the first row is written. */
  inputColumns: () => readonly string[];
  /** Prefix `'` to CSV text cells a spreadsheet would run as formulas. @default true */
  formulaGuard?: boolean;
  /** CSV field delimiter. @default ',' */
  delimiter?: string;
  /** CSV: a UTF-8 byte order mark before the header (a resumed file has it already). @default false */
  bom?: boolean;
  /** CSV: the decimal mark of the numbers written (German Excel reads `,`). @default '.' */
  decimal?: '.' | ',';
  /** Told once about things the output cannot hold (keys missing from the CSV columns, name clashes). */
  onWarning?: (message: string) => void;
  /** State from a checkpoint, when continuing a file. */
  resume?: WriterState;
}

/** The input fields of an outcome: the row's, or what could be read of a malformed record. */
export function inputFields(outcome: Outcome): Fields {
  if (outcome.row !== undefined) return outcome.row.fields;
  return outcome.status === 'failed' ? (outcome.issue.fields ?? {}) : {};
}

/** One record as written: its job columns (none: all empty), its own geometry and its status pair. */
export interface WrittenRecord {
  readonly columns: Fields | undefined;
  readonly record: OutputRecord | undefined;
  readonly status: 'ok' | 'failed';
  readonly code: string;
}

/**
 * The records an outcome writes. An ok row: its records. A failed row: the records the job could
 * still give (each failed part with its own code), else one record with the job's columns empty.
 */
export function* writtenRecords(outcome: Outcome): Generator<WrittenRecord> {
  const records = outcome.status === 'ok' ? outcome.records : (outcome.records ?? []);
  if (outcome.status === 'failed' && records.length === 0) {
    yield { columns: undefined, record: undefined, status: 'failed', code: outcome.issue.code };
    return;
  }
  for (const record of records) {
    const failed = record.error !== undefined;
    yield { columns: record.columns, record, status: failed ? 'failed' : 'ok', code: record.error ?? '' };
  }
}

/** The input fields without geobatch's own columns (an earlier run's, when its output is fed back). */
export function ownFieldsDropped(fields: Fields): Fields {
  let copy: Record<string, Fields[string]> | undefined;
  for (const key in fields) {
    if (!isOwnColumn(key)) continue;
    copy ??= { ...fields };
    delete copy[key];
  }
  return copy ?? fields;
}

/**
 * Output objects for NDJSON, GeoJSON and GeoPackage: input fields, job columns, then the status
 * pair. A job column the input also has keeps the input's place and takes this run's value (null
 * when failed). An input number kept as its text is raw JSON of that text (_number-texts.ts).
 */
export function* outputObjects(
  outcome: Outcome,
  jobColumns: readonly string[],
  /** 'text' keeps a nested input value as its JSON text (a GeoPackage column holds no object). */
  nested: 'value' | 'text' = 'value',
): Generator<Record<string, unknown>> {
  const input = inputFields(outcome);
  const fields = withNumbers(input, ownFieldsDropped(input), nested);
  for (const written of writtenRecords(outcome)) {
    const object: Record<string, unknown> = { ...fields };
    for (const column of jobColumns) object[column] = written.columns?.[column] ?? null;
    object[STATUS_COLUMN] = written.status;
    object[ERROR_COLUMN] = written.code;
    yield object;
  }
}

/**
 * The data that flows through a run: rows in, outcomes out, row problems as data.
 * Type-only; nothing here runs, and nothing from src/ is imported but the error code union.
 */
import type { Geometry } from 'geojson';
import type { ErrorCode } from './errors.js';

/**
 * A cell value. Readers give strings (CSV) or JSON scalars (NDJSON, GeoJSON properties). A JSON
 * number a double cannot repeat as written (an id past 2^53, `1.50`) arrives as its text, its key
 * listed on the fields (src/number-texts.ts).
 */
export type FieldValue = string | number | boolean | null;

/** A row's fields by column name, in column order. */
export type Fields = Record<string, FieldValue>;

/** Where a row came from. Stable across runs of the same input: the checkpoint relies on it. */
export interface RowRef {
  /** 0-based ordinal among the input's data records (header excluded). Output order follows it. */
  readonly index: number;
  /** 1-based line in the source file where the record starts (for GeoJSON, the feature's line). */
  readonly line: number;
  /**
   * Last line of a record that spans several (line breaks inside a quoted CSV field); absent
   * when the record lies on `line` alone.
   */
  readonly lastLine?: number;
}

/** One input record. */
export interface Row {
  readonly kind: 'row';
  readonly ref: RowRef;
  readonly fields: Fields;
  /** The feature geometry when the input is GeoJSON; absent for CSV and NDJSON. */
  readonly geometry?: Geometry | null;
  /**
   * In a pipeline's later step: the columns the earlier steps added, which `fields` holds too (over
   * an input column of the same name). Tells a default column the input's from a step's.
   */
  readonly added?: Fields;
  /**
   * In a pipeline's later step: the row as read from the input, whose fields still list the keys
   * that hold a JSON number's text (src/number-texts.ts), which `fields`, a copy, does not.
   */
  readonly source?: Row;
}

/** Where in a row's life a problem happened. */
export type Stage = 'input' | 'request' | 'response';

/**
 * A problem with one row. Row problems are data: the run records them and goes on.
 * Secrets never appear here: messages come from GeobatchError (scrubbed) or from input text.
 */
export interface RowIssue {
  readonly kind: 'issue';
  readonly ref: RowRef;
  readonly stage: Stage;
  readonly code: ErrorCode;
  readonly message: string;
  /** The input field concerned, when one is. */
  readonly field?: string;
  /** HTTP status of the last answer, for request and response problems. */
  readonly status?: number;
  /** Attempts made for the request that failed. */
  readonly attempts?: number;
  /** The source text of a record that could not be parsed. */
  readonly raw?: string;
  /** Whatever fields could be read; the report shows them as the row's original fields. */
  readonly fields?: Fields;
  /**
   * A feature's geometry when the record failed for a property but the geometry is sound: its
   * output record and report line keep it, so that the report fed back has the row whole.
   */
  readonly geometry?: Geometry | null;
  /** Service diagnostics, e.g. `{ errCode, publicReport }` from geocoding. */
  readonly detail?: Readonly<Record<string, string | number>>;
  /** The pipeline step the row failed at (a run of several steps only). */
  readonly step?: string;
}

/** What a reader yields: a row, or a record it could not read (still a row for accounting). */
export type ReadItem = Row | RowIssue;

/** One output record: the job's added columns, and for GeoJSON output an optional geometry. */
export interface OutputRecord {
  readonly columns: Fields;
  /** `undefined` keeps the input geometry (GeoJSON input) or derives none; `null` writes null. */
  readonly geometry?: Geometry | null;
  /**
   * Set on a record that stands for a failed part of its row (a matrix pair whose tile failed):
   * the record is written with status `failed` and this code. Only in a failed outcome's records.
   */
  readonly error?: ErrorCode;
}

/** The fate of one input row, emitted in input order. */
export type Outcome =
  | {
      readonly status: 'ok';
      readonly ref: RowRef;
      readonly row: Row;
      /** At least one record; jobs that explode a row into hits give several. */
      readonly records: readonly OutputRecord[];
    }
  | {
      readonly status: 'failed';
      readonly ref: RowRef;
      /** Absent when the record itself could not be read. */
      readonly row?: Row;
      readonly issue: RowIssue;
      /**
       * What the job could still give for the row's other parts (a matrix origin whose other tiles
       * answered), failed parts marked by `error`. Absent: one record with the job's columns empty.
       */
      readonly records?: readonly OutputRecord[];
      /**
       * Where a row without a geometry of its own lies, as the job read it (the point elevation,
       * boundaries and reverse geocoding asked about): its GeoJSON and GeoPackage geometry, as an
       * ok row's would be, so that a failed point stays on the map beside the others.
       */
      readonly geometry?: Geometry;
    };

/** Coordinates are always [longitude, latitude], as the service's GeoJSON interfaces use them. */
export type LonLat = readonly [lon: number, lat: number];

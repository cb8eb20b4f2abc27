/**
 * What a job kind is, as one record: its name, what its mapping and options accept, its documented
 * defaults, the services it calls, and how to build the job. The registry lists the records; the
 * job-file schema, `validate`, `--dry-run`, the demo and the README's job table are made from them,
 * so that adding a kind is one module and one registry line.
 */
import type { z } from 'zod';
import type { AnyJob } from '../engine/job.js';
import type { Row, RowIssue } from '../types.js';
import { type ConstantCheck, constantIssue } from './_constants.js';
import type { KindCoordinates } from './_coord-format.js';
import type { Mapping } from './_fields.js';
import { type FileIssue, requireMapping, requireOptions } from './_file-rules.js';
import type { FormRule } from './_forms.js';
import type { JobClient } from './_ports.js';
import type { SwappedPoints } from './_swapped.js';

/** The service endpoints a kind may call (the names of the job file's `service.endpoints`). */
export type ServiceName = 'addressSearch' | 'geojson' | 'autocomplete' | 'token' | 'area' | 'elevation';

/** A second input a kind reads whole before the run (matrix destinations), as the job file names it. */
export interface SideInput {
  /** Relative to the job file. */
  readonly path: string;
  readonly format?: 'csv' | 'ndjson' | 'geojson';
  readonly delimiter?: string;
  readonly encoding?: string;
  readonly maxRecordBytes?: number;
  readonly maxRecordLines?: number;
  /**
   * The columns the kind reads from the file, as the job file maps them (`{ id: store_id }`):
   * checked against its CSV header before anything is read (src/run/side-columns.ts), as the
   * input's mapped columns are.
   */
  readonly mapping?: Readonly<Record<string, unknown>>;
}

export type { ConstantCheck } from './_constants.js';
// Defined beside the rules that make them (which _kind.ts uses: requireOptions), re-exported for
// the kinds, so that neither module imports the other back.
export type { FileIssue } from './_file-rules.js';

/** What `create` gets: everything the kind may use, nothing of the run around it. */
export interface KindContext<O> {
  readonly client: JobClient;
  readonly mapping: Mapping;
  readonly options: O;
  /** Base URLs of the configured endpoints (a kind whose answers link back to the service). */
  readonly endpoints: Readonly<Partial<Record<ServiceName, string>>>;
  /** Reads a side input, its path resolved against the job file. */
  readRows(input: SideInput): AsyncIterable<Row | RowIssue>;
  /** The side input's path as the user should see it in messages. */
  resolvePath(path: string): string;
  readonly signal?: AbortSignal;
  /**
   * Told of every row's points as `plan` reads them from the input (src/jobs/_swapped.ts), for the
   * run's warning of a file whose longitude and latitude look swapped. @default none
   */
  readonly points?: SwappedPoints;
}

/** The README's line for a kind: the mapping it reads and each option with its default. */
export interface KindDocs<O> {
  readonly mapping: string;
  /** Every option, each with its default and limits as the README shows them. */
  readonly options: { readonly [K in keyof Required<O>]: string };
}

export interface JobKind<S extends z.ZodObject = z.ZodObject> {
  /** As the job file's `job:` names it. */
  readonly name: string;
  /** One line: what the kind does. */
  readonly summary: string;
  /** Request fields a mapping may name. */
  readonly mappingFields: readonly [string, ...string[]];
  /**
   * The mapping must be given (there is no default column to read). Checked as a file rule
   * (`requireMapping`, after the kind's own), the same for a one-job file and a step, so that a
   * missing `mapping:` is refused naming the field the kind cannot do without.
   */
  readonly mappingRequired: boolean;
  /**
   * The forms the kind asks the service in, each reading its own mapping keys, of which a file
   * maps one form's only (src/jobs/_forms.ts): what `geobatch init` drafts one form from.
   */
  readonly forms?: FormRule<string>;
  /** The `options:` block, a strict object. */
  readonly options: S;
  readonly services: readonly ServiceName[];
  readonly docs: KindDocs<z.infer<S>>;
  /**
   * Rules across the mapping and the options that the schema's shapes cannot say (matrix: where the
   * destinations come from; a mapping field the kind cannot do without). Run when the job file is
   * loaded, so `validate`, a run, a dry run and a distributed run refuse a file alike, before
   * anything is read or sent. Every rule `create` enforces must be here too (src/jobs/_file-rules.ts).
   */
  checkFile?(file: {
    readonly mapping: Readonly<Record<string, unknown>>;
    readonly options: z.infer<S>;
  }): FileIssue | undefined;
  /**
   * With these options, may one input row give several output rows? Such a step must be the last
   * of a pipeline: the steps after it read one row per input row.
   */
  multipleRecords?(options: z.infer<S>, mapping: Readonly<Record<string, unknown>>): boolean;
  /**
   * The columns the job adds, for a kind whose `create` reads a side input (matrix): `validate`
   * checks the steps' columns without reading one. Absent: they are learnt by building the job
   * with a client that is never called (see `jobColumns`).
   */
  columns?(options: z.infer<S>): readonly string[];
  /**
   * The coordinate columns the kind writes and the mapping keys it reads points from, each with
   * its format: a pipeline refuses a step that reads, in one format, a column an earlier step
   * writes in another (src/run/step-formats.ts). Absent: it neither reads nor writes any. `mapping`:
   * the step's, for a kind whose mapping decides which points it reads (address-search's forms).
   */
  coordinates?(options: z.infer<S>, mapping?: Readonly<Record<string, unknown>>): KindCoordinates;
  /**
   * The row checks other than its points' (`coordinates`) that a mapping constant may fail: a
   * country, a postcode, an id, a number, a time... A constant no row can pass is refused when the
   * file loads (src/jobs/_constants.ts). Absent: the kind checks no constant but its points.
   * `mapping`: the file's, for a kind whose mapping decides what it reads (address-search's forms).
   */
  constants?(options: z.infer<S>, mapping: Readonly<Record<string, unknown>>): readonly ConstantCheck[];
  /**
   * Side inputs the options name, for `validate`, the check of their mapped columns and the
   * fingerprint; each by the key of the option that gives it, so that `options.<name>` is where it
   * is in the job file.
   */
  sideInputs?(options: z.infer<S>): Readonly<Record<string, SideInput>>;
  create(context: KindContext<z.infer<S>>): AnyJob | Promise<AnyJob>;
}

/**
 * Keeps a kind's option type tied to its schema, and gives every kind the rules that its required
 * options are there (before the kind's own rules, which may read them) and that a kind without
 * default columns has a mapping (after them: theirs name the very field that is missing).
 */
export function defineJobKind<S extends z.ZodObject>(kind: JobKind<S>): JobKind<S> {
  const own = kind.checkFile;
  return {
    ...kind,
    checkFile: (file) =>
      requireOptions(kind.options, file.options) ??
      own?.(file) ??
      kindConstantIssue(kind, file.options, file.mapping) ??
      requireMapping(kind, file.mapping),
  };
}

/** The first of the mapping's constants that no row of a job of `kind` can pass (see _constants.ts). */
export function kindConstantIssue<S extends z.ZodObject>(
  kind: Pick<JobKind<S>, 'coordinates' | 'constants'>,
  options: z.infer<S>,
  mapping: Readonly<Record<string, unknown>>,
): FileIssue | undefined {
  return constantIssue(
    {
      ...(kind.coordinates === undefined ? {} : { coordinates: kind.coordinates(options, mapping) }),
      ...(kind.constants === undefined ? {} : { checks: kind.constants(options, mapping) }),
    },
    mapping,
  );
}

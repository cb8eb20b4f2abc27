/**
 * What the engine needs from a job. A job turns rows into work items, sends items (alone or in
 * batches) through the client it was built with, and turns answers back into columns.
 *
 * The engine owns ordering, bounding, batching, dedup and accounting; a job owns only the meaning
 * of rows and answers. Keeping that split is what lets every job get resume, dedup and the
 * row-accounting invariant for free.
 */
import type { Geometry } from 'geojson';
import type { ErrorCode } from '../errors.js';
import type { OutputRecord, Row, Stage } from '../types.js';

/** Why one item (or one row) failed. Becomes a RowIssue in the error report. */
export interface ItemFailure {
  readonly code: ErrorCode;
  readonly message: string;
  /**
   * Where it failed: `request` or `response`, or `input` for what a job refuses at execute without
   * sending anything, knowing the whole group only then (a trip over `maxStops`).
   */
  readonly stage: Stage;
  readonly status?: number;
  readonly attempts?: number;
  readonly field?: string;
  readonly detail?: Readonly<Record<string, string | number>>;
}

export type ItemResult<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly failure: ItemFailure };

/** A row the job cannot use, found before any request: stage `input`. */
export interface PlanIssue {
  readonly code: Extract<ErrorCode, 'FIELD_MISSING' | 'FIELD_INVALID' | 'INPUT_MALFORMED'>;
  readonly message: string;
  readonly field?: string;
}

/** How the engine packs items into one request. */
export interface Batching<I> {
  /** Hard cap on items per request (e.g. 500 elevation points). */
  readonly maxItems: number;
  /** Flush a partial batch after this many milliseconds without reaching `maxItems`. */
  readonly lingerMs: number;
  /** Only items with the same group share a request (e.g. one MATRIX request per origin). */
  group?(item: I): string;
  /** With `maxWeight`, bounds a batch by a sum (e.g. URL length of joined keys). */
  weight?(item: I): number;
  readonly maxWeight?: number;
  /**
   * One request per group in flight at a time; when it returns, the group's queued items are asked
   * `resolveLocally` again and repacked. For jobs whose answers teach `resolveLocally` (boundaries:
   * one answer covers many later points), this trades parallelism for requests not sent.
   * @default false
   */
  readonly serial?: boolean;
  /**
   * Each group's items arrive as one unbroken run (a trip's stops, a GPS track: rows grouped by a
   * column): a group's batch is sent when an item of another group arrives or the input ends,
   * never after `lingerMs`. A batch of `maxItems` is sent when the next item comes (of its group:
   * the group goes on in a new batch), so that the job knows at `execute` whether the group ended.
   * It may still leave early, cut, when the window is full and the head row waits in it; a job that
   * needs whole groups checks for that (see `inputEnded`).
   * @default false
   */
  readonly contiguous?: boolean;
}

export interface Job<I, R> {
  /** The job kind, as the job file names it (`geocode`, `elevation`...). */
  readonly kind: string;
  /** Columns this job adds to every output row, in order. */
  readonly columns: readonly string[];
  /**
   * Validate a row and map it to the items it needs (usually one). Returning a PlanIssue fails
   * the row at stage `input` without a request. Returning `[]` means no request is needed; the
   * row is then rendered with no results.
   */
  plan(row: Row): readonly I[] | PlanIssue;
  /** Identical keys are requested once per run and their answer shared. */
  key(item: I): string;
  /** Present when many items share one request. */
  readonly batching?: Batching<I>;
  /**
   * An answer known without a request (e.g. a point inside a boundary already fetched). Called
   * when the item is planned and again just before its batch is sent.
   */
  resolveLocally?(item: I): R | undefined;
  /**
   * How many requests the batch `items` costs, when that is known before sending and is not one:
   * a trip of one stop costs none, a boundaries point without the spatial index one GET a level.
   * `earlier` is the number of batches sent before it. A dry run counts by it. With
   * `requestsRule`, the fewest it can cost. @default one per batch
   */
  requestsFor?(items: readonly I[], earlier: number): number;
  /**
   * For a job whose requests depend on the answers to earlier batches (boundaries with the spatial
   * index: the areas learnt answer later points), the rule a dry run states beside its count of
   * `batches`, which `requestsFor` then gives as the fewest: the count is "at least".
   */
  requestsRule?(batches: number): string;
  /**
   * The job's `execute` tells the engine, through `requestTraces` (counters.ts), when a request was
   * answered without the service: the request cache around its client, or its own knowledge. The
   * engine runs only such a job's `execute` in a trace (an AsyncLocalStorage context, a cost on
   * every request otherwise). @default false
   */
  readonly tracesRequests?: boolean;
  /**
   * The failure of a batch this job fails whole without sending it (a trip over `maxStops`, a track
   * of one fix), else undefined. The job's `execute` fails such a batch itself; a dry run, which
   * does not call `execute`, fails its rows by it, as rows that would fail before any request.
   */
  refusedBatch?(items: readonly I[]): ItemFailure | undefined;
  /**
   * The most requests the batch `items` can cost, when its answers can ask for more (further
   * pages of hits): Infinity when nothing bounds them. A dry run gives it beside its count.
   * @default requestsFor
   */
  requestsAtMost?(items: readonly I[]): number;
  /**
   * Send one request (or one batch) and answer every item by key. Throw a GeobatchError whose code
   * is fatal to stop the run; any other throw fails all of these items with its code and context.
   * A key missing from the map fails that item as INTERNAL. The engine also gives `keys`, where
   * `keys[i]` is `key(items[i])` as it was computed when the item was planned: a job may answer
   * by them instead of keying every item again (a caller outside the engine may leave them out).
   */
  execute(
    items: readonly I[],
    signal: AbortSignal,
    keys?: readonly string[],
  ): Promise<ReadonlyMap<string, ItemResult<R>>>;
  /**
   * Turn a row and its items' results (in `plan` order) into output records, or a failure.
   * Must not throw for data problems: return `{ ok: false }`.
   */
  render(row: Row, results: readonly ItemResult<R>[]): RenderResult;
  /**
   * Called once when the input has ended, before the last partial batches are sent: a job that
   * builds groups from consecutive rows learns that its last group is complete.
   */
  inputEnded?(): void;
  /**
   * Whether a resumed run could start at row `index` (0-based) and answer it as this run would.
   * False inside a group whose answer needs earlier rows (a trip, a track): the run then commits
   * its checkpoint only where this says true. Absent: every row is a place to resume.
   */
  resumableAt?(index: number): boolean;
  /**
   * The group a row belongs to, for jobs whose answer for a row needs its group's other rows
   * (a trip's stops, a track's fixes); undefined for a row that names none. A distributed run cuts
   * its chunks only where this changes, so that no group is split between two workers.
   */
  groupOf?(row: Row): string | undefined;
  /**
   * For a pipeline of several steps of groups: each step's group of the row (groupOf's parts, in
   * step order). Steps may group by different columns (a track's fixes, a tour's stops), so rows
   * of one `groupOf` may still share a group of one step with the rows before: a selection or a
   * distributed run's chunk ends only where none does. Absent: `groupOf` alone.
   */
  groupParts?(row: Row): readonly (string | undefined)[];
  /**
   * Where the row lies as this job reads it (its mapped lon/lat), for the run report's map: a
   * failed row has no record of the job's to carry a geometry. Undefined when it names no point.
   */
  locate?(row: Row): Geometry | undefined;
  /**
   * Groups that ended before the first row this job will see (in earlier chunks of a distributed
   * run), with their 1-based first and last rows: one that comes again fails as in one pass.
   */
  endedBefore?(groups: ReadonlyMap<string, { readonly first: number; readonly last: number }>): void;
}

export type RenderResult =
  | { readonly ok: true; readonly records: readonly OutputRecord[] }
  | {
      readonly ok: false;
      readonly failure: ItemFailure;
      /** Records for the parts that did not fail, and the failed parts marked (see OutputRecord.error). */
      readonly records?: readonly OutputRecord[];
      /** Where the row lies, for a row without a geometry of its own (see the failed Outcome's). */
      readonly geometry?: Geometry;
    };

/** A job whose item and result types are not known to the caller (the engine's view). */
// biome-ignore lint/suspicious/noExplicitAny: the engine handles items and results opaquely.
export type AnyJob = Job<any, any>;

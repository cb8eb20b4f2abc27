/**
 * Several jobs in one pass over the input: each step is an engine of its own, fed the outcomes of
 * the step before it, so one read, one ordered output and one checkpoint serve them all.
 *
 * - A step sees the row with the columns the steps before it added (and the geometry they gave).
 * - A row that fails at a step passes through the later steps untouched, keeps its place in the
 *   order and leaves with the failing step named in its issue; it is reported once.
 * - What leaves the pipeline looks like the outcome of one job whose columns are all the steps'
 *   columns: the input's own fields, then every step's columns, so the writers need not know.
 * - Only the last step may write several records for one row (a middle step's rows are the next
 *   step's input rows, one each); a middle step that does fails that row as INTERNAL.
 * - Steps that ask the same (`Step.shares`: two geocode steps, one per end of a route) share their
 *   dedup and their items in flight, so an identical item is bought once (_step-sharing.ts).
 */

import type { Geometry } from 'geojson';
import { fatalReason, RunError } from '../errors.js';
import type { HttpAttempts } from '../http-attempts.js';
import type { Fields, Outcome, OutputRecord, ReadItem, Row, RowIssue } from '../types.js';
import { STEP_BATCH_WAIT_MS } from './_batcher.js';
import { type SharedAnswers, StepSharing } from './_step-sharing.js';
import type { AnswerCache } from './answers.js';
import { createCounters, type EngineCounters } from './counters.js';
import { type EngineItem, type ProcessOptions, processRows } from './engine.js';
import type { AnyJob } from './job.js';

export interface Step {
  /** How the error report and the summary name the step (its job kind, or the name the file gives). */
  readonly name: string;
  readonly job: AnyJob;
  /** This step's persistent answers (the request cache), if it has any. */
  readonly answers?: AnswerCache;
  /**
   * What its answers are kept under (the request cache's scope, cache or not): steps with the same
   * share their dedup and their items in flight, so that an identical item is bought once.
   * @default none: the step shares nothing
   */
  readonly shares?: string;
}

/** One step's counts: its engine's, and the failed rows that only passed through it. */
export interface StepCounters {
  readonly name: string;
  readonly counters: EngineCounters;
  /**
   * Rows that had failed at an earlier step, as this step's engine emitted them: counted in its
   * rowsFailed, not failed here. Counted on the way out, as rowsFailed is, so that a run stopped
   * with such rows still inside the step never counts more of them than it emitted.
   */
  passedThrough: number;
  /**
   * Rows that had failed at an earlier step, as this step took them in: its rowsRead less these are
   * the rows that reached it, also in a run stopped with failed rows still inside the step (which
   * counted them read and not yet passed through, and so made more rows reach a step than the
   * step before had answered ok).
   */
  passedIn: number;
  /**
   * The HTTP attempts the client made for this step's requests (retries, further pages, splits
   * and token requests included, as the run's `requests.http` counts them): what the step cost.
   */
  readonly http: HttpAttempts;
}

export interface PipelineOptions extends ProcessOptions {
  /** One per step, in step order (created when absent); readable while the run goes. */
  readonly stepCounters?: readonly StepCounters[];
}

/** A row as a later step sees it, with what it came from. */
interface StepRow extends Row {
  /** The row as read from the input. */
  readonly source: Row;
  /** Columns the earlier steps added, in step order. */
  readonly added: Fields;
  /** The geometry the earlier steps gave, if any did. */
  readonly addedGeometry?: Geometry | null;
}

export function createStepCounters(steps: readonly Step[]): StepCounters[] {
  return steps.map((step) => ({
    name: step.name,
    counters: createCounters(),
    passedThrough: 0,
    passedIn: 0,
    http: { count: 0 },
  }));
}

/** Every step's columns, in order: the columns of the pipeline as one job. */
export function pipelineColumns(steps: readonly Step[]): string[] {
  return steps.flatMap((step) => step.job.columns);
}

/** Runs the steps over the items; outcomes leave in input order, one per input row. */
export async function* processSteps(
  items: AsyncIterable<ReadItem>,
  steps: readonly Step[],
  options: PipelineOptions = {},
): AsyncGenerator<Outcome> {
  const counters = options.stepCounters ?? createStepCounters(steps);
  // A row waits in every later step that batches, in turn: they share the longest wait.
  const waiting = steps
    .slice(1)
    .filter((s) => s.job.batching !== undefined && s.job.batching.contiguous !== true);
  const stepWaitMs = STEP_BATCH_WAIT_MS / Math.max(1, waiting.length);
  let stream: AsyncIterable<Outcome> | undefined;
  const later = laterSteps(options);
  const shared = sharing(steps);
  for (const [i, step] of steps.entries()) {
    const tally = counters[i] as StepCounters;
    const input: AsyncIterable<EngineItem> =
      stream === undefined ? items : handOn(stream, steps[i - 1] as Step, tally);
    const own = {
      ...options,
      ...(i > 0 ? later.options : {}),
      counters: tally.counters,
      httpAttempts: tally.http,
      answers: step.answers,
      fedByStep: i > 0,
      stepWaitMs,
      shared: shared[i],
    };
    stream = named(processRows(input, step.job, own), step.name, tally);
  }
  if (stream === undefined) return;
  const run = options.counters;
  try {
    for await (const outcome of stream) {
      if (run !== undefined) totalInto(run, counters);
      yield leave(outcome);
    }
  } finally {
    later.dispose();
    // Also when a step stops the run: its rows and requests count, though no row left after them.
    if (run !== undefined) totalInto(run, counters);
  }
}

/**
 * Each step's share of what the steps of its scope have in common (_step-sharing.ts): none for a
 * step whose scope no other step has. Made per run of the steps: nothing outlives it.
 */
function sharing(steps: readonly Step[]): (SharedAnswers | undefined)[] {
  const count = new Map<string, number>();
  for (const { shares } of steps) if (shares !== undefined) count.set(shares, (count.get(shares) ?? 0) + 1);
  const groups = new StepSharing();
  return steps.map(({ shares }) =>
    shares !== undefined && (count.get(shares) ?? 0) > 1 ? groups.group(shares) : undefined,
  );
}

/**
 * How the later steps of a pipeline stop. A stop with a drain stops the first step reading and
 * sending, and lets its requests in flight come back; the rows they finish were paid for, and go
 * on through the later steps, which send their requests (batches part-full included, as at the
 * input's end) for the rows they have, for as long as the drain lasts: their signal aborts when
 * the drain's time is over or it is cut, at once for a fatal stop, and at once without a drain.
 * The later steps held every request as the first did, and dropped the rows the first step had
 * paid for: a pipeline stopped 6 s into a run had made 227 requests and kept no row.
 */
function laterSteps(options: PipelineOptions): {
  readonly options: Pick<ProcessOptions, 'signal' | 'drain'>;
  dispose(): void;
} {
  const { signal, drain } = options;
  if (signal === undefined || drain === undefined || drain.ms <= 0) return { options: {}, dispose: () => {} };
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const end = () => controller.abort(signal.reason);
  const stop = () => {
    if (fatalReason(signal) !== undefined || drain.cut?.aborted === true) return end();
    timer = setTimeout(end, drain.ms);
    drain.cut?.addEventListener('abort', end, { once: true });
  };
  if (signal.aborted) stop();
  else signal.addEventListener('abort', stop, { once: true });
  return {
    // No drain of their own: what is in flight when their time is over is aborted.
    options: { signal: controller.signal, drain: { ms: 0 } },
    dispose() {
      clearTimeout(timer);
      signal.removeEventListener('abort', stop);
      drain.cut?.removeEventListener('abort', end);
    },
  };
}

/**
 * The run's counts from the steps': rows as the first step read them and the last emitted them
 * (a row failed earlier leaves the last step as failed), the work of all steps added up.
 */
export function totalInto(run: EngineCounters, steps: readonly StepCounters[]): void {
  const first = steps[0]?.counters;
  const last = steps[steps.length - 1]?.counters;
  if (first === undefined || last === undefined) return;
  run.rowsRead = first.rowsRead;
  run.rowsEmitted = last.rowsEmitted;
  run.rowsOk = last.rowsOk;
  run.rowsFailed = last.rowsFailed;
  run.failuresByCode = { ...last.failuresByCode };
  for (const key of ADDED) run[key] = steps.reduce((sum, step) => sum + step.counters[key], 0);
  run.maxRowsInFlight = Math.max(...steps.map((step) => step.counters.maxRowsInFlight));
  run.maxRequestsInFlight = Math.max(...steps.map((step) => step.counters.maxRequestsInFlight));
}

const ADDED = [
  'itemsPlanned',
  'uniqueItems',
  'dedupHits',
  'localHits',
  'requestsSent',
  'itemsSent',
  'requestsResent',
  'itemsResent',
  'requestsFailed',
] as const satisfies readonly (keyof EngineCounters)[];

/**
 * The failing step's name on every issue that does not carry one yet. An issue that carries one
 * failed at an earlier step (named there) and only passed through this one.
 */
async function* named(
  outcomes: AsyncIterable<Outcome>,
  step: string,
  tally: StepCounters,
): AsyncGenerator<Outcome> {
  for await (const outcome of outcomes) {
    if (outcome.status !== 'failed') yield outcome;
    else if (outcome.issue.step === undefined) yield { ...outcome, issue: { ...outcome.issue, step } };
    else {
      tally.passedThrough++;
      yield outcome;
    }
  }
}

/** Outcomes of one step as the next step's input. */
async function* handOn(
  outcomes: AsyncIterable<Outcome>,
  from: Step,
  into: StepCounters,
): AsyncGenerator<EngineItem> {
  for await (const outcome of outcomes) {
    if (outcome.status === 'failed') {
      into.passedIn++;
      yield { kind: 'passed', ref: outcome.ref, outcome: unplaced(outcome) };
      continue;
    }
    if (outcome.records.length !== 1) {
      into.passedIn++;
      yield { kind: 'passed', ref: outcome.ref, outcome: tooMany(outcome, from) };
      continue;
    }
    yield nextRow(outcome.row, outcome.records[0] as OutputRecord);
  }
}

/**
 * A failed row without the place its failing step gave it (a point job's point): the output's
 * geometry is the last step's, and a point among a last step's polygons (or at the input's point
 * among the geocoded ones) is no geometry any step gave the row.
 */
function unplaced(outcome: Extract<Outcome, { status: 'failed' }>): Extract<Outcome, { status: 'failed' }> {
  if (outcome.geometry === undefined) return outcome;
  const { geometry: _placed, ...rest } = outcome;
  return rest;
}

function nextRow(row: Row, record: OutputRecord): StepRow {
  const before = row as Partial<StepRow>;
  const source = before.source ?? row;
  const added = { ...before.added, ...record.columns };
  const addedGeometry = record.geometry !== undefined ? record.geometry : before.addedGeometry;
  // Later steps read points. A line or an area a step gave the row (a track's line on its last fix,
  // a trip's line, a route, an isochrone) is the output's geometry if no later step gives one, but
  // the next step reads the point the row had before it rather than find no point at all.
  const geometry =
    record.geometry === null || record.geometry?.type === 'Point' ? record.geometry : row.geometry;
  return {
    kind: 'row',
    ref: row.ref,
    fields: { ...source.fields, ...added },
    ...(geometry === undefined ? {} : { geometry }),
    source,
    added,
    ...(addedGeometry === undefined ? {} : { addedGeometry }),
  };
}

function tooMany(
  outcome: Extract<Outcome, { status: 'ok' }>,
  from: Step,
): Extract<Outcome, { status: 'failed' }> {
  const issue: RowIssue = {
    kind: 'issue',
    ref: outcome.ref,
    stage: 'response',
    code: 'INTERNAL',
    step: from.name,
    message: `step ${from.name} wrote ${outcome.records.length} records for one row; only the last step may write several`,
    fields: outcome.row.fields,
  };
  return { status: 'failed', ref: outcome.ref, row: outcome.row, issue };
}

/** A pipeline outcome as one job's: the input row, and every step's columns in its records. */
function leave(outcome: Outcome): Outcome {
  const row = outcome.row as Partial<StepRow> | undefined;
  if (row?.source === undefined) return outcome;
  const source = row.source;
  const added = row.added ?? {};
  const withAdded = (record: OutputRecord): OutputRecord => {
    const geometry = record.geometry !== undefined ? record.geometry : row.addedGeometry;
    return {
      ...record,
      columns: { ...added, ...record.columns },
      ...(geometry === undefined ? {} : { geometry }),
    };
  };
  if (outcome.status === 'failed') {
    const issue =
      outcome.issue.fields === undefined ? outcome.issue : { ...outcome.issue, fields: source.fields };
    // A last step's partial records (a matrix origin with failed pairs) keep the earlier steps' columns.
    const records = outcome.records?.map(withAdded);
    return { ...outcome, row: source, issue, ...(records === undefined ? {} : { records }) };
  }
  return { ...outcome, row: source, records: outcome.records.map(withAdded) };
}

/**
 * The pipeline as the run sees one job: its name, all the steps' columns, and where a resume may
 * start (where every step may). It is never planned or sent: `processSteps` runs the steps.
 */
export function pipelineJob(steps: readonly Step[]): AnyJob {
  const never = (): never => {
    throw new RunError('INTERNAL', 'A pipeline runs through processSteps, never as one job');
  };
  return {
    kind: steps.map((step) => step.name).join('+'),
    columns: pipelineColumns(steps),
    plan: never,
    key: never,
    execute: never,
    render: never,
    resumableAt: (index) => steps.every((step) => step.job.resumableAt?.(index) ?? true),
    // A failed row is the input's row again (leave()): the first step that finds a point in it.
    locate: (row: Row) => {
      for (const step of steps) {
        const geometry = step.job.locate?.(row);
        if (geometry !== undefined) return geometry;
      }
      return undefined;
    },
    ...(steps.some((step) => step.job.groupOf !== undefined)
      ? {
          groupOf: (row: Row) => {
            const names = steps.map((step) => step.job.groupOf?.(row));
            return names.every((name) => name === undefined) ? undefined : JSON.stringify(names);
          },
          groupParts: (row: Row) => steps.map((step) => step.job.groupOf?.(row)),
        }
      : {}),
  };
}

/** A column two steps would both write: the later would overwrite the earlier. */
export function clashingColumn(
  steps: readonly Step[],
): { column: string; steps: [string, string] } | undefined {
  const owner = new Map<string, string>();
  for (const step of steps) {
    for (const column of step.job.columns) {
      const earlier = owner.get(column);
      if (earlier !== undefined) return { column, steps: [earlier, step.name] };
      owner.set(column, step.name);
    }
  }
  return undefined;
}

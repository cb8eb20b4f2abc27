/**
 * The run summary: one JSON document beside the (first) output saying how the run ended and what it cost,
 * for cron jobs and dashboards. Written atomically (temporary file, rename) like everything else.
 */
import { type ErrorCode, type ExitStatus, exitStatusOf, isGeobatchError } from '../errors.js';
import { scrub } from '../secrets.js';
import { writeFileAtomically } from './_atomic.js';

/**
 * How a run ended; `exitCode` is what the CLI returns for it. `empty`: the input held no data row
 * (exit 4). `output_closed`: the program reading standard output closed it (`| head`, exit 0).
 */
export type RunEnd = 'complete' | 'complete_with_failures' | 'stopped' | 'empty' | 'output_closed';

export interface RunSummary {
  readonly version: 1;
  readonly job: string;
  readonly ended: RunEnd;
  /**
   * 0 every row ok (or output closed by its reader); 3 finished with failed rows; 1 stopped
   * (checkpoint kept when rows were committed); 2 stopped by a usage problem found only once
   * reading began (e.g. input that is not GeoJSON); 4 no data row, or the input cut short
   * (`input.truncated`, the run otherwise finished). The table: EXIT_BY_CODE.
   */
  readonly exitCode: ExitStatus;
  /** Why the run did not end `complete` or `complete_with_failures`. */
  readonly error: { readonly code: ErrorCode; readonly message: string; readonly hint?: string } | null;
  readonly dryRun: boolean;
  readonly input: {
    readonly path: string;
    readonly format: string;
    readonly bytes: number | null;
    readonly truncated: boolean;
    /**
     * Lines skipped as blank, no row: empty, or a record with no data (`;;;;`, a line of spaces),
     * above the header or between rows. Absent in summaries of earlier versions.
     */
    readonly blankLines?: number;
    /**
     * The rows `--limit` or `--sample` selected (`seed`: the sample's, null without one): the run
     * did not answer every row of its input. Absent when every row was read.
     */
    readonly selection?: RowSelectionSummary;
  };
  /** The (first) output; null for a dry run. */
  readonly output: OutputSummary | null;
  /** Every output, the first (`output`) first; empty for a dry run. */
  readonly outputs: readonly OutputSummary[];
  readonly report: {
    readonly path: string;
    readonly format: string;
    readonly rows: number;
    readonly written: boolean;
  } | null;
  /** This summary's own file; null when there is none (output to `-`) or it could not be written. */
  readonly summaryFile: string | null;
  /**
   * The HTML run report, written just after this summary; null when there is none (a dry run,
   * output to `-`, `--no-report`). In the summary a run returns: null also when it could not be written.
   */
  readonly runReport: string | null;
  readonly rows: {
    readonly read: number;
    readonly written: number;
    readonly ok: number;
    readonly failed: number;
    readonly failedByCode: Readonly<Record<string, number>>;
    /** Rows of JSON input whose keys the columns of a CSV or GeoPackage output could not hold. */
    readonly unknownKeyRows: number;
  };
  readonly requests: {
    /** HTTP requests sent, retries and token requests included, over every session of the run. */
    readonly http: number;
    readonly sent: number;
    /** Of those, requests of a second pass: items sent again after their attempts ran out. */
    readonly resent: number;
    readonly itemsSent: number;
    readonly failed: number;
    readonly uniqueItems: number;
    /** Items answered by an identical item's request: requests not paid for twice. */
    readonly savedByDedup: number;
    /** Items that shared a request with others (items sent minus requests sent, second passes left out). */
    readonly savedByBatching: number;
    /** Items the job answered without a request. */
    readonly savedByLocalAnswers: number;
    readonly maxInFlight: number;
  };
  /** The client's metrics (retries by cause, throttling...), as it reports them. */
  readonly client: Readonly<Record<string, unknown>> | null;
  /** The request cache as this session used it, its counts over every session (a dry run: what it would answer); null without one. */
  readonly cache: CacheSummary | null;
  readonly timing: {
    readonly startedAt: string;
    readonly endedAt: string;
    /** All sessions of a resumed run. */
    readonly durationMs: number;
    readonly rowsPerSecond: number;
    readonly requestsPerSecond: number;
  };
  readonly memory: { readonly peakRssBytes: number };
  readonly resume: {
    readonly resumed: boolean;
    /** Data rows the earlier sessions committed: this session went on from row fromRow + 1. */
    readonly fromRow: number;
    readonly checkpoint: string | null;
    /** How the checkpoint kept is taken up; null without one (absent in summaries of earlier versions). */
    readonly next?: ResumeNext | null;
    /**
     * The data rows the checkpoint kept commits, which a resume goes on after: fewer than
     * `rows.written` when a write failed after its last commit, or a stop came inside a trip's
     * or a track's group. Null without one; absent in summaries of earlier versions.
     */
    readonly checkpointRows?: number | null;
    /**
     * A distributed run's queue, its URL without the password: the checkpoint goes on only with
     * `--resume --queue` it. Absent for a run in one process, without a checkpoint kept, and in
     * summaries of earlier versions.
     */
    readonly queue?: string;
  };
  /** A run of several steps: what each step did, in step order (this session's counts). */
  readonly steps?: readonly StepSummary[];
  /**
   * What the run noticed about its input that no row says: its points look swapped (most lie
   * outside the service's area as given, inside it exchanged). Absent when there is nothing.
   */
  readonly warnings?: readonly RunWarning[];
  /** Dry runs only: what a real run would send, and how long it would take at the given rate. */
  readonly estimate: {
    readonly requests: number;
    /**
     * `requests` and what further pages of hits could add (address search with `nearest` above
     * `pageSize`): only the answers tell how many there are. Null when nothing bounds them
     * (`nearest: all`), or only the answers do (with `requestsRule`). Equal to `requests` for
     * every other job.
     */
    readonly requestsAtMost: number | null;
    /**
     * Present when `requests` is the fewest the run can send, not its count: the job's requests
     * depend on its answers (boundaries with the spatial index). The rule, in words.
     */
    readonly requestsRule?: string;
    readonly requestsPerSecond: number | null;
    readonly seconds: number | null;
    /**
     * A run of several steps: the one the counts are for, its first. The later steps' requests
     * depend on its answers, which a dry run does not have. Absent for a run of one job.
     */
    readonly firstStepOf?: { readonly step: string; readonly steps: number };
  } | null;
}

/** A run-level warning: `message` says it whole, the other fields are its figures. */
export type RunWarning = SwappedWarning | CrsWarning;

/** A row selection as the summary gives it. */
export interface RowSelectionSummary {
  readonly limit: number | null;
  readonly sample: number | null;
  readonly seed: string | null;
}

/** A GeoJSON input whose `crs` member, after its features, declares a system geobatch does not read. */
export interface CrsWarning {
  readonly kind: 'input-crs';
  readonly message: string;
  readonly crs: string;
}

/** Most rows' points look swapped. */
export interface SwappedWarning {
  readonly kind: 'coordinates-swapped';
  readonly message: string;
  /** The step, in a run of several. */
  readonly step?: string;
  /** The side input whose rows these are (`options.destinations`), not the input's. */
  readonly sideInput?: string;
  /** Rows whose points look swapped, of `rowsRead` rows whose points were read (this session). */
  readonly rows: number;
  readonly rowsRead: number;
  /** The first such row, 1-based. */
  readonly exampleRow: number;
}

/**
 * One output file. `written`: this run put the file at `path`. False when it stopped first: the
 * records so far are in `<path>.partial` while a checkpoint is kept, else nowhere.
 */
export interface OutputSummary {
  readonly path: string;
  readonly format: string;
  readonly records: number;
  readonly written: boolean;
}

/** The request cache's part of the summary (src/cache/run-cache.ts fills it). */
export interface CacheSummary {
  readonly store: 'sqlite' | 'postgres';
  /** The file, or the PostgreSQL URL with its password masked. */
  readonly location: string;
  readonly mode: 'use' | 'refresh' | 'read-only';
  /** Items answered from the cache. */
  readonly hits: number;
  /** Items looked up and asked of the service (expired ones included). */
  readonly misses: number;
  readonly expired: number;
  /** Answers written to the cache. */
  readonly writes: number;
  /** Requests not sent thanks to the hits (batched jobs: the hits packed as the job packs). */
  readonly requestsSaved: number;
  /** Why the run went on without (part of) the cache, e.g. a full disk; null when it did not. */
  readonly problem: string | null;
  /** Steps whose answers the cache does not keep (trip, match: an answer belongs to a whole group). */
  readonly uncached: readonly string[];
}

/** One step of a pipeline in the summary. */
export interface StepSummary {
  readonly name: string;
  readonly rows: {
    /** Rows that reached this step (not failed before it). */
    readonly reached: number;
    /** Rows still ok after this step. */
    readonly ok: number;
    /** Rows that failed at this step. */
    readonly failed: number;
  };
  readonly requests: {
    /**
     * HTTP requests the client sent for this step: retries, further pages, a rejected batch's
     * parts, boundaries' calls a level and token requests included, as the run's `requests.http`
     * counts them (this session's): the steps' add up to it. Absent in summaries of earlier versions.
     */
    readonly http?: number;
    /** Requests the step made, one per batch (as the run's `requests.sent`). */
    readonly sent: number;
    readonly itemsSent: number;
    readonly savedByDedup: number;
    readonly savedByBatching: number;
    readonly savedByLocalAnswers: number;
  };
}

/** The counts a summary is made of (the engine's counters, all sessions added up). */
export interface SummaryCounts {
  readonly rowsRead: number;
  readonly rowsOk: number;
  readonly rowsFailed: number;
  readonly failuresByCode: Readonly<Record<string, number>>;
  readonly uniqueItems: number;
  readonly dedupHits: number;
  readonly localHits: number;
  readonly requestsSent: number;
  readonly itemsSent: number;
  readonly requestsResent: number;
  readonly itemsResent: number;
  readonly requestsFailed: number;
  readonly maxRequestsInFlight: number;
}

/**
 * How a checkpoint kept is taken up. `resume`: a run again with `--resume` continues it.
 * `resume-same-input`: the same, given the same data on standard input again (its rows are
 * checked against the checkpoint). `start-over`: `--resume` cannot finish it (a finished file was
 * changed or removed): `--resume --restart-if-changed`, or deleting it, starts over.
 */
export type ResumeNext = 'resume' | 'resume-same-input' | 'start-over';

/** What the run knows when it ends; `buildSummary` turns it into the document. */
export interface SummaryFacts {
  readonly job: string;
  readonly dryRun: boolean;
  /** Why the run stopped; undefined when it finished. */
  readonly error: unknown;
  readonly input: RunSummary['input'];
  /** Every output, in order; none for a dry run. */
  readonly outputs: readonly OutputSummary[];
  readonly report: RunSummary['report'];
  readonly summaryFile: string | null;
  readonly runReport: string | null;
  readonly counts: SummaryCounts;
  /** HTTP requests of every session; the engine's request count when there is no client. */
  readonly httpRequests: number;
  readonly rowsWritten: number;
  readonly unknownKeyRows: number;
  readonly client: Readonly<Record<string, unknown>> | null;
  readonly cache: CacheSummary | null;
  readonly startedAt: string;
  /** All sessions. */
  readonly durationMs: number;
  /** This session: its time, rows written and requests sent, for the rates. */
  readonly session: { readonly ms: number; readonly rows: number; readonly requests: number };
  readonly peakRssBytes: number;
  readonly resume: RunSummary['resume'];
  readonly estimate: RunSummary['estimate'];
  /** A run of several steps: each step's part. */
  readonly steps?: readonly StepSummary[];
  readonly warnings?: readonly RunWarning[];
}

export function buildSummary(facts: SummaryFacts): RunSummary {
  const c = facts.counts;
  const seconds = Math.max(facts.session.ms / 1000, 0.001);
  const code = errorCode(facts.error);
  return {
    version: 1,
    job: facts.job,
    ended: ending(code, c.rowsFailed),
    exitCode: exitStatusOf(code, c.rowsFailed, facts.input.truncated),
    error: code === undefined ? null : describeError(facts.error),
    dryRun: facts.dryRun,
    input: facts.input,
    output: facts.outputs[0] ?? null,
    outputs: facts.outputs,
    report: facts.report,
    summaryFile: facts.summaryFile,
    runReport: facts.runReport,
    rows: {
      read: c.rowsRead,
      written: facts.rowsWritten,
      ok: c.rowsOk,
      failed: c.rowsFailed,
      failedByCode: c.failuresByCode,
      unknownKeyRows: facts.unknownKeyRows,
    },
    requests: {
      http: facts.httpRequests,
      sent: c.requestsSent,
      resent: c.requestsResent,
      itemsSent: c.itemsSent,
      failed: c.requestsFailed,
      uniqueItems: c.uniqueItems,
      savedByDedup: c.dedupHits,
      savedByBatching: c.itemsSent - c.itemsResent - (c.requestsSent - c.requestsResent),
      savedByLocalAnswers: c.localHits,
      maxInFlight: c.maxRequestsInFlight,
    },
    client: facts.client,
    cache: facts.cache,
    timing: {
      startedAt: facts.startedAt,
      endedAt: new Date().toISOString(),
      durationMs: facts.durationMs,
      rowsPerSecond: Math.round((facts.session.rows / seconds) * 10) / 10,
      requestsPerSecond: Math.round((facts.session.requests / seconds) * 10) / 10,
    },
    memory: { peakRssBytes: facts.peakRssBytes },
    resume: facts.resume,
    ...(facts.steps === undefined ? {} : { steps: facts.steps }),
    ...(facts.warnings === undefined || facts.warnings.length === 0 ? {} : { warnings: facts.warnings }),
    estimate: facts.estimate,
  };
}

/** The code a run ended with; an exception that is not geobatch's is a defect: INTERNAL. */
function errorCode(error: unknown): ErrorCode | undefined {
  if (error === undefined) return undefined;
  return isGeobatchError(error) ? error.code : 'INTERNAL';
}

function ending(code: ErrorCode | undefined, failedRows: number): RunEnd {
  if (code === undefined) return failedRows > 0 ? 'complete_with_failures' : 'complete';
  if (code === 'INPUT_EMPTY') return 'empty';
  return code === 'OUTPUT_CLOSED' ? 'output_closed' : 'stopped';
}

function describeError(error: unknown): NonNullable<RunSummary['error']> {
  if (isGeobatchError(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.context.hint === undefined ? {} : { hint: error.context.hint }),
    };
  }
  return { code: 'INTERNAL', message: scrub(error instanceof Error ? error.message : String(error)) };
}

/** The summary file for an output target. */
export function summaryPath(outputTarget: string): string {
  return `${outputTarget}.summary.json`;
}

export async function writeSummary(path: string, summary: RunSummary): Promise<void> {
  // Scrubbed whole: a key can reach a path (an output named from ${VAR}), and paths are in here.
  await writeFileAtomically(path, scrub(`${JSON.stringify(summary, null, 2)}\n`), 'summary');
}

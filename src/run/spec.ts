/** What a run is given: the job built, its files, and how to run it. */
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { CacheCounts } from '../cache/tally.js';
import type { EngineCounters } from '../engine/counters.js';
import type { StopDrain } from '../engine/engine.js';
import type { AnyJob } from '../engine/job.js';
import type { EngineOptions } from '../engine/options.js';
import type { Step, StepCounters } from '../engine/pipeline.js';
import type { CsvReadOptions, InputEncoding, InputFormat } from '../input/reader.js';
import type { RowSelection } from '../input/sample.js';
import type { OutputSpec, ReportSpec } from '../output/files.js';
import type { CacheSummary } from '../output/summary.js';
import type { Outcome, ReadItem } from '../types.js';
import type { WatchedPoints } from './_swapped-points.js';
import type { DistributedMark } from './checkpoint.js';
import type { MappedColumns } from './mapped-columns.js';
import type { ProgressOptions } from './progress.js';

export type RowProcessor = (
  items: AsyncIterable<ReadItem>,
  context: {
    readonly counters: EngineCounters;
    readonly stepCounters: readonly StepCounters[] | undefined;
    readonly signal: AbortSignal | undefined;
  },
) => AsyncIterable<Outcome>;

/** A file a step reads besides the input, named by its key in the job file. */
export interface SideInputFile {
  /** `options.destinations`, or `steps[1].options.destinations`. */
  readonly key: string;
  readonly path: string;
}

export interface RunSpec {
  /** The job, built and ready (its client, if any, included); for several steps, their `pipelineJob`. */
  readonly job: AnyJob;
  /** Several jobs in one pass (a `steps:` file): run through `processSteps`, `job` describing them. */
  readonly steps?: readonly Step[];
  /** Identifies the job and its settings: a checkpoint made under another fingerprint is refused. */
  readonly jobFingerprint: string;
  /**
   * What checkpoints of earlier versions hold for this very job (config/load.ts
   * earlierFingerprintsOf), accepted as `jobFingerprint` is; a resume writes `jobFingerprint`.
   */
  readonly earlierFingerprints?: readonly string[];
  /** The fingerprint's parts (config/load.ts fingerprintParts, and `selection`): named when they differ. */
  readonly jobParts?: Readonly<Record<string, string>>;
  /**
   * The steps' watches on the points they read, for the warning of an input whose longitude and
   * latitude look swapped (src/run/_swapped-points.ts). @default none
   */
  readonly points?: readonly WatchedPoints[];
  /** The columns the mappings read: a CSV header without one of them stops the run before it starts. */
  readonly mapped?: MappedColumns;
  /**
   * Further files the steps read whole (a matrix's destinations), by their key in the job file:
   * no file the run writes may be one of them.
   */
  readonly sideInputs?: readonly SideInputFile[];
  readonly input: {
    /** A file path, or `-` for standard input. */
    readonly path: string;
    readonly format: InputFormat;
    /** @default 'utf-8' */
    readonly encoding?: InputEncoding;
    /** @default 16777216 (see ReaderOptions) */
    readonly maxRecordBytes?: number;
    readonly csv?: CsvReadOptions;
  };
  /** Only some of the input's rows: the first N, or N drawn with a seed. @default every row */
  readonly rows?: RowSelection;
  /**
   * Where the rows go. With `moreOutputs`, the first of several: it names the lock, the checkpoint,
   * the summary and the run report.
   */
  readonly output: OutputSpec;
  /**
   * Further outputs written from the same pass, each in its own format (CSV, NDJSON, GeoJSON,
   * GeoPackage), checkpointed and resumed together with `output`. None may be `-`. @default none
   */
  readonly moreOutputs?: readonly OutputSpec[];
  /** The error report file; null writes none (failed rows are still in the outputs and counted). */
  readonly report: ReportSpec | null;
  /** The summary JSON. @default `<output>.summary.json` for a file output, none for `-` */
  readonly summaryPath?: string | null;
  /**
   * The HTML run report (src/report), written after the summary; null writes none. Never written
   * by a dry run or a run writing to `-`. @default `<output>.report.html`
   */
  readonly runReport?: string | null;
  readonly engine?: EngineOptions;
  readonly checkpoint?: {
    /** @default true (and always false when the output is `-`, which cannot be resumed) */
    readonly enabled?: boolean;
    /** How often the outputs and the report are fsync'd and the journal written. @default 2000 */
    readonly intervalMs?: number;
    /** @default `<output>.checkpoint.json` */
    readonly path?: string;
  };
  /** Continue from the checkpoint; with none, start from the first row. @default false */
  readonly resume?: boolean;
  /**
   * With `resume`: a checkpoint made from other input or another job (CHECKPOINT_MISMATCH) is
   * deleted with its .partial files, said in a warning, and the run starts from the first row, as
   * a nightly job wants after a crashed night whose file has since been replaced. @default false
   */
  readonly restartIfChanged?: boolean;
  /** Read, plan, dedup and batch without sending a request or writing a file. @default false */
  readonly dryRun?: boolean;
  /** The request rate a dry run estimates its duration with. */
  readonly requestsPerSecond?: number;
  /** Abort: stop pulling, commit what is complete, keep the checkpoint, end `stopped` with ABORTED. */
  readonly signal?: AbortSignal;
  /**
   * Once `signal` aborts, how long the requests in flight may take to come back before they are
   * aborted (their answers are then written or cached, not paid again by the resume); not for a
   * distributed run's chunks. @default none: aborted at once
   */
  readonly drain?: StopDrain;
  readonly logger: Logger;
  /**
   * The client's metrics, put into the summary as they are; their `requests.total` (HTTP requests,
   * retries included) is also added up over the sessions of a resumed run.
   */
  readonly metrics?: () => Record<string, unknown>;
  readonly progress?: ProgressOptions;
  /** The request cache's account for the summary (engine.answers is the cache itself). */
  readonly cache?: {
    /** Writes the answers still pending, so that the summary counts them (see RunCache.flush). */
    flush(waitMs?: number): Promise<void>;
    summary(): CacheSummary;
    /** The run starts over from a checkpoint set aside: a refresh takes no answer written before now. */
    restarted?(): void;
    /** See RunCache.rowCounts: what a checkpoint leaves out, the counts of rows it did not commit. */
    rowCounts?(): (committedRows: number) => CacheCounts;
  };
  /**
   * Answers the rows instead of the engine: a distributed run's chunks, worked on by other
   * processes (src/queue). It yields one outcome per item in input order and keeps `counters`
   * (and `stepCounters`) as the engine would. @default the engine, in this process
   */
  readonly process?: RowProcessor;
  /**
   * After a stop: true when the rows' work is kept elsewhere for a resume to take up (a
   * distributed run's chunks that workers took or finished), so that the checkpoint is kept even
   * before a row was written, and the advice is --resume. @default never
   */
  readonly workKept?: () => boolean;
  /**
   * A distributed run's queue (URL without its password) and run id, which its checkpoint records
   * so that a resume without `--queue` is refused. @default a run in one process
   */
  readonly distributed?: DistributedMark;
  /**
   * The command line's settings the checkpoint records for `geobatch status` to give again in the
   * command that resumes the run (_resume-flags.ts): `--rate 5`, `--emulator`. @default none
   */
  readonly resumeFlags?: readonly string[];
  /** What `-` reads. @default process.stdin */
  readonly stdin?: Readable;
}

/** Every output of the run, the first (`output`) first. */
export function outputsOf(spec: Pick<RunSpec, 'output' | 'moreOutputs'>): readonly OutputSpec[] {
  return [spec.output, ...(spec.moreOutputs ?? [])];
}

/**
 * The files one run writes: its outputs (one or several, each in its own format, all from the same
 * outcomes) and, when asked for, the error report. Opens them all (fresh, or cut back to a
 * checkpoint's marks), sends each outcome to the right writers, and commits or keeps them together.
 */

import { RunError } from '../errors.js';
import type { Outcome } from '../types.js';
import { inputColumnsOnly } from './_columns.js';
import { placeAll, type SealedFile } from './_place.js';
import { partialPath } from './_sink.js';
import { replacedColumnsWarning } from './csv.js';
import { type OpenedOutput, openOutput, openSink } from './open.js';
import { createReportWriter, type ReportFormat } from './report.js';
import type { OutputFormat, WriterState, WriterStats } from './writer.js';

/** Where a file stood at a checkpoint. */
export interface FileMark {
  /** The byte length of a text file; a GeoPackage continues from its state instead. */
  readonly bytes: number;
  readonly state: WriterState;
}

/** Where and how a run writes an output. */
export interface OutputSpec {
  /** A file path (written as `<path>.partial`, renamed on success), or `-` for standard output. */
  readonly path: string;
  readonly format: OutputFormat;
  /** Neutralise spreadsheet formulas in CSV text cells. @default true */
  readonly formulaGuard?: boolean;
  /** CSV output delimiter. @default ',' */
  readonly delimiter?: string;
  /** CSV output: a UTF-8 byte order mark before the header. @default false */
  readonly bom?: boolean;
  /** CSV output: the decimal mark of numbers. @default '.' */
  readonly decimal?: '.' | ',';
}

/** Where and how a run writes its error report. */
export interface ReportSpec {
  readonly path: string;
  readonly format: ReportFormat;
}

export interface RunFilesOptions {
  /** Every output, in order; at least one. Each gets every outcome. */
  readonly outputs: readonly OutputSpec[];
  /** Null writes no report (failed rows are still in the outputs and counted). */
  readonly report: ReportSpec | null;
  readonly jobKind: string;
  readonly jobColumns: readonly string[];
  readonly inputColumns: () => readonly string[];
  readonly onWarning: (message: string) => void;
  /** Marks from the checkpoint being resumed: one per output, in the same order, and the report's. */
  readonly resume?: { readonly outputs: readonly FileMark[]; readonly report: FileMark | null };
}

/** A file a checkpoint makes durable: an output or the report. */
export interface DurableFile {
  readonly target: string;
  /** The file being written (`<target>.partial`). */
  readonly path: string;
  /** Flushes and fsyncs; resolves to the file's byte length. */
  sync(): Promise<number>;
  /** What the file's writer needs to continue it. */
  state(): Readonly<Record<string, unknown>>;
  /**
   * Where the file stands now, taken without flushing or syncing (at each group's end of a trip
   * or match run): its byte length (undefined for a GeoPackage, cut back by its count) and the
   * part of its state to lay over `state()` once a checkpoint is made at this row.
   */
  mark(): { readonly bytes: number | undefined; readonly state: Readonly<Record<string, unknown>> };
}

/** What a session writes to (the outputs and the report, seen together). */
export interface SessionFiles {
  /** False asks the caller to await `drain()`. */
  write(outcome: Outcome): boolean;
  drain(): Promise<void>;
  /** The reader of the output went away (EPIPE on stdout). */
  readonly broken: boolean;
  /** Whether failed rows also go to an error report. */
  readonly reporting: boolean;
  end(): void;
  /** Syncs and closes every file, leaving each complete at its temporary path (after `end`). */
  seal(): Promise<void>;
  /** Renames the sealed files over their targets, in order (output/_place.ts placeAll). */
  place(): Promise<void>;
  /** The targets in place so far (all of them once `place` resolved). */
  placed(): readonly string[];
  /** Closes, keeping the temporary files for a resume. */
  close(): Promise<void>;
  /** Closes and deletes the temporary files. */
  discard(): Promise<void>;
}

/**
 * The outputs and the report, seen together: what a session writes to (the engine's SessionFiles)
 * and what the checkpoint makes durable (a DurableFile each).
 */
export interface RunFiles extends SessionFiles {
  /** One per output, in order. */
  readonly outputs: readonly DurableFile[];
  readonly report: DurableFile | null;
  stats(): RunFilesStats;
}

/** What the outputs and the report hold. */
export interface RunFilesStats {
  readonly outputs: readonly WriterStats[];
  readonly reportRows: number;
}

export async function openRunFiles(options: RunFilesOptions): Promise<RunFiles> {
  const outputs: OpenedOutput[] = [];
  let report: OpenedOutput | null = null;
  try {
    for (const [i, output] of options.outputs.entries()) {
      const mark = options.resume?.outputs[i];
      const writerOptions = {
        jobColumns: options.jobColumns,
        inputColumns: options.inputColumns,
        formulaGuard: output.formulaGuard,
        delimiter: output.delimiter,
        bom: output.bom,
        decimal: output.decimal,
        onWarning: options.onWarning,
        resume: mark?.state,
      };
      outputs.push(await openOutput(output.path, output.format, writerOptions, mark?.bytes));
    }
    if (options.report !== null) report = await openReport(options.report, options);
  } catch (error) {
    // Fresh files are of no use without the others; resumed ones are kept for the next try.
    for (const file of outputs)
      await (options.resume === undefined ? file.file.discard() : file.file.close());
    throw error;
  }
  return runFiles(outputs, report, replacedOnce(options));
}

/**
 * Warns, once, of job columns that replace input columns of the same name: in every format, as
 * every format's record holds one of each. Only the CSV writer said it, so a GeoJSON output lost
 * the input's values without a word. Looked for in the input's columns as the first record is
 * written (known by then), then in each row's own fields until found: an NDJSON or GeoJSON row
 * may have a key its first did not, which a JSON output writes and the job's value replaces. A
 * resumed run said it in its first session.
 */
function replacedOnce(options: RunFilesOptions): (outcome: Outcome) => void {
  let said = options.resume !== undefined || options.jobColumns.length === 0;
  let first = true;
  const say = (columns: readonly string[]) => {
    const warning = replacedColumnsWarning(inputColumnsOnly(columns), options.jobColumns);
    if (warning === undefined) return;
    said = true;
    options.onWarning(warning);
  };
  return (outcome) => {
    if (said) return;
    if (first) {
      first = false;
      say(options.inputColumns());
      if (said) return;
    }
    const fields = outcome.row?.fields;
    if (fields === undefined) return;
    for (const column of options.jobColumns) {
      if (Object.hasOwn(fields, column)) return say(Object.keys(fields));
    }
  };
}

async function openReport(spec: ReportSpec, options: RunFilesOptions): Promise<OpenedOutput> {
  const mark = options.resume?.report ?? undefined;
  const sink = await openSink(spec.path, mark?.bytes);
  const firstCsv = options.outputs.find((output) => output.format === 'csv');
  const writer = createReportWriter(sink, {
    format: spec.format,
    job: options.jobKind,
    inputColumns: options.inputColumns,
    // The first output's choice: the report is a CSV a spreadsheet opens too.
    formulaGuard: options.outputs[0]?.formulaGuard,
    // And the first CSV output's dialect, so that Excel opens the report as it opens the output
    // (`;` where a comma is the decimal mark); not TAB, a .tsv's, in a report named .csv.
    bom: firstCsv?.bom,
    delimiter: firstCsv?.delimiter === '\t' ? undefined : firstCsv?.delimiter,
    resume: mark?.state,
  });
  return { file: sink, writer };
}

function durable(opened: OpenedOutput): DurableFile {
  return {
    target: opened.file.target,
    path: opened.file.path,
    sync: () => opened.file.sync(),
    state: () => opened.writer.state(),
    mark: () => ({
      bytes: opened.file.length?.(),
      state: opened.writer.mark?.() ?? opened.writer.state(),
    }),
  };
}

function runFiles(
  outputs: readonly OpenedOutput[],
  report: OpenedOutput | null,
  beforeEach: (outcome: Outcome) => void = () => {},
): RunFiles {
  const all = report === null ? outputs : [...outputs, report];
  // Standard output is not renamed: it is in place as it is written.
  const renamed = all.filter((opened) => opened.file.target !== '-').map((opened) => opened.file);
  const placed = new Set<string>();
  return {
    write(outcome) {
      beforeEach(outcome);
      let ok = true;
      for (const output of outputs) ok = output.writer.write(outcome) && ok;
      if (outcome.status === 'failed' && report !== null) ok = report.writer.write(outcome) && ok;
      return ok;
    },
    async drain() {
      for (const opened of all) await opened.file.drain();
    },
    get broken() {
      return outputs.some((output) => output.file.broken);
    },
    reporting: report !== null,
    end() {
      for (const opened of all) opened.writer.end();
    },
    async seal() {
      for (const opened of all) await opened.file.seal();
    },
    place: () => placeAll(renamed, placed),
    placed: () => [...placed],
    async close() {
      for (const opened of all) await opened.file.close();
    },
    async discard() {
      for (const opened of all) await opened.file.discard();
    },
    outputs: outputs.map(durable),
    report: report === null ? null : durable(report),
    stats: () => ({
      outputs: outputs.map((output) => output.writer.stats()),
      reportRows: report?.writer.stats().records ?? 0,
    }),
  };
}

/** A file of a run that stopped while its files were being put in place, as its checkpoint has it. */
export interface SealedMark {
  readonly target: string;
  /** Its size once sealed. */
  readonly bytes: number;
}

/**
 * The files of a run that stopped while they were being renamed into place: every row is in them,
 * each is sealed at its temporary path or already in place. Taking them up only renames the ones
 * still waiting; they take no outcome, and a stop leaves them as they are.
 */
export function sealedRunFiles(
  outputs: readonly SealedMark[],
  report: SealedMark | null,
  stats: RunFilesStats,
): RunFiles {
  const sealed = (mark: SealedMark): SealedFile & DurableFile => ({
    ...mark,
    path: partialPath(mark.target),
    sync: () => Promise.resolve(mark.bytes),
    state: () => ({}),
    mark: () => ({ bytes: mark.bytes, state: {} }),
  });
  const files = outputs.map(sealed);
  const reportFile = report === null ? null : sealed(report);
  const placed = new Set<string>();
  return {
    write() {
      throw new RunError('INVARIANT_BROKEN', 'A row was written to files that are already finished');
    },
    drain: () => Promise.resolve(),
    broken: false,
    reporting: report !== null,
    end() {},
    seal: () => Promise.resolve(),
    place: () => placeAll(reportFile === null ? files : [...files, reportFile], placed),
    placed: () => [...placed],
    close: () => Promise.resolve(),
    discard: () => Promise.resolve(),
    outputs: files,
    report: reportFile,
    stats: () => stats,
  };
}

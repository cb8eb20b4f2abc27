/**
 * The files one run writes: the output and, when asked for, the error report. Opens both (fresh,
 * or cut back to a checkpoint's marks), sends each outcome to the right writers, and commits or
 * keeps them together.
 */

import type { Outcome } from '../types.js';
import type { Sink } from './_sink.js';
import { createWriter, openSink } from './open.js';
import { createReportWriter, type ReportFormat } from './report.js';
import type { OutputFormat, RecordWriter, WriterState } from './writer.js';

/** Where a file stood at a checkpoint. */
export interface FileMark {
  readonly bytes: number;
  readonly state: WriterState;
}

/** Where and how a run writes its output. */
export interface OutputSpec {
  /** A file path (written as `<path>.partial`, renamed on success), or `-` for standard output. */
  readonly path: string;
  readonly format: OutputFormat;
  /** Neutralise spreadsheet formulas in CSV text cells. @default true */
  readonly formulaGuard?: boolean;
  /** CSV output delimiter. @default ',' */
  readonly delimiter?: string;
}

/** Where and how a run writes its error report. */
export interface ReportSpec {
  readonly path: string;
  readonly format: ReportFormat;
}

export interface RunFilesOptions {
  readonly output: OutputSpec;
  /** Null writes no report (failed rows are still in the output and counted). */
  readonly report: ReportSpec | null;
  readonly jobKind: string;
  readonly jobColumns: readonly string[];
  readonly inputColumns: () => readonly string[];
  readonly onWarning: (message: string) => void;
  /** Marks from the checkpoint being resumed. */
  readonly resume?: { readonly output: FileMark; readonly report: FileMark | null };
}

/** A file a checkpoint makes durable: the output or the report. */
export interface DurableFile {
  readonly target: string;
  /** Flushes and fsyncs; resolves to the file's byte length. */
  sync(): Promise<number>;
  /** What the file's writer needs to continue it. */
  state(): Readonly<Record<string, unknown>>;
}

/** What a session writes to (the output and report files, seen together). */
export interface SessionFiles {
  /** False asks the caller to await `drain()`. */
  write(outcome: Outcome): boolean;
  drain(): Promise<void>;
  /** The reader of the output went away (EPIPE on stdout). */
  readonly broken: boolean;
  /** Whether failed rows also go to an error report. */
  readonly reporting: boolean;
  end(): void;
  commit(): Promise<void>;
  /** Closes, keeping the temporary files for a resume. */
  close(): Promise<void>;
  /** Closes and deletes the temporary files. */
  discard(): Promise<void>;
}

/**
 * The output and the report, seen together: what a session writes to (the engine's SessionFiles)
 * and what the checkpoint makes durable (its DurableFile).
 */
export interface RunFiles extends SessionFiles {
  readonly output: DurableFile;
  readonly report: DurableFile | null;
  stats(): { readonly outputRecords: number; readonly reportRows: number; readonly unknownKeyRows: number };
}

interface Opened {
  readonly sink: Sink;
  readonly writer: RecordWriter;
}

export async function openRunFiles(options: RunFilesOptions): Promise<RunFiles> {
  const outputSink = await openSink(options.output.path, options.resume?.output.bytes);
  let reportSink: Sink | undefined;
  try {
    if (options.report !== null)
      reportSink = await openSink(options.report.path, options.resume?.report?.bytes);
  } catch (error) {
    // A fresh output file is of no use without its report; a resumed one is kept for the next try.
    await (options.resume === undefined ? outputSink.discard() : outputSink.close());
    throw error;
  }
  const output: Opened = {
    sink: outputSink,
    writer: createWriter(options.output.format, outputSink, {
      jobColumns: options.jobColumns,
      inputColumns: options.inputColumns,
      formulaGuard: options.output.formulaGuard,
      delimiter: options.output.delimiter,
      onWarning: options.onWarning,
      resume: options.resume?.output.state,
    }),
  };
  const report: Opened | null =
    options.report === null || reportSink === undefined
      ? null
      : {
          sink: reportSink,
          writer: createReportWriter(reportSink, {
            format: options.report.format,
            job: options.jobKind,
            inputColumns: options.inputColumns,
            formulaGuard: options.output.formulaGuard,
            resume: options.resume?.report?.state,
          }),
        };
  return runFiles(output, report);
}

function durable(file: Opened): DurableFile {
  return { target: file.sink.target, sync: () => file.sink.sync(), state: () => file.writer.state() };
}

function runFiles(output: Opened, report: Opened | null): RunFiles {
  return {
    write(outcome) {
      let ok = output.writer.write(outcome);
      if (outcome.status === 'failed' && report !== null) ok = report.writer.write(outcome) && ok;
      return ok;
    },
    async drain() {
      await output.sink.drain();
      await report?.sink.drain();
    },
    get broken() {
      return output.sink.broken;
    },
    reporting: report !== null,
    end() {
      output.writer.end();
      report?.writer.end();
    },
    async commit() {
      await output.sink.commit();
      await report?.sink.commit();
    },
    async close() {
      await output.sink.close();
      await report?.sink.close();
    },
    async discard() {
      await output.sink.discard();
      await report?.sink.discard();
    },
    output: durable(output),
    report: report === null ? null : durable(report),
    stats: () => ({
      outputRecords: output.writer.stats().records,
      reportRows: report?.writer.stats().records ?? 0,
      unknownKeyRows: output.writer.stats().unknownKeyRows,
    }),
  };
}

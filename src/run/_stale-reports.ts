/**
 * The run report and summary file an earlier run of the same output left where this run writes
 * none. A run stopped (its report says STOPPED), then resumed with --no-report, finished its
 * output and left the STOPPED report beside it; a report named with --report on the first
 * session only stayed there while the resume wrote the default one. A page or summary beside an
 * output must describe that output, as the error report does (written for every run, so that an
 * earlier run's is never taken for this one's): one this run does not replace is removed, and the
 * log says so.
 *
 * Only when this run put an output in place: until then the earlier run's files describe the
 * output there. Candidates are the default paths beside each output this run wrote and the files
 * the checkpoint resumed names (the earlier session's); each is removed only if geobatch wrote it
 * AND it describes that very output (the summary's `output.path`, the page's output line). A
 * page or JSON of the user's own under that name stays, so does the report of another output or
 * job that shares a `--report` path, and a checkpoint edited to name another file deletes nothing.
 */
import { open } from 'node:fs/promises';
import type { Logger } from 'pino';
import { removeFile } from '../output/_sink.js';
import { type RunSummary, summaryPath } from '../output/summary.js';
import { describesOutput, runReportPath } from '../report/index.js';
import type { Journal } from './checkpoint.js';

/** What a run's end files were: the paths this session wrote (null: none, or it could not). */
export interface EndFiles {
  readonly runReport: string | null;
  readonly summaryFile: string | null;
}

interface Kind {
  readonly what: string;
  readonly written: string | null;
  readonly recorded: string | null | undefined;
  readonly beside: (output: string) => string;
  readonly describes: (path: string, output: string) => Promise<boolean>;
}

/** Removes the earlier run's report and summary that `summary`'s run did not write over. */
export async function removeStaleReports(
  summary: RunSummary,
  journal: Journal | undefined,
  files: EndFiles,
  logger: Logger,
): Promise<void> {
  const placed = summary.outputs.filter((o) => o.written && o.path !== '-').map((o) => o.path);
  if (placed.length === 0) return;
  const kinds: Kind[] = [
    {
      what: 'run report',
      written: files.runReport,
      recorded: journal?.runReport,
      beside: runReportPath,
      describes: ourReportOf,
    },
    {
      what: 'summary file',
      written: files.summaryFile,
      recorded: journal?.summaryFile,
      beside: summaryPath,
      describes: ourSummaryOf,
    },
  ];
  for (const kind of kinds) {
    const candidates = new Set(placed.map(kind.beside));
    if (typeof kind.recorded === 'string') candidates.add(kind.recorded);
    candidates.delete(kind.written ?? '');
    for (const path of candidates) await removeIfStale(kind, path, placed, logger);
  }
}

async function removeIfStale(kind: Kind, path: string, outputs: readonly string[], logger: Logger) {
  try {
    let output: string | undefined;
    for (const o of outputs) if (output === undefined && (await kind.describes(path, o))) output = o;
    if (output === undefined) return;
    await removeFile(path);
    logger.info(
      { file: path },
      `Removed the ${kind.what} ${path}, left by an earlier run or session of ${output}: it no longer describes the output, and this run ${kind.written === null ? 'writes none' : `wrote its own to ${kind.written}`}`,
    );
  } catch (error) {
    logger.warn(
      { file: path, err: error },
      `The ${kind.what} ${path} of an earlier run could not be removed; it does not describe this run`,
    );
  }
}

/** The first bytes of `path`, or undefined when there is no such file. */
export async function head(path: string, bytes: number): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A page geobatch wrote (its generator tag, src/report/render.ts) about `output`. */
async function ourReportOf(path: string, output: string): Promise<boolean> {
  const page = await head(path, 64 * 1024);
  return (
    page?.includes('<meta name="generator" content="geobatch">') === true && describesOutput(page, output)
  );
}

/** A summary geobatch wrote (its version and job first, src/output/summary.ts) of `output`. */
async function ourSummaryOf(path: string, output: string): Promise<boolean> {
  // A summary is a few KB; one cut off at 4 MB does not parse, and is left.
  const text = await head(path, 4 * 1024 * 1024);
  if (text === undefined || !/^\{\s*"version": 1,\s*"job": "/.test(text)) return false;
  try {
    const parsed = JSON.parse(text) as { output?: { path?: unknown } | null };
    return parsed.output?.path === output;
  } catch {
    return false;
  }
}

/**
 * The run report and summary file an earlier run of the same output left where this run writes
 * none. A run stopped (its report says STOPPED), then resumed with --no-report, finished its
 * output and left the STOPPED report beside it; a report named with --report on the first
 * session only stayed there while the resume wrote the default one. A page or summary beside an
 * output must describe that output, as the error report does (written for every run, so that an
 * earlier run's is never taken for this one's): one this run does not replace is removed, and the
 * log says so.
 *
 * Removed: the files the checkpoint resumed names (the earlier session's), and those at the
 * default paths beside the first output when this run resumed or put that output in place; each
 * only if geobatch wrote it (a page or JSON of the user's own under that name stays, and a
 * checkpoint edited to name another file deletes nothing). A run that stopped before its output
 * moved leaves the earlier run's files: they still describe it.
 */
import { open } from 'node:fs/promises';
import type { Logger } from 'pino';
import { removeFile } from '../output/_sink.js';
import { type RunSummary, summaryPath } from '../output/summary.js';
import { runReportPath } from '../report/index.js';
import type { Journal } from './checkpoint.js';

/** What a run's end files were: the paths this session wrote (null: none, or it could not). */
export interface EndFiles {
  readonly output: string;
  readonly runReport: string | null;
  readonly summaryFile: string | null;
}

/** Removes the earlier run's report and summary that `summary`'s run did not write over. */
export async function removeStaleReports(
  summary: RunSummary,
  journal: Journal | undefined,
  files: EndFiles,
  logger: Logger,
): Promise<void> {
  const beside = files.output !== '-' && (journal !== undefined || summary.output?.written === true);
  const kinds = [
    {
      what: 'run report',
      written: files.runReport,
      recorded: journal?.runReport,
      byDefault: beside ? runReportPath(files.output) : undefined,
      ours: isOurReport,
    },
    {
      what: 'summary file',
      written: files.summaryFile,
      recorded: journal?.summaryFile,
      byDefault: beside ? summaryPath(files.output) : undefined,
      ours: isOurSummary,
    },
  ];
  for (const kind of kinds) {
    const stale = new Set<string>();
    if (kind.byDefault !== undefined) stale.add(kind.byDefault);
    if (typeof kind.recorded === 'string') stale.add(kind.recorded);
    for (const path of stale) {
      if (path === kind.written) continue;
      try {
        if (!(await kind.ours(path))) continue;
        await removeFile(path);
        logger.info(
          { file: path },
          `Removed the ${kind.what} ${path}, left by an earlier run or session of ${files.output}: it no longer describes the output, and this run ${kind.written === null ? 'writes none' : `wrote its own to ${kind.written}`}`,
        );
      } catch (error) {
        logger.warn(
          { file: path, err: error },
          `The ${kind.what} ${path} of an earlier run could not be removed; it does not describe this run`,
        );
      }
    }
  }
}

/** The first bytes of `path`, or undefined when there is no such file. */
async function head(path: string, bytes: number): Promise<string | undefined> {
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

/** A page geobatch wrote: its head names the generator (src/report/render.ts). */
async function isOurReport(path: string): Promise<boolean> {
  return (await head(path, 4096))?.includes('<meta name="generator" content="geobatch">') === true;
}

/** A summary geobatch wrote: it opens with its version and job (src/output/summary.ts). */
async function isOurSummary(path: string): Promise<boolean> {
  return /^\{\s*"version": 1,\s*"job": "/.test((await head(path, 256)) ?? '');
}

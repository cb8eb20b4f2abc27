/**
 * The HTML run report, seen from the composition root: what the session feeds it while rows are
 * written (every outcome written, the counters every second) and writing it once the summary is
 * out. A report that cannot be written is logged: the run's outcome and exit code stand.
 */
import type { Logger } from 'pino';
import type { SessionFiles } from '../output/files.js';
import type { RunSummary } from '../output/summary.js';
import {
  createReportCollector,
  createReportTimeline,
  type ReportCollector,
  type ReportCollectorOptions,
  type TimelineCounters,
  writeRunReport,
} from '../report/index.js';

export interface RunReportTracker {
  /** The session's files; every outcome they take is also shown to the report. */
  readonly files: SessionFiles;
  /** Stops sampling the counters (with a last sample). Call once, when the session has ended. */
  stop(): void;
  /** Writes the report of `summary`; resolves to the summary, naming the report only if it was written. */
  write(summary: RunSummary): Promise<RunSummary>;
}

/** Starts following a session for the report at `path`; with none, passes everything through. */
export function trackRunReport(
  path: string | null,
  files: SessionFiles,
  counts: () => TimelineCounters,
  logger: Logger,
  /** Where a failed row lies as the job reads it (AnyJob.locate), for the map. */
  locate?: ReportCollectorOptions['locate'],
): RunReportTracker {
  if (path === null) return { files, stop: () => {}, write: (summary) => Promise.resolve(summary) };
  const collector = createReportCollector(locate === undefined ? {} : { locate });
  const timeline = createReportTimeline();
  const stop = timeline.track(counts);
  return {
    files: observed(files, collector),
    stop,
    async write(summary) {
      try {
        releaseRows();
        await writeRunReport(path, {
          summary,
          timeline: timeline.points(),
          failures: collector.failures(),
          map: collector.map(),
          cache: summary.cache === null ? null : { hits: summary.cache.hits, misses: summary.cache.misses },
        });
        return summary;
      } catch (error) {
        logger.error({ err: error }, 'The run report could not be written');
        return { ...summary, runReport: null };
      }
    },
  };
}

/**
 * One full collection once the rows are done, where the process allows it (the CLI starts with
 * `--expose-gc`, src/cli/main.ts; a library caller's process usually does not, and then nothing
 * happens). The report builds a page of about a megabyte from strings; without the collection
 * they came on top of a heap still sized for the run's window and dedup cache. With the standard
 * heap that was the peak of a 100,000-row elevation run, 142-148 MB against 140-143 MB with the
 * collection; with the large heap (GEOBATCH_HEAP=large) the peak comes earlier, in the run. The
 * collection took 27 ms there and gave back 17 MB of the heap (77.6 -> 60.9 MB).
 */
function releaseRows(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * The files, with each outcome they accept shown to the collector. Forwarded member by member:
 * `broken` is a getter whose value changes as the run goes, which a spread would freeze.
 */
function observed(files: SessionFiles, collector: ReportCollector): SessionFiles {
  return {
    write(outcome) {
      const ok = files.write(outcome);
      collector.add(outcome);
      return ok;
    },
    drain: () => files.drain(),
    get broken() {
      return files.broken;
    },
    get reporting() {
      return files.reporting;
    },
    end: () => files.end(),
    seal: () => files.seal(),
    place: () => files.place(),
    placed: () => files.placed(),
    close: () => files.close(),
    discard: () => files.discard(),
  };
}

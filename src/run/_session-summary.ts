/** The RunSummary of a session that ran: this session's counts added to the checkpoint's. */
import { existsSync } from 'node:fs';
import { addCacheCounts, type CacheCounts, subtractCacheCounts } from '../cache/tally.js';
import { addCounters, type EngineCounters } from '../engine/counters.js';
import type { StepCounters } from '../engine/pipeline.js';
import { isGeobatchError } from '../errors.js';
import {
  buildSummary,
  type OutputSummary,
  type ResumeNext,
  type RunSummary,
  type StepSummary,
} from '../output/summary.js';
import { runReportOf } from './_checks.js';
import type { Session } from './_open-session.js';
import { clientRequests, common, summaryFileOf, withoutResumeHint } from './_summary-facts.js';
import type { Journal } from './checkpoint.js';
import type { SessionEnd, Tally } from './session.js';
import { outputsOf, type RunSpec } from './spec.js';

/**
 * The request cache's counts of the run: the earlier sessions' (from the journal) and this
 * session's, as the engine's counts are added up. Counted for the last session alone, a resumed
 * run's hits and requests saved left out what the cache answered before the stop, while its
 * requests and items covered every session.
 */
export function cacheCounter(spec: RunSpec, journal: Journal | undefined) {
  const earlier: CacheCounts | undefined = journal?.cache;
  return {
    /**
     * For the journal, once the session keeps one: the counts of the rows it commits, undefined
     * when no session so far used a cache. The rows a stop catches in flight are read and answered
     * again by the next session: carried too, a resumed run of 403 rows counted 405 items. (A
     * distributed run's cache counts whole chunks, each once: it has nothing per row to leave out.)
     */
    committed: (): ((committedRows: number) => CacheCounts | undefined) => {
      const cache = spec.cache;
      if (cache === undefined) return () => earlier;
      const uncommitted = cache.rowCounts?.();
      return (committedRows) => {
        const counts = cache.summary();
        return addCacheCounts(
          uncommitted === undefined ? counts : subtractCacheCounts(counts, uncommitted(committedRows)),
          earlier,
        );
      };
    },
    /** For the summary: this session's cache (store, location, mode) with the run's counts. */
    summary: () => (spec.cache === undefined ? null : addCacheCounts(spec.cache.summary(), earlier)),
  };
}

/** HTTP requests: the earlier sessions' (from the journal) and this session's (the client's count). */
export function httpCounter(spec: RunSpec, journal: Journal | undefined, counters: EngineCounters) {
  return {
    earlier: journal?.httpRequests ?? journal?.counters.requestsSent ?? 0,
    session: () => clientRequests(spec) ?? counters.requestsSent,
  };
}

export interface SessionFacts extends SessionEnd {
  readonly counters: EngineCounters;
  readonly earlier: EngineCounters;
  readonly httpRequests: number;
  readonly tally: Tally;
  readonly fromRow: number;
  readonly started: number;
  readonly peakRss: number;
  readonly stepCounters: readonly StepCounters[] | undefined;
}

export function sessionSummary(spec: RunSpec, session: Session, given: SessionFacts): RunSummary {
  // A checkpoint is kept only if it is there: a directory removed under the run took it along.
  const path = session.journalPath;
  const end =
    given.checkpointKept && path !== undefined && !existsSync(path)
      ? { ...given, checkpointKept: false }
      : given;
  const stats = session.files.stats();
  const elapsed = Date.now() - end.started;
  const error = end.checkpointKept ? end.error : withoutResumeHint(end.error);
  return buildSummary({
    ...common(spec, session.reader, error, addCounters(end.earlier, end.counters), end.peakRss),
    cache: cacheCounter(spec, session.journal).summary(),
    outputs: outputsOf(spec).map(
      (output, i): OutputSummary => ({
        path: output.path,
        format: output.format,
        records: stats.outputs[i]?.records ?? 0,
        written: end.filesWritten || end.placed.includes(output.path),
      }),
    ),
    report:
      spec.report === null
        ? null
        : {
            path: spec.report.path,
            format: spec.report.format,
            rows: stats.reportRows,
            written: end.filesWritten || end.placed.includes(spec.report.path),
          },
    summaryFile: summaryFileOf(spec),
    runReport: runReportOf(spec),
    ...(end.stepCounters === undefined ? {} : { steps: end.stepCounters.map(stepSummary) }),
    httpRequests: end.httpRequests,
    rowsWritten: end.tally.committedRows,
    // Each output that has columns of its own (CSV, GeoPackage) counts them; the rows are the same.
    unknownKeyRows: Math.max(0, ...stats.outputs.map((output) => output.unknownKeyRows)),
    startedAt: session.journal?.startedAt ?? new Date(end.started).toISOString(),
    durationMs: (session.journal?.elapsedMs ?? 0) + elapsed,
    session: { ms: elapsed, rows: end.tally.written, requests: end.counters.requestsSent },
    resume: {
      resumed: session.journal !== undefined,
      fromRow: end.fromRow,
      checkpoint: end.checkpointKept ? (session.journalPath ?? null) : null,
      next: nextStep(spec, end),
      checkpointRows: end.checkpointKept ? (end.keptRows ?? end.tally.committedRows) : null,
      ...(end.checkpointKept && spec.distributed !== undefined ? { queue: spec.distributed.queue } : {}),
    },
  });
}

/** How the checkpoint kept, if any, is taken up (RunSummary's `resume.next`). */
function nextStep(spec: RunSpec, end: SessionEnd): ResumeNext | null {
  if (!end.checkpointKept) return null;
  const mismatch = isGeobatchError(end.error) && end.error.code === 'CHECKPOINT_MISMATCH';
  // A finishing checkpoint reads nothing: what it needs is its files, as they were sealed.
  if (end.finishing) return mismatch ? 'start-over' : 'resume';
  return spec.input.path === '-' ? 'resume-same-input' : 'resume';
}

function stepSummary(step: StepCounters): StepSummary {
  const c = step.counters;
  return {
    name: step.name,
    rows: {
      reached: c.rowsRead - step.passedIn,
      ok: c.rowsOk,
      failed: c.rowsFailed - step.passedThrough,
    },
    requests: {
      http: step.http.count,
      sent: c.requestsSent,
      itemsSent: c.itemsSent,
      savedByDedup: c.dedupHits,
      savedByBatching: c.itemsSent - c.itemsResent - (c.requestsSent - c.requestsResent),
      savedByLocalAnswers: c.localHits,
    },
  };
}

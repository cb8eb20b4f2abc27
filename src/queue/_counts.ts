/**
 * A distributed run's counts on the coordinator's side: rows as they pass in input order, and each
 * chunk's work (requests, dedup, cache, each step's) added as the chunk is taken.
 */
import type { EngineCounters } from '../engine/counters.js';
import type { StepCounters } from '../engine/pipeline.js';
import type { Outcome } from '../types.js';
import type { ChunkCounts } from './chunks.js';

export function count(c: EngineCounters, outcome: Outcome): void {
  c.rowsEmitted++;
  if (outcome.status === 'ok') c.rowsOk++;
  else {
    c.rowsFailed++;
    c.failuresByCode[outcome.issue.code] = (c.failuresByCode[outcome.issue.code] ?? 0) + 1;
  }
}

/** The chunk's work (requests, dedup, cache) into the run's counters; rows are counted as they pass. */
const WORK_KEYS: readonly (keyof EngineCounters)[] = [
  'itemsPlanned',
  'uniqueItems',
  'dedupHits',
  'localHits',
  'requestsSent',
  'itemsSent',
  'requestsResent',
  'itemsResent',
  'requestsFailed',
];

export function addCounts(
  run: EngineCounters,
  steps: readonly StepCounters[] | undefined,
  counts: ChunkCounts,
  /** work: false, for a chunk whose work a stopped session counted (coordinator.ts, settle). */
  { work = true }: { readonly work?: boolean } = {},
): void {
  if (work) addWork(run, counts.counters);
  run.maxRowsInFlight = Math.max(run.maxRowsInFlight, counts.counters.maxRowsInFlight ?? 0);
  run.maxRequestsInFlight = Math.max(run.maxRequestsInFlight, counts.counters.maxRequestsInFlight ?? 0);
  steps?.forEach((step, i) => {
    const theirs = counts.steps?.[i];
    if (theirs === undefined) return;
    for (const key of Object.keys(theirs.counters) as (keyof EngineCounters)[]) {
      if (key === 'failuresByCode') continue;
      if (key === 'maxRowsInFlight' || key === 'maxRequestsInFlight')
        step.counters[key] = Math.max(step.counters[key], theirs.counters[key]);
      else (step.counters[key] as number) += theirs.counters[key];
    }
    for (const [code, n] of Object.entries(theirs.counters.failuresByCode ?? {}))
      step.counters.failuresByCode[code] = (step.counters.failuresByCode[code] ?? 0) + n;
    step.passedThrough += theirs.passedThrough;
    step.passedIn += theirs.passedIn ?? theirs.passedThrough;
    step.http.count += theirs.http ?? 0;
  });
}

/**
 * Where an attempt at a chunk that did not end done (handed back, failed) keeps its work in the
 * chunk's `spent` entry, beside the client's counts: the attempt's requests were sent and paid for,
 * and the run counts them as a single run counts those of rows a stop left unwritten.
 */
export const WORK = 'work';

/** The counters' work, as a spent entry keeps it. */
export function workOf(counters: Readonly<EngineCounters>): Record<string, number> {
  const work: Record<string, number> = {};
  for (const key of WORK_KEYS) {
    const n = counters[key] as number;
    if (n !== 0) work[key] = n;
  }
  return work;
}

/** `work` (workOf, or spent entries' sum) added into the run's counters. */
export function addWork(
  run: EngineCounters,
  work: Readonly<Partial<Record<keyof EngineCounters, unknown>>>,
): void {
  for (const key of WORK_KEYS) {
    const n = Number(work[key] ?? 0);
    if (Number.isFinite(n)) (run[key] as number) += n;
  }
}

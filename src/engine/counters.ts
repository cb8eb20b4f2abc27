/** What the engine counts as it goes: read by progress while the run goes, and by the summary after. */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface EngineCounters {
  /** Rows (and unreadable records) taken from the input. */
  rowsRead: number;
  /** Outcomes handed on, in input order. */
  rowsEmitted: number;
  rowsOk: number;
  rowsFailed: number;
  /** Failed rows by error code. */
  failuresByCode: Record<string, number>;
  /** Items the job planned for its rows. */
  itemsPlanned: number;
  /**
   * Items a request was sent for, each once (a second pass's not again): the first of their key
   * that neither dedup, a local answer nor a cache answered.
   */
  uniqueItems: number;
  /** Items answered by an identical item's request (in flight or remembered). */
  dedupHits: number;
  /** Items the job answered without a request (`resolveLocally`, or an `execute` that asked nothing, from what it learnt). */
  localHits: number;
  /** Requests that came back, answered or failed (one per batch); one a stop abandoned is not counted. */
  requestsSent: number;
  /** Items in those requests. */
  itemsSent: number;
  /** Of those, requests holding only items sent before (a second pass after attempts ran out). */
  requestsResent: number;
  /** Items sent again in a second pass: counted in `itemsSent` twice, saved by batching once. */
  itemsResent: number;
  /** Requests that failed as a whole (every item in them failed). */
  requestsFailed: number;
  /** Peak of rows read but not yet emitted (never above the window). */
  maxRowsInFlight: number;
  /** Peak of requests in flight (never above the concurrency). */
  maxRequestsInFlight: number;
}

export function createCounters(): EngineCounters {
  return {
    rowsRead: 0,
    rowsEmitted: 0,
    rowsOk: 0,
    rowsFailed: 0,
    failuresByCode: {},
    itemsPlanned: 0,
    uniqueItems: 0,
    dedupHits: 0,
    localHits: 0,
    requestsSent: 0,
    itemsSent: 0,
    requestsResent: 0,
    itemsResent: 0,
    requestsFailed: 0,
    maxRowsInFlight: 0,
    maxRequestsInFlight: 0,
  };
}

/** Adds `more` into `into` (a resumed run's counts on top of the earlier sessions'). */
export function addCounters(into: EngineCounters, more: Readonly<EngineCounters>): EngineCounters {
  const sum: EngineCounters = { ...into, failuresByCode: { ...into.failuresByCode } };
  for (const key of Object.keys(more) as (keyof EngineCounters)[]) {
    if (key === 'failuresByCode') continue;
    if (key === 'maxRowsInFlight' || key === 'maxRequestsInFlight') sum[key] = Math.max(into[key], more[key]);
    // `?? 0`: a checkpoint written before a counter existed lacks it.
    else sum[key] = (into[key] ?? 0) + (more[key] ?? 0);
  }
  for (const [code, n] of Object.entries(more.failuresByCode)) {
    sum.failuresByCode[code] = (sum.failuresByCode[code] ?? 0) + n;
  }
  return sum;
}

/**
 * One of the engine's requests as a cache around the client sees it (the boundaries job's areas,
 * the trip and match jobs' whole requests: src/cache). Such a cache answers the job's calls, not
 * the engine's items, so only the request can say whether the service was asked at all: a
 * request whose every call the cache answered was not sent, and its items are the cache's hits,
 * not items sent (counted as both, a fully cached boundaries run gave 778 items for 601).
 */
export interface RequestTrace {
  /** Items in the request. */
  readonly items: number;
  /** The input row (RowRef.index) of each item, which the cache counts it for. */
  rows?: readonly number[];
  /** The job's calls the cache answered from what it keeps. */
  kept: number;
  /** The job's calls the cache passed on to the service. */
  asked: number;
  /** Of those, calls whose kept answer was past its lifetime: counted with the misses. */
  expired?: number;
  /**
   * Set by a job that asked the service nothing (`answeredWithoutRequest`): `saved`, its items are
   * local answers (a request spared); `free`, the items never needed one and count nowhere.
   */
  local?: 'saved' | 'free';
  /** Set by the cache on its first call: told once, when the request has settled. */
  settled?: (trace: RequestTrace) => void;
}

/** The request being executed, for the cache around the client (the engine runs `execute` in it). */
export const requestTraces = new AsyncLocalStorage<RequestTrace>();

/** The cache answered every call the job made, and the job made one: nothing reached the service. */
export function answeredFromCache(trace: RequestTrace): boolean {
  return trace.kept > 0 && trace.asked === 0;
}

/**
 * Said by a job whose `execute` asked the service nothing: `saved` where it answered from what it
 * learnt (points its own index placed at every level: local answers, as `resolveLocally`'s),
 * `free` where nothing was ever to ask (a trip of one stop: no request, and none saved, as a dry
 * run counts it by `requestsFor`). Either way the engine counts no request sent.
 */
export function answeredWithoutRequest(how: 'saved' | 'free'): void {
  const trace = requestTraces.getStore();
  if (trace !== undefined) trace.local = how;
}

/**
 * The caches around the client (areas.ts, routing.ts) count in the engine's units: a request of
 * the engine's whose every call they answered is a request saved and its items are hits; one that
 * asked the service is a request sent, and its items are misses. Counted per call, a boundaries
 * run's hits were points per level (177 for 334 items), and the engine counted the same items as
 * sent besides, so the run report gave 778 items for 601 and 4 requests where none went.
 */
import { answeredFromCache, type RequestTrace, requestTraces } from '../engine/counters.js';
import type { CacheTally } from './tally.js';

/** One call of the job's: answered from the cache (`kept`) or passed on to the service, of `items`. */
export function traceCall(tally: CacheTally, kept: boolean, items: number): void {
  const trace = requestTraces.getStore();
  // Called outside an engine request (a library caller's own use of the wrapped client): the call
  // is the request.
  if (trace === undefined) {
    count(tally, { items, kept: kept ? 1 : 0, asked: kept ? 0 : 1 });
    return;
  }
  if (kept) trace.kept++;
  else trace.asked++;
  trace.settled ??= (settled) => count(tally, settled);
}

function count(tally: CacheTally, trace: RequestTrace): void {
  if (answeredFromCache(trace)) {
    tally.hits += trace.items;
    tally.requestsSaved++;
  } else if (trace.asked > 0) tally.misses += trace.items;
}

/**
 * A call the cache passes on without keeping its answer, made within a request it has seen (the
 * ROUTE a trip asks for legs its TRIP answer lacks): that request reached the service.
 */
export function tracePassedOn(): void {
  const trace = requestTraces.getStore();
  if (trace?.settled !== undefined) trace.asked++;
}

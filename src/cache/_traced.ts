/**
 * The caches around the client (areas.ts, routing.ts) count items in the engine's units: a request
 * of the engine's whose every call they answered is one whose items are hits; one that asked the
 * service is a request sent, and its items are misses. Counted per call, a boundaries run's hits
 * were points per level (177 for 334 items), and the engine counted the same items as sent
 * besides, so the run report gave 778 items for 601 and 4 requests where none went.
 *
 * The requests saved are HTTP requests, as the summary's `http`: each call the cache answered is
 * one the service did not get (boundaries asks once per level and again for points an answer did
 * not place; a trip asks TRIP, then ROUTE). Counted one per engine request, a fully cached
 * boundaries run said "2 requests not sent" where the run without the cache had sent 6.
 */
import { answeredFromCache, type RequestTrace, requestTraces } from '../engine/counters.js';
import { type CacheTally, countFor } from './tally.js';

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
  // Counted on the rows of the request's items (the engine says which), the calls it spared on
  // its last row: a checkpoint carries them once every row of the request is committed.
  const rows = trace.rows;
  const last = rows === undefined || rows.length === 0 ? undefined : Math.max(...rows);
  // A call answered from the cache within a request that also asked the service spared one too.
  if (trace.kept > 0) countFor(tally, 'requestsSaved', last, trace.kept);
  const field = answeredFromCache(trace) ? 'hits' : trace.asked > 0 ? 'misses' : undefined;
  if (field === undefined) return;
  if (rows === undefined || rows.length !== trace.items) countFor(tally, field, last, trace.items);
  else for (const row of rows) countFor(tally, field, row);
  if (field === 'misses' && trace.expired !== undefined) countFor(tally, 'expired', last, trace.expired);
}

/**
 * A kept answer found past its lifetime, so the call goes to the service: `expired`, counted with
 * the request's misses when it settles (a request a stop abandoned is neither); outside an
 * engine request, at once.
 */
export function traceExpired(tally: CacheTally): void {
  const trace = requestTraces.getStore();
  if (trace === undefined) countFor(tally, 'expired', undefined);
  else trace.expired = (trace.expired ?? 0) + 1;
}

/**
 * A call the cache passes on without keeping its answer, made within a request it has seen (the
 * ROUTE a trip asks for legs its TRIP answer lacks): that request reached the service.
 */
export function tracePassedOn(): void {
  const trace = requestTraces.getStore();
  if (trace?.settled !== undefined) trace.asked++;
}

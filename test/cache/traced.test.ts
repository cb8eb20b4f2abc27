/**
 * The caches around the client count the engine's requests and items, not their own calls: a
 * request whose every call they answered is one saved, its items hits; one that asked is sent.
 */
import { describe, expect, it } from 'vitest';
import { traceCall, traceExpired, tracePassedOn } from '../../src/cache/_traced.js';
import { createTally, RowCounts } from '../../src/cache/tally.js';
import { type RequestTrace, requestTraces } from '../../src/engine/counters.js';

/** One of the engine's requests of `items` items, the calls in `calls` made within it, then settled. */
async function request(
  items: number,
  calls: () => Promise<void> | void,
  rows?: readonly number[],
): Promise<RequestTrace> {
  const trace: RequestTrace = { items, kept: 0, asked: 0, ...(rows === undefined ? {} : { rows }) };
  await requestTraces.run(trace, calls);
  trace.settled?.(trace);
  return trace;
}

describe('traceCall', () => {
  it("counts a request the cache answered whole as its items' hits, and each call it answered as an HTTP request saved", async () => {
    const tally = createTally();
    // Two levels of 40 points each, both from the cache: 40 hits, not 80; two calls the service
    // did not get, not one batch.
    await request(40, () => {
      traceCall(tally, true, 40);
      traceCall(tally, true, 40);
    });
    expect(tally).toMatchObject({ hits: 40, misses: 0, requestsSaved: 2 });
  });

  it('counts a request that asked the service at all as sent: its items are misses, its kept calls saved', async () => {
    const tally = createTally();
    await request(30, async () => {
      traceCall(tally, true, 30);
      await Promise.resolve();
      traceCall(tally, false, 12);
    });
    expect(tally).toMatchObject({ hits: 0, misses: 30, requestsSaved: 1 });
  });

  it('counts on the rows of its items, the calls it spared on its last row, for a checkpoint to leave out', async () => {
    const tally = createTally();
    tally.rows = new RowCounts();
    // Rows 10-13 answered whole; rows 14-16 asked the service, one of their two levels kept.
    await request(4, () => traceCall(tally, true, 4), [10, 11, 12, 13]);
    await request(3, () => {
      traceCall(tally, true, 3);
      traceCall(tally, false, 3);
    }, [14, 16, 15]);
    expect(tally).toMatchObject({ hits: 4, misses: 3, requestsSaved: 2 });
    // Committed up to row 12: rows 12-16 are left out, each request's saving with its last row.
    expect(tally.rows.from(12)).toMatchObject({ hits: 2, misses: 3, requestsSaved: 2 });
    expect(tally.rows.from(16)).toMatchObject({ hits: 0, misses: 1, requestsSaved: 1 });
    expect(tally.rows.from(17)).toMatchObject({ hits: 0, misses: 0, requestsSaved: 0 });
  });

  it('counts an expired answer with the misses of its request, once it settles, on its last row', async () => {
    const tally = createTally();
    tally.rows = new RowCounts();
    await request(2, () => {
      traceExpired(tally);
      traceCall(tally, false, 2);
    }, [7, 8]);
    expect(tally).toMatchObject({ misses: 2, expired: 1 });
    expect(tally.rows.from(8)).toMatchObject({ misses: 1, expired: 1 });
    // A request a stop abandons never settles: neither its miss nor its expired answer counts.
    const abandoned: RequestTrace = { items: 1, kept: 0, asked: 0, rows: [9] };
    requestTraces.run(abandoned, () => {
      traceExpired(tally);
      traceCall(tally, false, 1);
    });
    expect(tally).toMatchObject({ misses: 2, expired: 1 });
  });

  it('makes a request with a ROUTE passed on after a kept TRIP one that reached the service', async () => {
    const tally = createTally();
    const trace = await request(5, async () => {
      traceCall(tally, true, 5);
      await Promise.resolve();
      tracePassedOn();
    });
    expect(trace).toMatchObject({ kept: 1, asked: 1 });
    // The TRIP the cache held was not sent; the ROUTE was.
    expect(tally).toMatchObject({ hits: 0, misses: 5, requestsSaved: 1 });
  });

  it("leaves a request the cache never saw alone: another step's ROUTE is not counted", async () => {
    const tally = createTally();
    const trace = await request(7, () => tracePassedOn());
    expect(trace).toMatchObject({ kept: 0, asked: 0 });
    expect(tally).toMatchObject({ hits: 0, misses: 0, requestsSaved: 0 });
  });

  it('takes a call made outside any request of the engine for a request of its own', () => {
    const tally = createTally();
    traceCall(tally, true, 3);
    traceCall(tally, false, 2);
    expect(tally).toMatchObject({ hits: 3, misses: 2, requestsSaved: 1 });
  });
});

import { describe, expect, it } from 'vitest';
import { addCounters, createCounters } from '../../src/engine/counters.js';

describe('engine counters', () => {
  it('add up across sessions, peaks as maxima and failures per code', () => {
    const a = {
      ...createCounters(),
      rowsOk: 5,
      requestsSent: 3,
      maxRowsInFlight: 40,
      failuresByCode: { NO_MATCH: 2 },
    };
    const b = {
      ...createCounters(),
      rowsOk: 1,
      requestsSent: 4,
      maxRowsInFlight: 30,
      failuresByCode: { NO_MATCH: 1, TIMEOUT: 1 },
    };
    expect(addCounters(a, b)).toMatchObject({
      rowsOk: 6,
      requestsSent: 7,
      maxRowsInFlight: 40,
      failuresByCode: { NO_MATCH: 3, TIMEOUT: 1 },
    });
    expect(a.failuresByCode).toEqual({ NO_MATCH: 2 });
  });
});

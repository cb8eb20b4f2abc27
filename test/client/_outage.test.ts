import { describe, expect, it } from 'vitest';
import { OUTAGE_MS, Outages } from '../../src/client/_outage.js';

const T0 = 1_000_000;

describe('an outage of an interface that has answered', () => {
  it('needs 2 requests without an answer and OUTAGE_MS since the last answer', () => {
    const outages = new Outages();
    outages.heard('geocoding', T0, 1);
    expect(outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS)).toBeUndefined();
    expect(outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS - 1)).toBeUndefined();
    expect(outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS)).toEqual({
      unconnected: 0,
      timedOut: 3,
      dropped: 0,
      connectCode: undefined,
      answered: true,
      silentMs: OUTAGE_MS,
    });
  });

  it('starts again at any answer, and keeps the latest when answers arrive out of order', () => {
    const outages = new Outages();
    outages.heard('geocoding', T0 + 10_000, 2);
    // An attempt sent earlier, answered later (slowly): the service was heard at T0 + 10 s.
    outages.heard('geocoding', T0, 1);
    outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS);
    expect(outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS + 9_999)).toBeUndefined();
    outages.heard('geocoding', T0 + OUTAGE_MS + 20_000, 4);
    expect(outages.failed('geocoding', 'unconnected', 'ECONNREFUSED', T0 + 3 * OUTAGE_MS)).toBeUndefined();
  });

  it('counts each interface on its own', () => {
    const outages = new Outages();
    outages.heard('geocoding', T0, 5);
    outages.heard('routing', T0, 6);
    outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS);
    expect(outages.failed('routing', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS)).toBeUndefined();
  });
});

describe('an interface that never answered', () => {
  it('stops at the second request that could not connect, without waiting', () => {
    const outages = new Outages();
    outages.sent('elevation', T0);
    expect(outages.failed('elevation', 'unconnected', 'ECONNREFUSED', T0)).toBeUndefined();
    expect(outages.failed('elevation', 'unconnected', 'ENOTFOUND', T0 + 1)).toEqual({
      unconnected: 2,
      timedOut: 0,
      dropped: 0,
      connectCode: 'ENOTFOUND',
      answered: false,
      silentMs: undefined,
    });
  });

  it('takes timeouts as an outage only OUTAGE_MS after its first attempt', () => {
    const outages = new Outages();
    outages.sent('elevation', T0 + 5);
    outages.sent('elevation', T0);
    outages.failed('elevation', 'timed-out', 'TIMEOUT', T0 + 1000);
    expect(outages.failed('elevation', 'unconnected', 'ECONNREFUSED', T0 + OUTAGE_MS - 1)).toBeUndefined();
    expect(outages.failed('elevation', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS)).toMatchObject({
      unconnected: 1,
      timedOut: 2,
      dropped: 0,
      connectCode: 'ECONNREFUSED',
      answered: false,
      silentMs: OUTAGE_MS,
    });
  });
});

describe('connections closed without an answer', () => {
  it('are an outage OUTAGE_MS after the last answer, as timeouts are', () => {
    const outages = new Outages();
    outages.heard('geocoding', T0, 7);
    expect(outages.failed('geocoding', 'dropped', 'ECONNRESET', T0 + 1000)).toBeUndefined();
    expect(outages.failed('geocoding', 'dropped', 'UND_ERR_SOCKET', T0 + OUTAGE_MS - 1)).toBeUndefined();
    expect(outages.failed('geocoding', 'dropped', 'ECONNRESET', T0 + OUTAGE_MS)).toEqual({
      unconnected: 0,
      timedOut: 0,
      dropped: 3,
      connectCode: undefined,
      answered: true,
      silentMs: OUTAGE_MS,
    });
  });

  it('stop at the second request where the interface never answered, as refused connections do', () => {
    // A load balancer that drops at once: 2,000 rows through all their retries took 23 s, within
    // any wait, and 24,000 requests.
    const outages = new Outages();
    outages.sent('geocoding', T0);
    expect(outages.failed('geocoding', 'dropped', 'ECONNRESET', T0 + 10)).toBeUndefined();
    expect(outages.failed('geocoding', 'dropped', 'UND_ERR_SOCKET', T0 + 20)).toEqual({
      unconnected: 0,
      timedOut: 0,
      dropped: 2,
      connectCode: undefined,
      answered: false,
      silentMs: undefined,
    });
  });

  it('wait OUTAGE_MS from the first attempt where a request of an interface that never answered timed out', () => {
    const outages = new Outages();
    outages.sent('geocoding', T0);
    expect(outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + 10)).toBeUndefined();
    expect(outages.failed('geocoding', 'dropped', 'ECONNRESET', T0 + 20)).toBeUndefined();
    expect(outages.failed('geocoding', 'dropped', 'ECONNRESET', T0 + OUTAGE_MS)).toMatchObject({
      timedOut: 1,
      dropped: 2,
      answered: false,
      silentMs: OUTAGE_MS,
    });
  });
});

describe('a request the service hung while it answered others', () => {
  it('is no outage, nor is its second pass when it times out alone', () => {
    const outages = new Outages();
    // Sent 3rd; the 4th to 9th were answered, the last at T0.
    outages.heard('geocoding', T0, 9);
    expect(outages.hung('geocoding', 'timed-out', 3, 'held')).toBe(true);
    // Its second pass, sent 10th, when nothing else is left to send: nothing answered after it.
    expect(outages.hung('geocoding', 'timed-out', 10, 'held')).toBe(true);
    // Neither was counted: one more request of a silent service does not stop the run.
    expect(outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + 5 * OUTAGE_MS)).toBeUndefined();
  });

  it('leaves a request nothing was answered around to the outage, a run of one request included', () => {
    const outages = new Outages();
    outages.heard('elevation', T0, 1);
    expect(outages.hung('elevation', 'timed-out', 2, 'only')).toBe(false);
    expect(outages.failed('elevation', 'timed-out', 'TIMEOUT', T0 + 1_000)).toBeUndefined();
    expect(outages.hung('elevation', 'timed-out', 3, 'only')).toBe(false);
    expect(outages.failed('elevation', 'timed-out', 'TIMEOUT', T0 + OUTAGE_MS)).toMatchObject({
      timedOut: 2,
    });
  });

  it('counts its second pass when other requests go unanswered too, or when it did not time out', () => {
    const outages = new Outages();
    outages.heard('geocoding', T0, 9);
    expect(outages.hung('geocoding', 'timed-out', 3, 'held')).toBe(true);
    expect(outages.hung('geocoding', 'dropped', 4, 'reset')).toBe(true);
    // The service went away: another request sent after the last answer met nothing either.
    outages.failed('geocoding', 'timed-out', 'TIMEOUT', T0 + 1_000);
    expect(outages.hung('geocoding', 'timed-out', 10, 'held')).toBe(false);
    expect(outages.hung('geocoding', 'unconnected', 11, 'reset')).toBe(false);
  });
});

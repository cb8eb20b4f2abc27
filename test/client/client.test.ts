/**
 * The client against the emulator under faults: nothing lost, nothing hammered, fatal means fatal.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GeoClient } from '../../src/client/index.js';
import { createClient } from '../../src/client/index.js';
import type { RequestLogEntry } from '../../src/emulator/index.js';
import { withoutResume } from '../../src/run/_summary-facts.js';
import { clearSecrets, scrub } from '../../src/secrets.js';
import type { Rig } from './_emulator.js';
import { optionsFor, rig } from './_emulator.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.stop();
  r = undefined;
  clearSecrets();
});

/** Runs `task` for every item with at most `concurrency` in flight; rejects with the first error. */
async function pool<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return out;
}

/** The first `count` postal codes of the emulator's data set, as geocoding requests. */
function postalCodes(count: number): { country: string; zip: string }[] {
  const text = readFileSync(
    new URL('../../src/emulator/data/de_postal_codes_geonames.csv', import.meta.url),
    'utf8',
  );
  return text
    .split('\n')
    .slice(1, count + 1)
    .map((line) => ({ country: 'DE', zip: line.split(',', 1)[0] ?? '' }));
}

/** Every 429 whose next attempt (same X-Request-Id) arrived before the Retry-After ran out. */
function undercutRetryAfters(log: readonly RequestLogEntry[], toleranceMs: number): RequestLogEntry[] {
  const bad: RequestLogEntry[] = [];
  log.forEach((entry, i) => {
    if (entry.outcome !== 429 || entry.retryAfterMs === undefined || entry.answeredAt === undefined) return;
    const next = log.slice(i + 1).find((e) => e.requestId === entry.requestId);
    if (next && next.receivedAt + toleranceMs < entry.answeredAt + entry.retryAfterMs) bad.push(entry);
  });
  return bad;
}

describe('the client under 20% transient faults', () => {
  it('geocodes 1000 addresses without losing one, accounts for every request and never undercuts Retry-After', async () => {
    // Per attempt: 1 - 0.96 * 0.96 * 0.94 * 0.94 = 18.6% fail. Twelve attempts all failing for one
    // request: 0.186^12 = 1.7e-9, so for 1000 requests exhaustion has odds of about 1 in 600,000.
    // Random 429s are not a rate limit: a client that slows down for them (as it should for real
    // ones, tested below) would crawl here. This test is about retries and accounting, so hedges
    // are off: an attempt abandoned for its hedge may or may not have reached the server, and the
    // exact balance below would not hold (_exchange.test.ts tests hedging).
    r = await rig(
      {
        retry: { maxAttempts: 12, baseDelayMs: 20, maxDelayMs: 200 },
        throttle: { global: { concurrency: 32 }, pauseOnRetryAfter: false, aimd: { decrease: 1 } },
        adaptiveTimeout: { hedge: false },
      },
      {
        faults: {
          error500: 0.06,
          error503: 0.06,
          reset: 0.04,
          error429: 0.04,
          retryAfter: { seconds: 1, form: 'alternate' },
          seed: 20_260_115,
        },
      },
    );
    const client = r.client;
    const addresses = postalCodes(1000);
    const results = await pool(addresses, 32, (a) => client.geocode(a));
    expect(results).toHaveLength(1000);
    expect(results.every((res) => res !== undefined)).toBe(true);

    const stats = r.emulator.stats();
    const metrics = client.metrics();
    const outcomes = stats.byInterface.geocoding?.byOutcome ?? {};
    // The faults really happened, so the balance below is not vacuous.
    expect(outcomes['429']).toBeGreaterThan(10);
    expect(outcomes.reset).toBeGreaterThan(10);
    expect((outcomes['500'] ?? 0) + (outcomes['503'] ?? 0)).toBeGreaterThan(50);
    expect(stats.total).toBe(1000 + metrics.retries.total);
    expect(metrics.requests.total).toBe(stats.total);
    expect(metrics.throttled429).toBe(outcomes['429']);

    const log = r.emulator.requestLog();
    expect(log.filter((e) => e.outcome === 429 && e.retryAfterMs !== undefined).length).toBe(outcomes['429']);
    expect(undercutRetryAfters(log, 2)).toEqual([]);
  });
});

describe('the client against a service rate limit', () => {
  it('converges to the limit instead of fighting it: few 429s, every request done', async () => {
    // A client that ignores the limit (no AIMD, no pause) draws a 429 on ~60% of its attempts here.
    r = await rig({ retry: { maxAttempts: 30 } }, { faults: { rateLimit: { rps: 50, burst: 10 } } });
    const client = r.client;
    await pool(postalCodes(150), 16, (a) => client.geocode(a));
    const metrics = client.metrics();
    expect(metrics.requests.total).toBe(150 + metrics.retries.total);
    expect(metrics.throttled429).toBeGreaterThan(0);
    expect(metrics.throttled429 / metrics.requests.total).toBeLessThan(0.2);
    expect(undercutRetryAfters(r.emulator.requestLog(), 2)).toEqual([]);
  });
});

describe('the autocomplete token', () => {
  it('is fetched once per lifetime by 32 concurrent callers, and no call fails', async () => {
    // TTL 2 s, skew 0.5 s: a token is refreshed 1.5 s after its fetch. The clock is stepped by
    // hand (only Date is faked, so the HTTP round trips stay real): 20 rounds 200 ms apart, 32
    // concurrent calls each, span 3.8 s, so tokens are fetched at 0, 1.6 and 3.2 s.
    r = await rig({ tokenTtlSeconds: 2, tokenRefreshSkewSeconds: 0.5 }, { tokenTtlSeconds: 2 });
    const client = r.client;
    let calls = 0;
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const start = Date.now();
      for (let t = 0; t < 4000; t += 200) {
        vi.setSystemTime(start + t);
        await Promise.all(Array.from({ length: 32 }, () => client.autocomplete({ query: 'Karl', top: 3 })));
        calls += 32;
      }
    } finally {
      vi.useRealTimers();
    }
    const stats = r.emulator.stats();
    expect(stats.tokensIssued).toBe(3);
    expect(client.metrics().tokensFetched).toBe(stats.tokensIssued);
    expect(stats.byInterface.autocomplete?.byOutcome).toEqual({ '200': calls });
  });
});

describe('fatal answers', () => {
  async function fatalOf(client: GeoClient, call: (c: GeoClient) => Promise<unknown>) {
    return call(client).then(
      () => expect.unreachable('the call should have failed'),
      (error: unknown) => error as Error & { code: string; fatal: boolean; context: Record<string, unknown> },
    );
  }

  it('stops at once on a wrong apiKey (401), naming the key setting, with no retry', async () => {
    r = await rig({ credentials: { apiKey: 'a-wrong-api-key' } });
    const error = await fatalOf(r.client, (c) => c.geocode({ city: 'Karlsruhe' }));
    expect(error).toMatchObject({
      code: 'AUTH_REJECTED',
      fatal: true,
      context: { status: 401, service: 'geocoding', attempts: 1 },
    });
    expect(error.message).toBe(
      'the service rejected the API key (401) for geocoding: check GEOBATCH_API_KEY',
    );
    expect(r.emulator.stats().total).toBe(1);
  });

  it('names the variables the credentials were read from, when not the standard ones', async () => {
    r = await rig({ credentials: { apiKey: 'a-wrong-api-key' }, credentialSources: { apiKey: 'MY_KEY' } });
    const error = await fatalOf(r.client, (c) => c.geocode({ city: 'Karlsruhe' }));
    expect(error).toMatchObject({ code: 'AUTH_REJECTED', context: { status: 401, service: 'geocoding' } });
    expect(error.message).toBe('the service rejected the API key (401) for geocoding: check MY_KEY');
    await r.client.close();
    r = await rig({
      credentials: { partner: 'demo-partner', partnerKey: 'not-the-partner-key' },
      credentialSources: { partnerKey: 'PARTNER_SECRET' },
    });
    const partner = await fatalOf(r.client, (c) => c.addressSearch.byCustomerId(['GN0000000001']));
    expect(partner.code).toBe('AUTH_REJECTED');
    expect(partner.message).toContain('GEOBATCH_PARTNER and PARTNER_SECRET');
  });

  it('stops at once when no apiKey is sent (412)', async () => {
    r = await rig({ credentials: {} });
    const error = await fatalOf(r.client, (c) =>
      c.routing.route([
        [8.36, 49.01],
        [8.43, 49.0],
      ]),
    );
    expect(error).toMatchObject({
      code: 'AUTH_MISSING',
      context: { status: 412, service: 'routing', attempts: 1 },
    });
    expect(error.message).toContain('set GEOBATCH_API_KEY');
    expect(r.emulator.stats().total).toBe(1);
  });

  it('stops at once when the token endpoint rejects the key, before any autocomplete call', async () => {
    r = await rig({ credentials: { apiKey: 'another-wrong-key' } });
    const error = await fatalOf(r.client, (c) => c.autocomplete({ query: 'Karl' }));
    expect(error).toMatchObject({ code: 'AUTH_REJECTED', context: { status: 401, service: 'token' } });
    expect(r.emulator.stats().byInterface).toEqual({ token: { total: 1, byOutcome: { '401': 1 } } });
  });

  it('stops when address search reports the partner credentials as not authenticated', async () => {
    r = await rig({ credentials: { partner: 'demo-partner', partnerKey: 'not-the-partner-key' } });
    const error = await fatalOf(r.client, (c) => c.addressSearch.byCustomerId(['GN0000000001']));
    expect(error).toMatchObject({ code: 'AUTH_REJECTED', context: { service: 'addressSearch' } });
    expect(error.message).toContain('GEOBATCH_PARTNER and GEOBATCH_PARTNER_KEY');
    expect(r.emulator.stats().total).toBe(1);
  });

  it('stops when the quota is used up (402)', async () => {
    r = await rig({}, { faults: { quotaAfter: 2 } });
    const client = r.client;
    await client.elevation.point([10.5, 50.5]);
    await client.elevation.point([10.5, 50.5]);
    const error = await fatalOf(client, (c) => c.elevation.point([10.5, 50.5]));
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', context: { status: 402, service: 'elevation' } });
    expect(r.emulator.stats().total).toBe(3);
  });

  it('stops at the first 429 asking to wait as long as a run stops on, naming both waits and when to resume', async () => {
    r = await rig({}, { faults: { error429: 1, retryAfter: { seconds: 3600 } } });
    const before = Date.now();
    const error = await fatalOf(r.client, (c) => c.elevation.point([10.5, 50.5]));
    expect(error).toMatchObject({
      code: 'QUOTA_EXCEEDED',
      context: { status: 429, service: 'elevation', attempts: 1 },
    });
    expect(error.message).toMatch(
      /^the service asks to wait 60 min \(429, Retry-After\) for elevation; a run stops on a wait of 10 min or more \(retry\.stopOnRetryAfterMs\): try again after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    // --resume only in the hint, which a run that kept nothing drops.
    expect(error.context.hint).toMatch(
      /^run again with --resume after \S+Z: the rows already done are kept$/,
    );
    // And drops it whole: no 'rows already done are kept' is left beside 'nothing is kept'.
    expect(withoutResume(error.context.hint as string)).toBe('');
    const after = Date.parse(/after (\S+)$/.exec(error.message)?.[1] ?? '');
    expect(after).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3_600_000 - 1000);
    expect(r.emulator.stats().total).toBe(1);
  });

  it('stops at a shorter Retry-After when stopOnRetryAfterMs asks it to, and at any with 0', async () => {
    const retry = { baseDelayMs: 5, maxDelayMs: 50 };
    r = await rig(
      { retry: { ...retry, stopOnRetryAfterMs: 2000 } },
      { faults: { error429: 1, retryAfter: { seconds: 2, form: 'seconds' } } },
    );
    const error = await fatalOf(r.client, (c) => c.elevation.point([10.5, 50.5]));
    expect(error).toMatchObject({ code: 'QUOTA_EXCEEDED', context: { status: 429, attempts: 1 } });
    expect(error.message).toContain(
      'asks to wait 2 s (429, Retry-After) for elevation; a run stops on a wait of 2 s or more',
    );
    await r.stop();
    r = await rig(
      { retry: { ...retry, stopOnRetryAfterMs: 0 } },
      { faults: { error429: 1, retryAfter: { seconds: 0, form: 'seconds' } } },
    );
    const any = await fatalOf(r.client, (c) => c.elevation.point([10.5, 50.5]));
    expect(any).toMatchObject({ code: 'QUOTA_EXCEEDED', context: { status: 429, attempts: 1 } });
    expect(any.message).toContain(
      'asks to wait 0 s (429, Retry-After) for elevation; a run stops on a wait of 0 s or more',
    );
    expect(r.emulator.stats().total).toBe(1);
  });

  it('never stops on a Retry-After with stopOnRetryAfterMs null: waits the clamped time and retries', async () => {
    r = await rig(
      {
        retry: {
          baseDelayMs: 5,
          maxDelayMs: 50,
          maxAttempts: 3,
          maxRetryAfterMs: 10,
          stopOnRetryAfterMs: null,
        },
      },
      { faults: { error429: 1, retryAfter: { seconds: 3600 } } },
    );
    const error = await r.client.elevation.point([10.5, 50.5]).then(
      () => expect.unreachable('every answer is a 429'),
      (e: unknown) => e as Error & { code: string; fatal: boolean; context: Record<string, unknown> },
    );
    expect(error).toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      fatal: false,
      context: {
        status: 429,
        attempts: 3,
        detail: { errCode: expect.any(String), publicReport: expect.any(String) },
      },
    });
    // The service's own reason, as a 4xx keeps it: the error report's geobatch_detail is its.
    expect(error.message).toBe(
      `elevation still answered 429 after 3 attempts: ${(error.context.detail as { publicReport: string }).publicReport}`,
    );
    expect(r.emulator.stats().byInterface.elevation).toEqual({ total: 3, byOutcome: { '429': 3 } });
    // Not a stop: the next request is sent, and answered once the service answers again.
    r.emulator.setFaults({});
    expect(await r.client.elevation.point([10.5, 50.5])).toEqual(expect.any(Number));
  });

  it('counts a request asleep before its retry while it sleeps, for the engine', async () => {
    r = await rig(
      { retry: { baseDelayMs: 5, maxDelayMs: 50, maxAttempts: 3, maxRetryAfterMs: 30 } },
      { faults: { error429: 1, retryAfter: { seconds: 1 } } },
    );
    const seen: number[] = [];
    r.client.retrySleeps.listen(() => seen.push(r?.client.retrySleeps.sleeping ?? -1));
    const error = await r.client.elevation.point([10.5, 50.5]).then(
      () => expect.unreachable('every answer is a 429'),
      (e: unknown) => e as { code: string },
    );
    expect(error.code).toBe('RETRIES_EXHAUSTED');
    // Two sleeps between three attempts, one at a time, and none left once the call is over.
    expect(seen).toEqual([1, 1]);
    expect(r.client.retrySleeps.sleeping).toBe(0);
  });

  it('accepts the systemPartner/securityID pair wherever apiKey is accepted', async () => {
    r = await rig();
    const { systemPartner, securityID } = r.emulator.credentials;
    const client = createClient(optionsFor(r.emulator, { credentials: { systemPartner, securityID } }));
    try {
      expect(await client.elevation.point([10.5, 50.5])).toEqual(expect.any(Number));
      expect((await client.autocomplete({ query: 'Karl' })).length).toBeGreaterThan(0);
      expect(r.emulator.stats().byEndpoint['GET /api_rst/v2/authtoken']?.total).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('keeps the last two tokens token() handed out scrubbed, and releases older ones', async () => {
    r = await rig();
    const client = createClient(optionsFor(r.emulator));
    try {
      const tokens: string[] = [];
      for (let i = 0; i < 4; i++) tokens.push(await client.token());
      expect(new Set(tokens).size).toBe(4);
      expect(tokens.map((token) => scrub(token) === token)).toEqual([true, true, false, false]);
    } finally {
      await client.close();
    }
  });

  it('refuses a call after close() at once, as ABORTED, without sending it', async () => {
    r = await rig();
    const client = createClient(optionsFor(r.emulator));
    expect(await client.elevation.point([10.5, 50.5])).toEqual(expect.any(Number));
    await client.close();
    const served = r.emulator.stats().total;
    const error = await client.elevation.point([10.5, 50.5]).then(
      () => expect.unreachable('the client is closed'),
      (e: unknown) => e as { code: string; message: string; context: Record<string, unknown> },
    );
    expect(error).toMatchObject({
      code: 'ABORTED',
      message: 'the client was closed',
      context: { service: 'elevation' },
    });
    expect(r.emulator.stats().total).toBe(served);
  });

  it('rejects a call in flight as close() is called with "the client was closed", not as aborted by its caller', async () => {
    r = await rig({}, { faults: { latency: { fixedMs: 2_000, jitterMs: 0 } } });
    const client = createClient(optionsFor(r.emulator));
    const pending = client.elevation.point([10.5, 50.5]).then(
      () => expect.unreachable('the client is closed'),
      (e: unknown) => e as { code: string; message: string; context: Record<string, unknown> },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.close();
    expect(await pending).toMatchObject({
      code: 'ABORTED',
      message: 'the client was closed',
      context: { service: 'elevation' },
    });
  });

  it('rejects an aborted call as ABORTED with its service, endpoint and the reason the caller gave', async () => {
    r = await rig({}, { faults: { latency: { fixedMs: 2_000, jitterMs: 0 } } });
    const client = createClient(optionsFor(r.emulator));
    try {
      const controller = new AbortController();
      const call = client.elevation
        .point([10.5, 50.5], { signal: controller.signal })
        .catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 100));
      controller.abort(new Error('shutting down'));
      expect(await call).toMatchObject({
        code: 'ABORTED',
        message: 'the request was aborted: shutting down',
        context: { service: 'elevation', endpoint: '/api/v2/Elevation/point' },
      });
      // A reason given as text is said too.
      const said = new AbortController();
      said.abort('the night is over');
      expect(
        await client.elevation.point([10.5, 50.5], { signal: said.signal }).catch((e: unknown) => e),
      ).toMatchObject({
        message: 'the request was aborted: the night is over',
      });
      // Aborted before it began, without a reason of the caller's.
      const early = await client.elevation
        .point([10.5, 50.5], { signal: AbortSignal.abort() })
        .catch((e: unknown) => e);
      expect(early).toMatchObject({
        code: 'ABORTED',
        message: 'the request was aborted',
        context: { service: 'elevation', endpoint: '/api/v2/Elevation/point' },
      });
    } finally {
      await client.close();
    }
  });

  it('ends a call in flight and one asleep before a retry at once on close(), not after their wait', async () => {
    // Every answer hangs: the call in flight would wait out its 20 s timeout.
    r = await rig({ timeoutMs: 20_000, adaptiveTimeout: { enabled: false } }, { faults: { hang: 1 } });
    const client = createClient(optionsFor(r.emulator, { timeoutMs: 20_000 }));
    const started = Date.now();
    const inFlight = client.elevation.point([10.5, 50.5]).then(
      () => ({ code: 'answered' }),
      (e: unknown) => e as { code: string },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await client.close();
    expect((await inFlight).code).toBe('ABORTED');
    expect(Date.now() - started).toBeLessThan(5_000);

    // Every answer a 429 asking for 40 s: the call sleeps its Retry-After.
    await r.emulator.close();
    r = await rig({}, { faults: { error429: 1, retryAfter: { seconds: 40 } } });
    const sleeping = createClient(optionsFor(r.emulator));
    const slept = Date.now();
    const asleep = sleeping.elevation.point([10.5, 50.5]).then(
      () => ({ code: 'answered' }),
      (e: unknown) => e as { code: string },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sleeping.retrySleeps.sleeping).toBe(1);
    await sleeping.close();
    expect((await asleep).code).toBe('ABORTED');
    expect(Date.now() - slept).toBeLessThan(5_000);
  });
});

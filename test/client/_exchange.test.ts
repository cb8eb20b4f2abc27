/**
 * Hedged attempts and adaptive deadlines through a whole client, against a server that hangs or
 * slows down on cue. The client's timeout is set long or the retries few, so that the old
 * behaviour (wait out the whole timeout) fails these tests rather than passing them slowly.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ABANDONED } from '../../src/client/_deadline.js';
import { Exchange } from '../../src/client/_exchange.js';
import { Latencies } from '../../src/client/_latency.js';
import type { Http, HttpResponse } from '../../src/client/http.js';
import type { ClientOptions, GeoClient } from '../../src/client/index.js';
import { createClient } from '../../src/client/index.js';
import { Metrics } from '../../src/client/metrics.js';
import { resolveOptions } from '../../src/client/options.js';
import { Throttle } from '../../src/client/throttle.js';
import { clearSecrets } from '../../src/secrets.js';
import type { Handler, TestServer } from './_server.js';
import { json, startServer } from './_server.js';

const GEOCODE_OK = {
  type: 'FeatureCollection',
  features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [8.4, 49] }, properties: {} }],
};
/** Enough answers for an operation to adapt to (it wants 20), and to earn the budget two hedges. */
const WARM = 60;

let server: TestServer | undefined;
let client: GeoClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
  clearSecrets();
});

async function setup(handler: Handler, options: Partial<ClientOptions> = {}) {
  server = await startServer(handler);
  client = createClient({
    endpoints: { geojson: `${server.url}/geojson` },
    credentials: { apiKey: 'exchange-test-key' },
    retry: { maxAttempts: 1 },
    ...options,
  });
  for (let i = 0; i < WARM; i++) await client.geocode({ city: `warm-${i}` });
  return { server, client };
}

/** The request (0-based, counted by the server) that gets special treatment. */
const HANG = WARM;

describe('a hung attempt', () => {
  it('is hedged: the same request goes again and its answer is used, the hung one dropped', async () => {
    const { server, client } = await setup(
      (_, res, i) => {
        if (i !== HANG) json(res, 200, GEOCODE_OK);
      },
      { timeoutMs: 20_000 },
    );
    const result = await client.geocode({ city: 'Karlsruhe' });
    expect(result.match).not.toBeNull();
    const id = server.seen[HANG]?.headers['x-request-id'];
    expect(server.seen.slice(HANG).map((s) => s.headers['x-request-id'])).toEqual([id, id]);
    const metrics = client.metrics();
    expect(metrics.hedges).toEqual({ sent: 1, won: 1 });
    expect(metrics.requests.byInterface.geocoding).toMatchObject({ '200': WARM + 1, abandoned: 1 });
  });

  it('is hedged again when the hedge hangs too', async () => {
    const { server, client } = await setup(
      (_, res, i) => {
        if (i !== HANG && i !== HANG + 1) json(res, 200, GEOCODE_OK);
      },
      { timeoutMs: 20_000 },
    );
    await client.geocode({ city: 'Karlsruhe' });
    expect(server.seen).toHaveLength(HANG + 3);
    expect(client.metrics().hedges).toEqual({ sent: 2, won: 1 });
  });

  it("is hedged after a second when it is among an operation's first requests", async () => {
    server = await startServer((_, res, i) => {
      if (i !== 1) json(res, 200, GEOCODE_OK);
    });
    client = createClient({
      endpoints: { geojson: `${server.url}/geojson` },
      credentials: { apiKey: 'exchange-test-key' },
      retry: { maxAttempts: 1 },
      timeoutMs: 20_000,
    });
    const first = Array.from({ length: 12 }, (_, i) => client?.geocode({ city: `c${i}` }));
    const results = await Promise.all(first);
    expect(results.every((r) => r?.match != null)).toBe(true);
    expect(client.metrics().hedges).toEqual({ sent: 1, won: 1 });
  });

  it('is not hedged while the operation has not answered at all: that is its latency', async () => {
    server = await startServer((_, res) => setTimeout(() => json(res, 200, GEOCODE_OK), 1500));
    client = createClient({
      endpoints: { geojson: `${server.url}/geojson` },
      credentials: { apiKey: 'exchange-test-key' },
      retry: { maxAttempts: 1 },
    });
    await Promise.all(['a', 'b'].map((city) => client?.geocode({ city })));
    expect(client.metrics().hedges.sent).toBe(0);
    expect(server.seen).toHaveLength(2);
  });

  it('is cut at the adaptive deadline when hedging is off, then retried with the full timeout', async () => {
    const { client } = await setup(
      (_, res, i) => {
        if (i !== HANG) json(res, 200, GEOCODE_OK);
      },
      { timeoutMs: 20_000, adaptiveTimeout: { hedge: false, minMs: 100 }, retry: { maxAttempts: 2 } },
    );
    await client.geocode({ city: 'Karlsruhe' });
    const metrics = client.metrics();
    expect(metrics.retries.byCause).toEqual({ timeout: 1 });
    expect(metrics.hedges.sent).toBe(0);
  });
});

describe('a legitimately slow answer', () => {
  it('is cut at most once: the retry after a timeout gets the full timeout', async () => {
    const { server, client } = await setup(
      (_, res, i) => {
        if (i < HANG) json(res, 200, GEOCODE_OK);
        else setTimeout(() => json(res, 200, GEOCODE_OK), 400);
      },
      { timeoutMs: 20_000, adaptiveTimeout: { hedge: false, minMs: 100 }, retry: { maxAttempts: 3 } },
    );
    const result = await client.geocode({ city: 'far away' });
    expect(result.match).not.toBeNull();
    expect(server.seen).toHaveLength(HANG + 2);
    expect(client.metrics().retries.byCause).toEqual({ timeout: 1 });
  });

  it('is never cut by an operation that has not answered 20 times yet', async () => {
    const slow: Handler = (_, res) => setTimeout(() => json(res, 200, GEOCODE_OK), 300);
    server = await startServer(slow);
    client = createClient({
      endpoints: { geojson: `${server.url}/geojson` },
      credentials: { apiKey: 'exchange-test-key' },
      retry: { maxAttempts: 1 },
      adaptiveTimeout: { minMs: 100, hedge: false },
    });
    const result = await client.geocode({ city: 'cold' });
    expect(result.match).not.toBeNull();
    expect(client.metrics().requests.total).toBe(1);
  });
});

describe('a stop with attempts on the wire', () => {
  it('counts the attempts it cut off: the service has them and may bill them', async () => {
    const hang: Handler = () => {};
    server = await startServer(hang);
    client = createClient({
      endpoints: { geojson: `${server.url}/geojson` },
      credentials: { apiKey: 'exchange-test-key' },
      retry: { maxAttempts: 1 },
      adaptiveTimeout: { hedge: false },
    });
    const stop = new AbortController();
    const calls = [1, 2, 3].map((i) =>
      client?.geocode({ city: `c${i}` }, { signal: stop.signal }).catch((e) => e),
    );
    const seen = server;
    await vi.waitFor(() => expect(seen.seen).toHaveLength(3));
    stop.abort();
    await Promise.all(calls);
    const metrics = client.metrics();
    expect(metrics.requests.total).toBe(3);
    expect(metrics.requests.byInterface.geocoding).toEqual({ aborted: 3 });
  });
});

describe('options', () => {
  it('refuses an adaptive deadline floor that is not a positive integer, naming it', () => {
    expect(() => createClient({ adaptiveTimeout: { minMs: 0 } })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        context: expect.objectContaining({ path: 'adaptiveTimeout.minMs' }),
      }),
    );
  });
});

describe('counting attempts', () => {
  /**
   * An exchange over a fake pool: each attempt is held until the test settles it, and says whether
   * it was written to a socket. The first attempt reports itself slow at once, so a hedge follows.
   */
  function fakeExchange(written: (attempt: number) => boolean) {
    const held: { settle: (result: HttpResponse) => void }[] = [];
    const http: Http = {
      send(_request, signal, attempt) {
        const number = held.length + 1;
        if (attempt?.wire !== undefined && written(number)) attempt.wire.written = true;
        return new Promise((resolve, reject) => {
          held.push({ settle: resolve });
          signal?.addEventListener('abort', () => {
            if (signal.reason === ABANDONED) resolve({ ok: false, kind: 'network', code: 'ABANDONED' });
            else reject(signal.reason);
          });
          if (number === 1) attempt?.onSlow?.(() => {});
        });
      },
      close: async () => {},
    };
    const metrics = new Metrics();
    const latencies = new Latencies({ timeoutMs: 20_000, adaptive: true, minMs: 1000, hedge: true });
    const op = latencies.of('geocoding', 'GET', '/q');
    for (let i = 0; i < 20; i++) op.record(1);
    const exchange = new Exchange({
      http,
      throttle: new Throttle(resolveOptions({})),
      metrics,
      latencies,
      concurrency: 16,
    });
    const request = { origin: 'http://127.0.0.1:1', path: '/q', method: 'GET' as const, headers: {} };
    const answer: HttpResponse = { ok: true, status: 200, headers: {}, text: '{}' };
    return {
      held,
      metrics,
      answer,
      send: (signal?: AbortSignal) => exchange.send('geocoding', request, op, false, signal),
    };
  }

  it('does not count a hedge dropped while it waited for a connection: the service never saw it', async () => {
    const { held, metrics, answer, send } = fakeExchange((attempt) => attempt === 1);
    const sent = send();
    await vi.waitFor(() => expect(held).toHaveLength(2));
    held[0]?.settle(answer);
    expect((await sent).result).toEqual(answer);
    expect(metrics.snapshot().requests).toEqual({ total: 1, byInterface: { geocoding: { '200': 1 } } });
    expect(metrics.snapshot().hedges).toEqual({ sent: 0, won: 0 });
  });

  it('counts once an abandoned hedge whose answer came in the same turn as the winner', async () => {
    const { held, metrics, answer, send } = fakeExchange(() => true);
    const sent = send();
    await vi.waitFor(() => expect(held).toHaveLength(2));
    held[0]?.settle(answer);
    held[1]?.settle(answer);
    await sent;
    await new Promise((resolve) => setImmediate(resolve));
    // Two on the wire, two counted: the hedge as answered or as abandoned, whichever came first.
    const { total, byInterface } = metrics.snapshot().requests;
    expect(total).toBe(2);
    expect(byInterface.geocoding?.['200']).toBeGreaterThanOrEqual(1);
    expect(metrics.snapshot().hedges).toEqual({ sent: 1, won: 0 });
  });

  it('counts once each written attempt of a hedged pair that a stop cut off', async () => {
    const { held, metrics, send } = fakeExchange(() => true);
    const stop = new AbortController();
    const sent = send(stop.signal);
    await vi.waitFor(() => expect(held).toHaveLength(2));
    stop.abort(new Error('stopped'));
    await expect(sent).rejects.toThrow('stopped');
    await new Promise((resolve) => setImmediate(resolve));
    expect(metrics.snapshot().requests.total).toBe(2);
  });
});

describe('counting attempts on real sockets', () => {
  function connect(url: string, options: Partial<ClientOptions> = {}): GeoClient {
    client = createClient({
      endpoints: { geojson: `${url}/geojson` },
      credentials: { apiKey: 'exchange-test-key' },
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
      adaptiveTimeout: { hedge: false },
      ...options,
    });
    return client;
  }

  it('does not count an attempt refused at connect: nothing reached the service', async () => {
    // A loopback port nothing listens on: a server's, closed again.
    const closed = await startServer(() => {});
    await closed.close();
    const refused = connect(closed.url);
    await expect(refused.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'NETWORK',
      context: { attempts: 3 },
    });
    const metrics = refused.metrics();
    expect(metrics.requests).toEqual({ total: 0, byInterface: {} });
    expect(metrics.retries).toEqual({ total: 2, byCause: { network: 2 } });
  });

  it('counts what the service received when it answered some and then went away', async () => {
    server = await startServer((_, res) => json(res, 200, GEOCODE_OK));
    const seen = server;
    // No wait for it to come back: the run stops at once.
    const going = connect(seen.url, {
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, outageMs: 0 },
    });
    await going.geocode({ city: 'a' });
    await going.geocode({ city: 'b' });
    await seen.close();
    await expect(going.geocode({ city: 'c' })).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    expect(seen.seen).toHaveLength(2);
    expect(going.metrics().requests).toEqual({ total: 2, byInterface: { geocoding: { '200': 2 } } });
  });

  it('counts an attempt whose connection was reset after the request was written', async () => {
    server = await startServer((_, res) => res.socket?.destroy());
    const seen = server;
    const reset = connect(seen.url);
    await expect(reset.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'NETWORK',
      context: { attempts: 3 },
    });
    expect(seen.seen).toHaveLength(3);
    expect(reset.metrics().requests).toEqual({ total: 3, byInterface: { geocoding: { network: 3 } } });
  });
});

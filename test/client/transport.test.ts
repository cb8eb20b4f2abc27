import { createServer, type Server } from 'node:http';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientOptions, GeoClient } from '../../src/client/index.js';
import { createClient } from '../../src/client/index.js';
import { OUTAGE_MS } from '../../src/client/transport.js';
import type { ServiceError } from '../../src/errors.js';
import { clearSecrets } from '../../src/secrets.js';
import type { Handler, TestServer } from './_server.js';
import { json, startServer } from './_server.js';

const API_KEY = 'transport-test-api-key';
const GEOCODE_OK = {
  type: 'FeatureCollection',
  features: [
    {
      type: 'Feature',
      geometry: { type: 'Point', coordinates: [8.4, 49] },
      properties: { city: 'Karlsruhe' },
    },
  ],
};

let server: TestServer | undefined;
let client: GeoClient | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await server?.close();
  client = server = undefined;
  clearSecrets();
});

async function setup(handler: Handler, options: Partial<ClientOptions> = {}) {
  server = await startServer(handler);
  client = createClient({
    endpoints: { geojson: `${server.url}/geojson`, token: server.url, autocomplete: `${server.url}/ac` },
    credentials: { apiKey: API_KEY },
    retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
  return { server, client };
}

/** Answers the given statuses in turn, then 200 with a geocode answer. */
function sequence(...statuses: (number | 'reset' | 'hang' | 'malformed')[]): Handler {
  return (_, res, i) => {
    const step = statuses[i];
    if (step === undefined) json(res, 200, GEOCODE_OK);
    else if (step === 'reset') res.socket?.destroy();
    else if (step === 'hang') return;
    else if (step === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"type":"FeatureColl');
    } else json(res, step, { errCode: 'E', publicReport: `status ${step}` });
  };
}

describe('transport: retries', () => {
  it('retries transient failures under one X-Request-Id and counts them', async () => {
    const { server, client } = await setup(sequence(503, 'reset', 'malformed'));
    const result = await client.geocode({ city: 'Karlsruhe' });
    expect(result.match?.city).toBe('Karlsruhe');
    expect(server.seen).toHaveLength(4);
    expect(new Set(server.seen.map((s) => s.headers['x-request-id'])).size).toBe(1);
    const metrics = client.metrics();
    expect(metrics.retries).toEqual({ total: 3, byCause: { '503': 1, network: 1, malformed: 1 } });
    expect(metrics.requests.total).toBe(4);
  });

  it('gives each logical request its own X-Request-Id', async () => {
    const { server, client } = await setup(sequence());
    await client.geocode({ city: 'A' });
    await client.geocode({ city: 'B' });
    expect(server.seen[0]?.headers['x-request-id']).not.toBe(server.seen[1]?.headers['x-request-id']);
  });

  it('waits at least the Retry-After the service demanded', async () => {
    let answeredAt = 0;
    const { server, client } = await setup((_, res, i) => {
      if (i > 0) return json(res, 200, GEOCODE_OK);
      answeredAt = Date.now();
      json(res, 429, {}, { 'retry-after': '1' });
    });
    await client.geocode({ city: 'Karlsruhe' });
    expect((server.seen[1]?.at ?? 0) - answeredAt).toBeGreaterThanOrEqual(1000 - 2);
    expect(client.metrics().throttled429).toBe(1);
  });

  it("tells the user once when a 429 cuts an interface's rate", async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const throttle = { pauseOnRetryAfter: false, aimd: { tolerance: 0 } };
    const { client } = await setup(sequence(429), { logger, throttle });
    await client.geocode({ city: 'x' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      level: 30,
      service: 'geocoding',
      rate: expect.any(Number),
    });
  });

  it('takes 1 answer in 50 being a 429 as sporadic: no cut, no pause, each retried on its own', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const { client } = await setup(
      (_, res, i) =>
        i % 50 === 49 ? json(res, 429, {}, { 'retry-after': '0' }) : json(res, 200, GEOCODE_OK),
      { logger },
    );
    for (let round = 0; round < 25; round++) {
      await Promise.all(Array.from({ length: 20 }, (_, i) => client.geocode({ city: `c${round}-${i}` })));
    }
    const metrics = client.metrics();
    expect(metrics.throttled429).toBe(10);
    expect(metrics.retries.byCause['429']).toBe(10);
    expect(lines.filter((l) => l.includes('asked to slow down'))).toEqual([]);
  });

  it('ends in RETRIES_EXHAUSTED with the last status and the attempts made', async () => {
    // A 500, which may be this request's own (a 503 would wait for the service: below).
    const { client } = await setup(sequence(500, 500, 500, 500));
    await expect(client.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      context: { status: 500, attempts: 4, service: 'geocoding', endpoint: '/geojson/geocode' },
    });
  });

  it("reads a proxy's HTML page that outlasted the retries by its title, in one line", async () => {
    // A 500: a 503 alone would wait for the service (below).
    const page =
      '<html>\r\n<head><title>500 Internal Server Error</title></head>\r\n<body>\r\n<center><h1>500 Internal Server Error</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';
    const { client } = await setup(
      (_, res) => {
        res.writeHead(500, { 'content-type': 'text/html' });
        res.end(page);
      },
      { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    const error = await client.geocode({ city: 'x' }).catch((e: unknown) => e as ServiceError);
    expect(error).toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      message: 'geocoding still answered 500 after 2 attempts: 500 Internal Server Error',
      context: { detail: { publicReport: '500 Internal Server Error' } },
    });
  });

  it.each([
    ['timeout', 'TIMEOUT', 'hang'],
    ['network', 'NETWORK', 'reset'],
    ['malformed', 'RESPONSE_INVALID', 'malformed'],
  ] as const)('ends a run of %s failures in %s', async (_, code, step) => {
    const { client } = await setup(sequence(step, step, step, step), { timeoutMs: 100 });
    await expect(client.geocode({ city: 'x' })).rejects.toMatchObject({ code, context: { attempts: 4 } });
  });

  it('stops waiting for a backoff as soon as the caller aborts', async () => {
    const { client } = await setup((_, res) => json(res, 429, {}, { 'retry-after': '60' }));
    const controller = new AbortController();
    const pending = client.geocode({ city: 'x' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });
});

describe('transport: an address that never answers', () => {
  /** A loopback port nothing listens on: a server's, closed again. */
  async function closedPort(): Promise<string> {
    const closed = await startServer((_, res) => json(res, 200, GEOCODE_OK));
    await closed.close();
    return closed.url;
  }

  it('stops the run (SERVICE_UNREACHABLE) when the first requests all fail to connect', async () => {
    const url = await closedPort();
    client = createClient({
      endpoints: { geojson: `${url}/geojson` },
      credentials: { apiKey: API_KEY },
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const geocoding = client;
    // Not the first: one request's attempts may all fall within a restart.
    await expect(geocoding.geocode({ city: 'a' })).rejects.toMatchObject({
      code: 'NETWORK',
      context: { attempts: 2 },
    });
    const second = geocoding.geocode({ city: 'b' });
    await expect(second).rejects.toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      fatal: true,
      context: { service: 'geocoding', endpoint: '/geojson/geocode', attempts: 2 },
    });
    await expect(second).rejects.toThrow(
      `geocoding at ${url}/geojson never answered: its first 2 requests could not connect (ECONNREFUSED), 2 attempts each: check the address set for geocoding (endpoints.geojson) and that the service is up`,
    );
  });

  it('keeps a request out of retries in a silence waiting, told once, till the service is back: no row fails', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const { server, client } = await setup(sequence(), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 20 },
      logger,
    });
    await client.geocode({ city: 'Karlsruhe' });
    await server.close();
    const waiting = ['a', 'b', 'c'].map((city) => client.geocode({ city }));
    let settled = false;
    void Promise.allSettled(waiting).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    // The service comes back on its port, a restart's way.
    const again = await listenOn(server.url);
    try {
      const answers = await Promise.all(waiting);
      expect(answers.map((answer) => answer.match?.city)).toEqual(['Karlsruhe', 'Karlsruhe', 'Karlsruhe']);
    } finally {
      await closeServer(again);
    }
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logged.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      `geocoding answers nothing (ECONNREFUSED): requests out of retries wait for it, an attempt a second, rather than fail; the run stops if it stays silent for ${OUTAGE_MS / 1000} s (retry.outageMs), to be resumed`,
    ]);
    expect(logged.filter((line) => line.level === 30).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^geocoding answers again; requests that waited for it \(up to \d+ s\) go on$/),
    ]);
    expect(client.metrics().fatal).toBe(0);
  });

  it('fails a request the service leaves unanswered while it answers others: not an outage', async () => {
    const { client } = await setup(
      (seen, res) => {
        // The poisoned request's connection is closed a while after it came, as a crash would.
        if (`${seen.url}${seen.body}`.includes('poison')) setTimeout(() => res.socket?.destroy(), 100);
        else json(res, 200, GEOCODE_OK);
      },
      { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    await client.geocode({ city: 'Karlsruhe' });
    const poisoned = client.geocode({ city: 'poison' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await client.geocode({ city: 'Karlsruhe' });
    await expect(poisoned).rejects.toMatchObject({ code: 'NETWORK', context: { attempts: 2 } });
    expect(client.metrics().fatal).toBe(0);
  });

  it(`stops the run once an interface that answered has answered nothing for ${OUTAGE_MS / 1000} s, its requests waiting till then`, async () => {
    // Only the clock the attempts are stamped with moves; timers and sockets run as they do.
    vi.useFakeTimers({ toFake: ['Date'] });
    const { server, client } = await setup(sequence(), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    });
    await client.geocode({ city: 'Karlsruhe' });
    await server.close();
    const late = client.geocode({ city: 'a' });
    const other = client.geocode({ city: 'b' });
    let settled = false;
    void Promise.allSettled([late, other]).then(() => {
      settled = true;
    });
    vi.setSystemTime(Date.now() + OUTAGE_MS - 1000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    vi.setSystemTime(Date.now() + 2000);
    for (const pending of [late, other])
      await expect(pending).rejects.toMatchObject({
        code: 'SERVICE_UNREACHABLE',
        fatal: true,
        context: { service: 'geocoding', endpoint: '/geojson/geocode', attempts: 2 },
      });
    await expect(late).rejects.toThrow(
      `geocoding at ${server.url}/geojson stopped answering: nothing for ${OUTAGE_MS / 1000 + 1} s, and its last 2 requests could not connect (ECONNREFUSED), 2 attempts each: once the service is up again, run again with --resume`,
    );
  });

  it('stops a single waiting request, in the words of one request, after retry.outageMs', async () => {
    const { server, client } = await setup(sequence(), {
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 20, outageMs: 400 },
    });
    // The silence runs from the last answered attempt's sending: the clock starts before it (a
    // loaded machine measured 391 ms from after it).
    const started = Date.now();
    await client.geocode({ city: 'Karlsruhe' });
    await server.close();
    const alone = client.geocode({ city: 'a' });
    await expect(alone).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE', context: { attempts: 3 } });
    await expect(alone).rejects.toThrow(
      /stopped answering: nothing for \d+ s, and its last request could not connect \(ECONNREFUSED\), 3 attempts: /,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
  });

  it('counts the outage from the last answer: one in between starts it again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { server, client } = await setup(sequence(), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    });
    await client.geocode({ city: 'Karlsruhe' });
    await server.close();
    const first = client.geocode({ city: 'a' });
    vi.setSystemTime(Date.now() + OUTAGE_MS - 5000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // The service comes back on its port and answers the waiting request, then goes again.
    const again = await listenOn(server.url);
    await first;
    await closeServer(again);
    const second = client.geocode({ city: 'b' });
    let settled = false;
    void second.then(
      () => undefined,
      () => {
        settled = true;
      },
    );
    // 30 s after the first answer, but not after the last.
    vi.setSystemTime(Date.now() + 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    vi.setSystemTime(Date.now() + OUTAGE_MS);
    await expect(second).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
  });
});

/** A server answering every geocode, on the port of a server that was closed (its restart). */
async function listenOn(url: string): Promise<Server> {
  const again = createServer((_, res) => json(res, 200, GEOCODE_OK));
  await new Promise<void>((resolve) => again.listen(Number(new URL(url).port), '127.0.0.1', resolve));
  return again;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

describe('transport: a service that takes connections and closes them without an answer', () => {
  it(`stops the run after ${OUTAGE_MS / 1000} s of it since the last answer, saying what it met`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const dropping = { on: false };
    const { server, client } = await setup(
      (_, res) => {
        if (dropping.on) res.socket?.destroy();
        else json(res, 200, GEOCODE_OK);
      },
      { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    await client.geocode({ city: 'Karlsruhe' });
    dropping.on = true;
    // Within the 30 s, each waits for it (a proxy's blip).
    const late = client.geocode({ city: 'a' });
    const other = client.geocode({ city: 'b' });
    let settled = false;
    void Promise.allSettled([late, other]).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(false);
    vi.setSystemTime(Date.now() + OUTAGE_MS + 1000);
    await expect(late).rejects.toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      fatal: true,
      context: { service: 'geocoding', attempts: 2, detail: { dropped: 2, timedOut: 0, unconnected: 0 } },
    });
    await expect(late).rejects.toThrow(
      `geocoding at ${server.url}/geojson stopped answering: nothing for ${OUTAGE_MS / 1000 + 1} s, and its last 2 requests had their connections closed without an answer, 2 attempts each: it takes connections but closes them without an answer (a proxy or load balancer before a service that is down): once it answers again, run again with --resume; rows that failed for it before the stop, if any, are in the error report (NETWORK), to retry`,
    );
    await expect(other).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
  });
});

describe('transport: a service that takes connections and answers nothing', () => {
  const TIMEOUT_MS = 20;
  const retry = { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2 };

  /** Answers while `hanging.on` is false; then takes every request and never answers it. */
  function switchable(hanging: { on: boolean }): Handler {
    return (_, res) => {
      if (!hanging.on) json(res, 200, GEOCODE_OK);
    };
  }

  /**
   * Settles a call whose attempts hang: only Date is faked, so the deadlines the client reads
   * pass when the test moves it, one deadline at a time, yielding to the deadline sweep between.
   */
  async function timedOut<T>(pending: Promise<T>): Promise<unknown> {
    let settled = false;
    const outcome = pending.then(
      () => undefined,
      (error: unknown) => error,
    );
    void outcome.then(() => {
      settled = true;
    });
    while (!settled) {
      vi.setSystemTime(Date.now() + TIMEOUT_MS);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 6));
    }
    return outcome;
  }

  it(`stops the run once an interface that answered has answered nothing for ${OUTAGE_MS / 1000} s, its requests timing out`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const hanging = { on: false };
    const { server, client } = await setup(switchable(hanging), { retry, timeoutMs: TIMEOUT_MS });
    await client.geocode({ city: 'Karlsruhe' });
    hanging.on = true;
    const a = client.geocode({ city: 'a' });
    const b = client.geocode({ city: 'b' });
    // Both time out through their retries, then wait: the interface answered, then went silent.
    let settled = false;
    void Promise.allSettled([a, b]).then(() => {
      settled = true;
    });
    for (let step = 0; step < 20; step++) {
      vi.setSystemTime(Date.now() + TIMEOUT_MS);
      await new Promise((resolve) => setTimeout(resolve, 6));
    }
    expect(settled).toBe(false);
    vi.setSystemTime(Date.now() + OUTAGE_MS + 5000);
    const late = await timedOut(a);
    expect(late).toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      fatal: true,
      context: {
        service: 'geocoding',
        endpoint: '/geojson/geocode',
        attempts: 2,
        detail: { timedOut: 2, unconnected: 0, silentMs: expect.any(Number) },
      },
    });
    expect((late as ServiceError).context.detail?.silentMs).toBeGreaterThanOrEqual(OUTAGE_MS);
    expect((late as Error).message).toMatch(
      new RegExp(
        `^geocoding at ${server.url}/geojson stopped answering: nothing for 3\\d s, and its last 2 requests timed out, 2 attempts each \\(the last given ${TIMEOUT_MS} ms\\): it takes connections but answers nothing \\(hung or overloaded\\): once it answers again \\(if it is only slow, raise service.timeoutMs\\), run again with --resume; rows that failed for it before the stop, if any, are in the error report \\(TIMEOUT\\), to retry$`,
      ),
    );
    expect(await timedOut(b)).toMatchObject({ code: 'SERVICE_UNREACHABLE' });
  });

  it('keeps a slow service running: timeouts between its answers fail only their own requests', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // Hangs the slow requests only; the others are answered while the slow ones wait.
    const { client } = await setup(
      (seen, res) => {
        if (!`${seen.url}${seen.body}`.includes('slow')) json(res, 200, GEOCODE_OK);
      },
      { retry, timeoutMs: TIMEOUT_MS },
    );
    // Two minutes in all, never 30 s without an answer.
    for (let round = 0; round < 8; round++) {
      const slow = client.geocode({ city: `slow${round}` });
      await client.geocode({ city: 'Karlsruhe' });
      expect(await timedOut(slow)).toMatchObject({ code: 'TIMEOUT' });
      vi.setSystemTime(Date.now() + OUTAGE_MS / 2);
    }
    expect(client.metrics().fatal).toBe(0);
  });

  it(`stops an interface that never answered once its requests have timed out for ${OUTAGE_MS / 1000} s since the first`, async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { server, client } = await setup(switchable({ on: true }), { retry, timeoutMs: TIMEOUT_MS });
    // A service slow to start is still a service: two timeouts alone do not stop the run.
    for (const city of ['a', 'b'])
      expect(await timedOut(client.geocode({ city }))).toMatchObject({ code: 'TIMEOUT' });
    vi.setSystemTime(Date.now() + OUTAGE_MS);
    const late = await timedOut(client.geocode({ city: 'c' }));
    expect(late).toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      // The first request, alone unanswered when its attempts ran out, failed as its own
      // (_distinct.ts); the two after it are the evidence.
      context: { service: 'geocoding', attempts: 2, detail: { timedOut: 2, unconnected: 0 } },
    });
    expect((late as Error).message).toMatch(
      new RegExp(
        `^geocoding at ${server.url}/geojson never answered: nothing in 3\\d s since its first request, and its first 2 requests timed out, 2 attempts each \\(the last given ${TIMEOUT_MS} ms\\): it takes connections but answers nothing: check the address set for geocoding`,
      ),
    );
  });

  it('says so when the silence held both timeouts and refused connections', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const hanging = { on: false };
    const { server, client } = await setup(switchable(hanging), { retry, timeoutMs: TIMEOUT_MS });
    await client.geocode({ city: 'Karlsruhe' });
    hanging.on = true;
    // Two of them: one request alone unanswered while the interface answered before is no
    // evidence of an outage (a poison row, _distinct.ts), it fails its row as TIMEOUT.
    const a = client.geocode({ city: 'a' });
    const a2 = client.geocode({ city: 'a2' });
    void a.catch(() => undefined);
    void a2.catch(() => undefined);
    for (let step = 0; step < 10; step++) {
      vi.setSystemTime(Date.now() + TIMEOUT_MS);
      await new Promise((resolve) => setTimeout(resolve, 6));
    }
    await server.close();
    const late = client.geocode({ city: 'b' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    vi.setSystemTime(Date.now() + OUTAGE_MS);
    await expect(late).rejects.toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      context: { attempts: 2, detail: { timedOut: 2, unconnected: 1 } },
    });
    await expect(late).rejects.toThrow(
      'its last 3 requests got no answer (2 timed out, 1 could not connect: ECONNREFUSED), 2 attempts each',
    );
    await expect(late).rejects.toThrow('in the error report (TIMEOUT, NETWORK), to retry');
    await expect(a).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    await expect(a2).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
  });
});

describe('transport: answers that no retry can change', () => {
  it('fails a 400 for good, at once, with the service report in detail', async () => {
    const { server, client } = await setup(sequence(400));
    await expect(client.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      context: { status: 400, attempts: 1, detail: { errCode: 'E', publicReport: 'status 400' } },
    });
    expect(server.seen).toHaveLength(1);
  });

  it.each([
    [401, 'AUTH_REJECTED', 'the service rejected the API key (401) for geocoding: check GEOBATCH_API_KEY'],
    [403, 'AUTH_REJECTED', 'refused access (403)'],
    [402, 'QUOTA_EXCEEDED', 'quota is used up (402)'],
    [412, 'AUTH_MISSING', 'got no credential (412) for geocoding: set GEOBATCH_API_KEY'],
  ])('stops the run on a %i (%s) after one request', async (status, code, message) => {
    const { server, client } = await setup(sequence(status));
    const error = await client.geocode({ city: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code,
      fatal: true,
      context: { status, service: 'geocoding', attempts: 1 },
    });
    expect((error as Error).message).toContain(message);
    expect(server.seen).toHaveLength(1);
    expect(client.metrics().fatal).toBe(1);
  });

  it('calls a 401 to a request without any credential AUTH_MISSING', async () => {
    const { client } = await setup(sequence(401), { credentials: {} });
    await expect(client.geocode({ city: 'x' })).rejects.toMatchObject({ code: 'AUTH_MISSING' });
  });

  it('fails an answer of the wrong shape without retrying, naming the field', async () => {
    const { server, client } = await setup((_, res) =>
      json(res, 200, {
        type: 'FeatureCollection',
        features: [{ type: 'Feature', geometry: null, properties: 5 }],
      }),
    );
    await expect(client.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'RESPONSE_INVALID',
      context: { path: 'features[0].properties', service: 'geocoding', attempts: 1 },
    });
    expect(server.seen).toHaveLength(1);
  });
});

describe('transport: credentials on the wire', () => {
  it('sends apiKey as a query parameter', async () => {
    const { server, client } = await setup(sequence());
    await client.geocode({ city: 'x' });
    expect(new URL(server.seen[0]?.url ?? '', server.url).searchParams.get('apiKey')).toBe(API_KEY);
  });

  it('sends the systemPartner/securityID pair when no apiKey is given', async () => {
    const { server, client } = await setup(sequence(), {
      credentials: { systemPartner: 'sys-partner', securityID: 'security-id-1' },
    });
    await client.geocode({ city: 'x' });
    const query = new URL(server.seen[0]?.url ?? '', server.url).searchParams;
    expect([query.get('systemPartner'), query.get('securityID'), query.get('apiKey')]).toEqual([
      'sys-partner',
      'security-id-1',
      null,
    ]);
  });

  it('refreshes a rejected bearer token once, then treats a second 401 as fatal', async () => {
    let tokens = 0;
    let acceptAfter = 1;
    const { server, client } = await setup((seen, res) => {
      if (seen.url.startsWith('/api_rst/api/autocompleteToken'))
        return json(res, 200, `bearer-token-${++tokens}`);
      if (tokens > acceptAfter) return json(res, 200, []);
      json(res, 401, { errCode: 'TOKEN' });
    });
    expect(await client.autocomplete({ query: 'Karl' })).toEqual([]);
    expect(tokens).toBe(2);
    const calls = server.seen.filter((s) => s.url === '/ac').map((s) => s.headers.authorization);
    expect(calls).toEqual(['Bearer bearer-token-1', 'Bearer bearer-token-2']);
    acceptAfter = 99;
    await expect(client.autocomplete({ query: 'Karl' })).rejects.toMatchObject({
      code: 'AUTH_REJECTED',
      context: { service: 'autocomplete', status: 401 },
    });
    expect(tokens).toBe(3);
  });
});

describe('transport: a service that answers only 5xx', () => {
  /** Answers 503 (Retry-After 0) while `down.on`, else a geocode answer; 'poison' always 503. */
  function maintenance(down: { on: boolean }): Handler {
    return (seen, res) => {
      if (down.on || `${seen.url}${seen.body}`.includes('poison'))
        json(res, 503, { errCode: 'E', publicReport: 'maintenance' }, { 'retry-after': '0' });
      else json(res, 200, GEOCODE_OK);
    };
  }

  it('stops the run (SERVICE_UNREACHABLE) once it has answered only 503 for retry.outageMs, its requests waiting till then', async () => {
    const { server, client } = await setup(maintenance({ on: true }), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1000, outageMs: 500 },
    });
    const started = Date.now();
    const pending = ['a', 'b', 'c', 'd'].map((city) => client.geocode({ city }));
    await Promise.allSettled(pending);
    for (const request of pending)
      await expect(request).rejects.toMatchObject({
        code: 'SERVICE_UNREACHABLE',
        fatal: true,
        context: {
          service: 'geocoding',
          endpoint: '/geojson/geocode',
          attempts: 2,
          detail: { statuses: '503' },
        },
      });
    await expect(pending[0]).rejects.toThrow(
      new RegExp(
        `^geocoding at ${server.url}/geojson answered only 503 for \\d+ s since its first request, its last \\d+ requests? through all their attempts \\(2 attempts( each)?\\): the service is down or in maintenance: run again later with --resume`,
      ),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    // Waiting requests knock about once a second, not 1,650 times a second.
    expect(server.seen.length).toBeLessThan(20);
  });

  it('holds the interface while requests wait for it: about `concurrency` attempts a second, not one per request', async () => {
    const { server, client } = await setup(maintenance({ on: true }), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1000, outageMs: 3000 },
      throttle: { global: { concurrency: 4 } },
    });
    const pending = Array.from({ length: 64 }, (_, i) => client.geocode({ city: `c${i}` }));
    await Promise.allSettled(pending);
    await expect(pending[0]).rejects.toMatchObject({ code: 'SERVICE_UNREACHABLE' });
    // 64 requests of 2 attempts each, then about 4 attempts a second for 3 s; one knock a second
    // for each of them was 64 a second, over 300 in all.
    expect(server.seen.length).toBeLessThan(200);
  });

  it('keeps requests out of retries in a 503 window waiting, told once, till it ends: no row fails', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const down = { on: false };
    const { client } = await setup(maintenance(down), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 20, outageMs: 10_000 },
      logger,
    });
    await client.geocode({ city: 'Karlsruhe' });
    down.on = true;
    const waiting = ['a', 'b', 'c'].map((city) => client.geocode({ city }));
    let settled = false;
    void Promise.allSettled(waiting).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(settled).toBe(false);
    down.on = false;
    const answers = await Promise.all(waiting);
    expect(answers.map((answer) => answer.match?.city)).toEqual(['Karlsruhe', 'Karlsruhe', 'Karlsruhe']);
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logged.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      'geocoding answers only 503: requests out of retries wait for it rather than fail, the interface held a second at a time; the run stops if it serves nothing for 10 s (retry.outageMs), to be resumed',
    ]);
    expect(logged.filter((line) => line.level === 30).map((line) => line.msg)).toEqual([
      expect.stringMatching(
        /^geocoding serves requests again; requests that waited for it \(up to \d+ s\) go on$/,
      ),
    ]);
    expect(client.metrics().fatal).toBe(0);
  });

  it("fails a request the service alone answers 503 while it serves others: that row's own", async () => {
    const { client } = await setup(
      (seen, res) => {
        if (`${seen.url}${seen.body}`.includes('poison'))
          json(res, 503, { errCode: 'E', publicReport: 'no' }, { 'retry-after': '0.2' });
        else json(res, 200, GEOCODE_OK);
      },
      { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, outageMs: 300 } },
    );
    const poisoned = client.geocode({ city: 'poison' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await client.geocode({ city: 'Karlsruhe' });
    await expect(poisoned).rejects.toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      context: { status: 503, attempts: 2 },
    });
    expect(client.metrics().fatal).toBe(0);
  });

  it('stops a run that meets only 500s after retry.outageMs, failing its requests till then', async () => {
    const { server, client } = await setup(
      (_, res) => json(res, 500, { errCode: 'E', publicReport: 'boom' }, { 'retry-after': '0' }),
      { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2, outageMs: 300 } },
    );
    const codes: string[] = [];
    const started = Date.now();
    let stop: ServiceError | undefined;
    // Rows of their own: one request asked again and again is one (poison) row, no storm.
    for (let row = 0; stop === undefined && Date.now() - started < 5000; row++) {
      const error = (await client.geocode({ city: `x${row}` }).catch((e: unknown) => e)) as ServiceError;
      if (error.code === 'SERVICE_UNREACHABLE') stop = error;
      else codes.push(error.code);
    }
    // Its own bug, as far as one 500 tells: the first fail as today.
    expect(codes[0]).toBe('RETRIES_EXHAUSTED');
    expect(stop).toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      fatal: true,
      context: { service: 'geocoding', attempts: 2, detail: { statuses: '500' } },
    });
    expect(stop?.message).toMatch(
      new RegExp(`^geocoding at ${server.url}/geojson answered only 500 for \\d+ s since its first request`),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe('transport: one request at a time, against a service that served and then fails them all', () => {
  it('loses the first request to its error (TIMEOUT), then stops (SERVICE_UNREACHABLE) when hung', async () => {
    const hanging = { on: false };
    const { client } = await setup((_, res) => (hanging.on ? undefined : json(res, 200, GEOCODE_OK)), {
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, outageMs: 300 },
      timeoutMs: 50,
    });
    await client.geocode({ city: 'Karlsruhe' });
    hanging.on = true;
    // Alone unanswered: as far as it tells, a poison row (_distinct.ts).
    await expect(client.geocode({ city: 'a' })).rejects.toMatchObject({ code: 'TIMEOUT' });
    // A second, distinct one: the service is gone.
    await expect(client.geocode({ city: 'b' })).rejects.toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      context: { detail: { timedOut: 1 } },
    });
  });

  it('loses the first request to its error (RETRIES_EXHAUSTED), then stops after a 503 storm', async () => {
    const down = { on: false };
    const { client } = await setup(
      (_, res) =>
        down.on
          ? json(res, 503, { errCode: 'E', publicReport: 'down' }, { 'retry-after': '0' })
          : json(res, 200, GEOCODE_OK),
      { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, outageMs: 300 } },
    );
    await client.geocode({ city: 'Karlsruhe' });
    down.on = true;
    await expect(client.geocode({ city: 'a' })).rejects.toMatchObject({
      code: 'RETRIES_EXHAUSTED',
      context: { status: 503 },
    });
    await expect(client.geocode({ city: 'b' })).rejects.toMatchObject({
      code: 'SERVICE_UNREACHABLE',
      context: { detail: { statuses: '503' } },
    });
  });

  it('warns once that it answers only 500 before a 500 storm stops the run, as a 503 storm does', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const down = { on: false };
    const { client } = await setup(
      (_, res) =>
        down.on
          ? json(res, 500, { errCode: 'E', publicReport: 'boom' }, { 'retry-after': '0' })
          : json(res, 200, GEOCODE_OK),
      { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5, outageMs: 300 }, logger },
    );
    await client.geocode({ city: 'Karlsruhe' });
    down.on = true;
    let stop: ServiceError | undefined;
    const started = Date.now();
    for (let i = 0; stop === undefined && Date.now() - started < 5000; i++) {
      const error = (await client.geocode({ city: `c${i}` }).catch((e: unknown) => e)) as ServiceError;
      if (error.code === 'SERVICE_UNREACHABLE') stop = error;
      else expect(error.code).toBe('RETRIES_EXHAUSTED');
    }
    expect(stop).toMatchObject({ code: 'SERVICE_UNREACHABLE', context: { detail: { statuses: '500' } } });
    const logged = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logged.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      "geocoding answers only 500: its requests fail meanwhile (a 500 may be one row's own); the run stops if it serves nothing for 0.3 s (retry.outageMs), to be resumed",
    ]);
  });
});

describe('transport: a service that answers only 429', () => {
  it('warns once after retry.outageMs, then stops (QUOTA_EXCEEDED) after 10 times that, saying how long and at what rate', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const { client } = await setup((_, res) => json(res, 429, {}, { 'retry-after': '0' }), {
      retry: { maxAttempts: 1000, baseDelayMs: 1, maxDelayMs: 2, outageMs: 100 },
      logger,
    });
    const started = Date.now();
    const pending = client.geocode({ city: 'x' });
    await expect(pending).rejects.toMatchObject({
      code: 'QUOTA_EXCEEDED',
      fatal: true,
      context: {
        service: 'geocoding',
        endpoint: '/geojson/geocode',
        status: 429,
        hint: 'run again later with --resume, or with --resume and a lower --rate: the rows already done are kept',
        detail: { sinceMs: expect.any(Number), answers: expect.any(Number) },
      },
    });
    const error = (await pending.catch((e: unknown) => e)) as ServiceError;
    expect(error.context.detail?.sinceMs).toBeGreaterThanOrEqual(1000);
    expect(error.message).toMatch(
      /^geocoding answered only 429 \(too many requests\) for 1 s, \d+ answers at [\d.]+ requests\/s: it lets nothing through: run again later, or with a lower --rate$/,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(warnings.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      expect.stringMatching(
        /^geocoding has answered only 429 \(too many requests\) for 0 s at [\d.]+\/s: nothing gets through; the run stops if it lasts 1 s \(10 x retry\.outageMs\), to be resumed$/,
      ),
    ]);
  });

  it('starts again at any other answer: a limit that lets some through never stops the run', async () => {
    const { client } = await setup(
      (_, res, i) => (i % 3 === 2 ? json(res, 200, GEOCODE_OK) : json(res, 429, {}, { 'retry-after': '0' })),
      { retry: { maxAttempts: 1000, baseDelayMs: 1, maxDelayMs: 2, outageMs: 20 } },
    );
    const started = Date.now();
    while (Date.now() - started < 600) await client.geocode({ city: 'x' });
    expect(client.metrics().fatal).toBe(0);
  });

  it('neither warns nor stops when 6 answers in 10 are 429 and the others served: some get through', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    // Runs of 6 429s in a row, as 60 % random 429s meet at the adaptive rate's floor: with
    // retry.outageMs at 1 s they stopped a run (QUOTA_EXCEEDED, "9 answers ... it lets nothing
    // through") after some 40 warnings "nothing gets through".
    const { client } = await setup(
      (_, res, i) => (i % 10 >= 6 ? json(res, 200, GEOCODE_OK) : json(res, 429, {}, { 'retry-after': '0' })),
      {
        retry: { maxAttempts: 1000, baseDelayMs: 1, maxDelayMs: 2, outageMs: 5 },
        throttle: { global: { rate: 100 }, aimd: { minRate: 100 } },
        logger,
      },
    );
    const started = Date.now();
    while (Date.now() - started < 1500) await client.geocode({ city: 'x' });
    expect(client.metrics().fatal).toBe(0);
    expect(lines).toEqual([]);
  });
});

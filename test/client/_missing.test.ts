/**
 * A 404 that says "this address has no such operation" stops the run (ENDPOINT_NOT_FOUND); one
 * that says "this record is not known" fails its row. Through the real client, against the
 * emulator and against small servers that answer as web servers and services do.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PROBE_SEGMENT } from '../../src/client/_missing.js';
import type { ClientOptions, GeoClient } from '../../src/client/index.js';
import { createClient } from '../../src/client/index.js';
import { emulatorEndpoints } from '../../src/config/load.js';
import type { EmulatorHandle } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { isGeobatchError } from '../../src/errors.js';
import { runJobFile } from '../../src/index.js';
import { createLogger } from '../../src/log.js';
import { clearSecrets } from '../../src/secrets.js';
import type { Handler, Seen, TestServer } from './_server.js';
import { json, startServer } from './_server.js';

const API_KEY = 'missing-test-api-key-0123';
const AREA_OK = { type: 'FeatureCollection', features: [] };
const GEOCODE_OK = {
  type: 'FeatureCollection',
  features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [8.4, 49] }, properties: {} }],
};
/** A library caller's client names the option it gave, and nothing it did not set. */
const WHERE_GEOJSON = 'endpoints.geojson';

let server: TestServer | undefined;
let emulator: EmulatorHandle | undefined;
let client: GeoClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  await emulator?.close();
  client = server = emulator = undefined;
  clearSecrets();
});

function clientFor(endpoints: ClientOptions['endpoints'], extra: Partial<ClientOptions> = {}): GeoClient {
  client = createClient({
    endpoints,
    credentials: { apiKey: API_KEY },
    retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
  return client;
}

/** Settles every promise; returns the codes they rejected with ('ok' for a fulfilled one). */
async function codes(calls: Promise<unknown>[]): Promise<string[]> {
  const settled = await Promise.allSettled(calls);
  return settled.map((s) =>
    s.status === 'fulfilled' ? 'ok' : isGeobatchError(s.reason) ? s.reason.code : String(s.reason),
  );
}

const path = (seen: Seen) => seen.url.split('?')[0] ?? '';

describe('a wrong path in the address, against the emulator', () => {
  it('stops geocoding with ENDPOINT_NOT_FOUND naming the address as configured, after one probe', async () => {
    emulator = await startEmulator();
    const geocoding = clientFor(emulatorEndpoints(`${emulator.urls.origin}/wrong`));
    const base = `${emulator.urls.origin}/wrong/api_rst/v2/geojson`;
    const first = geocoding.geocode({ city: 'Karlsruhe' });
    await expect(first).rejects.toMatchObject({
      code: 'ENDPOINT_NOT_FOUND',
      fatal: true,
      context: {
        service: 'geocoding',
        endpoint: '/wrong/api_rst/v2/geojson/geocode',
        status: 404,
        attempts: 1,
        detail: { errCode: 'NOT_FOUND', publicReport: 'Unbekannter Pfad /wrong/api_rst/v2/geojson/geocode' },
        hint: `check the path of the address set for geocoding (${WHERE_GEOJSON}), then run again with --resume`,
      },
    });
    await expect(first).rejects.toThrow(
      `geocoding at ${base} has no such operation: POST ${base}/geocode answered 404 the way the server answers any path it does not have: check the path of the address set for geocoding (${WHERE_GEOJSON})`,
    );
    // The request and the probe; a later call is not sent at all.
    expect(geocoding.metrics().requests.total).toBe(2);
    await expect(geocoding.geocode({ city: 'Berlin' })).rejects.toMatchObject({ code: 'ENDPOINT_NOT_FOUND' });
    expect(geocoding.metrics().requests.total).toBe(2);
  });

  it('stops an area lookup the same way, whatever the ids', async () => {
    emulator = await startEmulator();
    const area = clientFor(emulatorEndpoints(`${emulator.urls.origin}/areas`));
    await expect(area.area.osmids({ osmids: [62611] })).rejects.toMatchObject({
      code: 'ENDPOINT_NOT_FOUND',
      context: { service: 'area', endpoint: '/areas/api/v2/Boundaries/osmid', status: 404 },
    });
  });
});

/** The operation answers its own 404 for unknown ids; any other path, as `unknownPath` does. */
function service(unknownPath: (seen: Seen, res: ServerResponse) => void, known = new Set<number>()): Handler {
  return (seen, res) => {
    if (path(seen) !== '/api/v2/Boundaries/osmid') return unknownPath(seen, res);
    const [id] = (JSON.parse(seen.body) as { osmids: number[] }).osmids;
    if (known.has(id as number)) return json(res, 200, AREA_OK);
    json(res, 404, { errCode: 'NOT_FOUND', publicReport: `Keine Grenze zur osmid ${id}` });
  };
}

const emulatorLike = (seen: Seen, res: ServerResponse) =>
  json(res, 404, { errCode: 'NOT_FOUND', publicReport: `Unbekannter Pfad ${path(seen)}` });

describe('a run against a wrong path', () => {
  it('stops after the requests in flight, keeping the checkpoint of the rows it committed', async () => {
    emulator = await startEmulator();
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-missing-'));
    try {
      // 300 rows that fail before any request (committed), then 2,000 addresses.
      const lines = ['id,zip,city', ...Array.from({ length: 300 }, (_, i) => `${i},,`)];
      for (let i = 0; i < 2000; i++) lines.push(`${1000 + i},76131,Karlsruhe`);
      writeFileSync(join(dir, 'in.csv'), `${lines.join('\n')}\n`);
      writeFileSync(
        join(dir, 'job.yaml'),
        'job: geocode\ninput: in.csv\noutput: out.csv\nmapping: { zip: zip, city: city }\n',
      );
      const summary = await runJobFile(join(dir, 'job.yaml'), {
        env: { GEOBATCH_EMULATOR_URL: `${emulator.urls.origin}/wrong`, GEOBATCH_API_KEY: API_KEY },
      });
      expect(summary).toMatchObject({ ended: 'stopped', exitCode: 1, error: { code: 'ENDPOINT_NOT_FOUND' } });
      expect(summary.error?.message).toContain(
        `geocoding at ${emulator.urls.origin}/wrong/api_rst/v2/geojson has no such operation`,
      );
      // Not a row failed for it: the 300 are the rows without an address.
      expect(summary.rows).toMatchObject({ failed: 300, failedByCode: { FIELD_MISSING: 300 } });
      // The 16 in flight and the probe, of 2,000.
      expect(summary.requests.http).toBeLessThanOrEqual(17);
      expect(existsSync(join(dir, 'out.csv.checkpoint.json'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the message names the one place that set the address', () => {
  /** A run of one address against a server without the operation; the stop's message. */
  async function stopMessage(env: Record<string, string>, service = ''): Promise<string> {
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-missing-'));
    try {
      writeFileSync(join(dir, 'in.csv'), 'id,city\n1,Karlsruhe\n');
      const job = join(dir, 'job.yaml');
      writeFileSync(job, `job: geocode\ninput: in.csv\noutput: out.csv\nmapping: { city: city }\n${service}`);
      const summary = await runJobFile(job, { env: { GEOBATCH_API_KEY: API_KEY, ...env } });
      expect(summary.error).toMatchObject({ code: 'ENDPOINT_NOT_FOUND' });
      expect(summary.error?.message).not.toContain(API_KEY);
      return summary.error?.message ?? '';
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('GEOBATCH_EMULATOR_URL, with what it takes, and no other place', async () => {
    server = await startServer(emulatorLike);
    const message = await stopMessage({ GEOBATCH_EMULATOR_URL: `${server.url}/wrong` });
    expect(message).toMatch(
      /\(GEOBATCH_EMULATOR_URL, which takes the emulator's origin alone, http:\/\/host:port\)$/,
    );
    expect(message).not.toMatch(/GEOBATCH_GEOJSON_URL|service\.endpoints|job file|whichever/);
  });

  it("the interface's variable, which wins over the job file and the emulator's", async () => {
    server = await startServer(emulatorLike);
    const message = await stopMessage(
      { GEOBATCH_GEOJSON_URL: `${server.url}/gj`, GEOBATCH_EMULATOR_URL: server.url },
      `service: { endpoints: { geojson: "${server.url}/file" } }\n`,
    );
    expect(message).toContain(`POST ${server.url}/gj/geocode answered 404`);
    expect(message).toMatch(/\(GEOBATCH_GEOJSON_URL\)$/);
    expect(message).not.toMatch(/GEOBATCH_EMULATOR_URL|service\.endpoints|origin alone/);
  });

  it("the job file's key, naming the file", async () => {
    server = await startServer(emulatorLike);
    const message = await stopMessage({}, `service: { endpoints: { geojson: "${server.url}/file" } }\n`);
    expect(message).toMatch(/\(service\.endpoints\.geojson in \S*job\.yaml\)$/);
    expect(message).not.toMatch(/GEOBATCH_|origin alone/);
  });

  it("a library caller's own words for it, in the message and the hint", async () => {
    server = await startServer(emulatorLike);
    const geocoding = clientFor(
      { geojson: `${server.url}/gj` },
      { endpointSources: { geojson: 'GEOCODER_BASE in deploy.env' } },
    );
    await expect(geocoding.geocode({ city: 'x' })).rejects.toMatchObject({
      code: 'ENDPOINT_NOT_FOUND',
      context: {
        hint: 'check the path of the address set for geocoding (GEOCODER_BASE in deploy.env), then run again with --resume',
      },
    });
  });

  it('refuses a source that is no text, naming the option', () => {
    expect(() => clientFor({ geojson: 'http://127.0.0.1:1' }, { endpointSources: { geojson: '' } })).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        context: expect.objectContaining({ path: 'endpointSources.geojson' }),
      }),
    );
  });
});

describe("the service's own 404 for a record it does not know", () => {
  it('fails only its row, also when the first 1,000 ids are all unknown', async () => {
    server = await startServer(service(emulatorLike, new Set([7])));
    const area = clientFor({ area: server.url });
    const unknown = Array.from({ length: 1000 }, (_, i) => area.area.osmids({ osmids: [1000 + i] }));
    const got = await codes(unknown);
    expect(got.filter((code) => code !== 'HTTP_STATUS')).toEqual([]);
    await expect(area.area.osmids({ osmids: [1000] })).rejects.toMatchObject({
      code: 'HTTP_STATUS',
      context: { status: 404, detail: { errCode: 'NOT_FOUND', publicReport: 'Keine Grenze zur osmid 1000' } },
    });
    expect(await area.area.osmids({ osmids: [7] })).toEqual({ features: [], bbox: null });
    // One probe for the whole run, none after it told.
    expect(server.seen.filter((seen) => path(seen).endsWith(`/${PROBE_SEGMENT}`))).toHaveLength(1);
    expect(server.seen).toHaveLength(1000 + 1 + 1 + 1);
  });

  it('fails only its row once the operation has answered, even when it reads as an unknown path', async () => {
    // An empty 404 for an unknown record and for an unknown path alike: after a 200 the path is known.
    server = await startServer((seen, res) => {
      if (path(seen) === '/api/v2/Boundaries/osmid' && seen.body.includes('[7]'))
        return json(res, 200, AREA_OK);
      res.writeHead(404).end();
    });
    const area = clientFor({ area: server.url });
    await area.area.osmids({ osmids: [7] });
    await expect(area.area.osmids({ osmids: [8] })).rejects.toMatchObject({ code: 'HTTP_STATUS' });
    expect(server.seen.map(path)).toEqual(['/api/v2/Boundaries/osmid', '/api/v2/Boundaries/osmid']);
  });
});

describe("a web server's or load balancer's 404 for a path it does not have", () => {
  const answers: [string, (seen: Seen, res: ServerResponse) => void][] = [
    [
      'an HTML page',
      (_, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end(
          '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body>\r\n</html>\r\n',
        );
      },
    ],
    ['an empty body', (_, res) => void res.writeHead(404).end()],
    [
      'JSON of another shape, with the path, a time and a trace id',
      (seen, res) =>
        json(res, 404, {
          timestamp: new Date(Date.now() + Math.floor(Math.random() * 1e6)).toISOString(),
          status: 404,
          error: 'Not Found',
          path: path(seen),
          traceId: `00-${Math.random().toString(16).slice(2).padEnd(16, 'a')}-01`,
        }),
    ],
    ["the emulator's: the service's own error shape", emulatorLike],
  ];

  it.each(answers)(
    '%s stops the run (ENDPOINT_NOT_FOUND), before most requests are sent',
    async (_, answer) => {
      server = await startServer((seen, res) => answer(seen, res));
      const area = clientFor({ area: `${server.url}/v2` });
      // The requests sent when the first call stops: where a run stops.
      let sentAtStop: number | undefined;
      const calls = Array.from({ length: 200 }, (_, i) =>
        area.area.osmids({ osmids: [i + 1] }).catch((error: unknown) => {
          sentAtStop ??= server?.seen.length;
          throw error;
        }),
      );
      const got = await codes(calls);
      expect(new Set(got)).toEqual(new Set(['ENDPOINT_NOT_FOUND']));
      // At most a concurrency's worth (16) in flight when the first 404 came, and the probe.
      expect(sentAtStop).toBeLessThanOrEqual(17);
      expect(server.seen.filter((seen) => path(seen).endsWith(`/${PROBE_SEGMENT}`))).toHaveLength(1);
    },
  );

  it('fails only its rows where the server routes by prefix, answering an extra segment as the operation', async () => {
    // ASP.NET's `ByIdentifier/{id?}`, nginx's `location .../osmid`: a path under the operation's
    // reaches the operation, whose unknown records read alike; a sibling of it reaches nothing.
    server = await startServer((seen, res) =>
      path(seen).startsWith('/v2/api/v2/Boundaries/osmid')
        ? json(res, 404, { Message: 'Zu dieser OSM-ID gibt es keinen Eintrag.' })
        : json(res, 404, {
            Message: `No HTTP resource was found that matches the request URI '${seen.url}'.`,
          }),
    );
    const area = clientFor({ area: `${server.url}/v2` });
    const got = await codes(Array.from({ length: 20 }, (_, i) => area.area.osmids({ osmids: [i + 1] })));
    expect(new Set(got)).toEqual(new Set(['HTTP_STATUS']));
    expect(
      server.seen.filter((seen) => path(seen) === `/v2/api/v2/Boundaries/${PROBE_SEGMENT}`),
    ).toHaveLength(1);
  });

  it('stops where an unknown path answers with a request id in UUID form', async () => {
    server = await startServer((_, res) =>
      json(res, 404, { status: 404, error: 'Not Found', requestId: randomUUID() }),
    );
    const geocoding = clientFor({ geojson: `${server.url}/wrong` });
    await expect(geocoding.geocode({ city: 'x' })).rejects.toMatchObject({ code: 'ENDPOINT_NOT_FOUND' });
  });

  it('keeps the key out of the message and context, though the page echoes the URL with its query', async () => {
    server = await startServer((seen, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end(`No route for ${seen.method} ${seen.url}`);
    });
    const geocoding = clientFor({ geojson: `${server.url}/geojsn` });
    const error = await geocoding.geocode({ city: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'ENDPOINT_NOT_FOUND', context: { endpoint: '/geojsn/geocode' } });
    expect(server.seen[0]?.url).toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('asks again after a probe that got no answer: the row fails meanwhile, the next 404 stops', async () => {
    let probes = 0;
    server = await startServer((seen, res) => {
      if (path(seen).endsWith(`/${PROBE_SEGMENT}`) && ++probes === 1) res.socket?.destroy();
      else res.writeHead(404).end();
    });
    const geocoding = clientFor({ geojson: `${server.url}/gj` });
    await expect(geocoding.geocode({ city: 'a' })).rejects.toMatchObject({ code: 'HTTP_STATUS' });
    await expect(geocoding.geocode({ city: 'b' })).rejects.toMatchObject({ code: 'ENDPOINT_NOT_FOUND' });
    expect(probes).toBe(2);
  });
});

describe('the probe is a request like any other', () => {
  it('is logged at debug with its method, its URL without the key and its status', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _, done) {
        lines.push(String(chunk));
        done();
      },
    });
    server = await startServer(emulatorLike);
    const geocoding = clientFor(
      { geojson: `${server.url}/gj` },
      { logger: createLogger({ level: 'debug', destination }) },
    );
    await expect(geocoding.geocode({ city: 'x' })).rejects.toMatchObject({ code: 'ENDPOINT_NOT_FOUND' });
    const probe = server.seen.find((seen) => path(seen) === `/gj/${PROBE_SEGMENT}`);
    expect(probe?.url).toContain(API_KEY);
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((record) => record.action === 'probe')).toEqual([
      expect.objectContaining({
        level: 'debug',
        method: 'POST',
        url: `${server.url}/gj/${PROBE_SEGMENT}?apiKey=%5Bredacted%5D`,
        outcome: 404,
        requestId: probe?.headers['x-request-id'],
      }),
    ]);
    expect(lines.join('')).not.toContain(API_KEY);
  });

  it('takes a slot of the rate: at rate 1 no two requests start within a second', async () => {
    server = await startServer(emulatorLike);
    const geocoding = clientFor({ geojson: `${server.url}/gj` }, { throttle: { global: { rate: 1 } } });
    const got = await codes([geocoding.geocode({ city: 'a' }), geocoding.geocode({ city: 'b' })]);
    expect(got).toEqual(['ENDPOINT_NOT_FOUND', 'ENDPOINT_NOT_FOUND']);
    const paths = server.seen.map(path);
    // The probe goes before the request queued behind the first, which then goes as the rate allows.
    expect(paths.slice(0, 2)).toEqual(['/gj/geocode', `/gj/${PROBE_SEGMENT}`]);
    const at = server.seen.map((seen) => seen.at);
    for (let i = 1; i < at.length; i++)
      expect((at[i] as number) - (at[i - 1] as number)).toBeGreaterThanOrEqual(990);
  });

  it("takes a slot of its interface's rate, and is counted by the shared rate", async () => {
    server = await startServer(emulatorLike);
    const taken: number[] = [];
    const sharedGate = {
      take: async () => void taken.push(Date.now()),
      throttled: () => undefined,
    };
    const geocoding = clientFor(
      { geojson: `${server.url}/gj` },
      { throttle: { interfaces: { geocoding: { rate: 2 } } }, sharedGate },
    );
    await expect(geocoding.geocode({ city: 'a' })).rejects.toMatchObject({ code: 'ENDPOINT_NOT_FOUND' });
    expect(server.seen.map(path)).toEqual(['/gj/geocode', `/gj/${PROBE_SEGMENT}`]);
    expect(taken).toHaveLength(2);
    const [first, probe] = server.seen.map((seen) => seen.at) as [number, number];
    expect(probe - first).toBeGreaterThanOrEqual(490);
  });
});

describe('a 405 or 501: the address does not take the method', () => {
  it('stops the run at once, naming the methods it takes', async () => {
    server = await startServer((_, res) => json(res, 405, { error: 'Method Not Allowed' }, { allow: 'GET' }));
    const geocoding = clientFor({ geojson: `${server.url}/gj` });
    const failed = geocoding.geocode({ city: 'x' });
    await expect(failed).rejects.toMatchObject({
      code: 'ENDPOINT_NOT_FOUND',
      context: { status: 405, endpoint: '/gj/geocode', attempts: 1 },
    });
    await expect(failed).rejects.toThrow(
      `POST ${server.url}/gj/geocode answered 405: it does not take POST (it takes GET)`,
    );
    expect(server.seen).toHaveLength(1);
  });

  it('stops the run at once on a 501 too: a server of another kind, which implements no POST', async () => {
    // Python's http.server, which a mistyped port may reach, answers every POST so.
    server = await startServer((_, res) => json(res, 501, { error: 'Unsupported method (POST)' }));
    const geocoding = clientFor({ geojson: `${server.url}/gj` });
    const failed = geocoding.geocode({ city: 'x' });
    await expect(failed).rejects.toMatchObject({
      code: 'ENDPOINT_NOT_FOUND',
      context: { status: 501, endpoint: '/gj/geocode', attempts: 1 },
    });
    await expect(failed).rejects.toThrow(
      `POST ${server.url}/gj/geocode answered 501: the server there implements no POST request`,
    );
    expect(server.seen).toHaveLength(1);
  });

  it('fails only its row from an operation that has answered', async () => {
    server = await startServer((seen, res) =>
      seen.body.includes('"ok"') ? json(res, 200, GEOCODE_OK) : json(res, 405, {}, { allow: 'GET' }),
    );
    const geocoding = clientFor({ geojson: server.url });
    await geocoding.geocode({ city: 'ok' });
    await expect(geocoding.geocode({ city: 'x' })).rejects.toMatchObject({ code: 'HTTP_STATUS' });
  });
});

import { describe, expect, it } from 'vitest';
import { isLoopback } from '../../src/emulator/control.js';
import type { EmulatorStats, FaultConfig, RequestInfo, RequestLogEntry } from '../../src/emulator/index.js';
import type { Json } from './_helpers.js';
import { getJson, useEmulator } from './_helpers.js';

const seen: RequestInfo[] = [];
const emulator = useEmulator({ onRequest: (info) => seen.push(info) });

const control = (path: string, init?: RequestInit) => fetch(`${emulator().urls.control}${path}`, init);
const put = (faults: unknown) =>
  control('/faults', {
    method: 'PUT',
    body: JSON.stringify(faults),
    headers: { 'content-type': 'application/json' },
  });

async function elevation(requestId?: string) {
  const e = emulator();
  const headers: Record<string, string> = requestId ? { 'x-request-id': requestId } : {};
  const res = await fetch(
    `${e.urls.elevation}/api/v2/Elevation/point?apiKey=${e.credentials.apiKey}&latitude=50&longitude=10`,
    {
      headers,
    },
  );
  await res.text();
  return res.status;
}

describe('control endpoints', () => {
  it('replaces the fault config through PUT /faults and shows it through GET /faults', async () => {
    const faults: FaultConfig = { error503: 1, interfaces: ['elevation'], seed: 3 };
    expect((await put(faults)).status).toBe(200);
    expect(await (await control('/faults')).json()).toEqual(faults);
    expect(emulator().faults()).toEqual(faults);
    expect(await elevation()).toBe(503);
    expect((await put({})).status).toBe(200);
    expect(await elevation()).toBe(200);
  });

  it('rejects an invalid fault config with 400 naming the setting, keeping the old one', async () => {
    await put({ latency: { fixedMs: 1 } });
    const res = await put({ error500: 2 });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).publicReport).toMatch(/faults\.error500/);
    expect((await put('not json{')).status).toBe(400);
    expect(emulator().faults()).toEqual({ latency: { fixedMs: 1 } });
    await put({});
  });

  it('never faults or counts control requests', async () => {
    await put({ error500: 1 });
    emulator().resetStats();
    expect((await control('/stats')).status).toBe(200);
    expect((await control('/log')).status).toBe(200);
    expect(emulator().stats().total).toBe(0);
    await put({});
  });

  it('counts service requests per endpoint, interface and outcome, and resets them', async () => {
    emulator().resetStats();
    await elevation();
    await elevation();
    await getJson(`${emulator().urls.elevation}/api/v2/Elevation/point?latitude=50&longitude=10`);
    const stats = (await (await control('/stats')).json()) as EmulatorStats;
    expect(stats.total).toBe(3);
    expect(stats.byEndpoint['GET /api/v2/Elevation/point']).toEqual({
      total: 3,
      byOutcome: { '200': 2, '401': 1 },
    });
    expect(stats.byInterface.elevation).toEqual({ total: 3, byOutcome: { '200': 2, '401': 1 } });
    expect((await control('/stats/reset', { method: 'POST' })).status).toBe(200);
    expect(emulator().stats()).toMatchObject({ total: 0, byEndpoint: {}, tokensIssued: 0 });
    expect(emulator().requestLog()).toEqual([]);
  });

  it('logs each request with its X-Request-Id, in order, and pages the log', async () => {
    emulator().resetStats();
    await elevation('req-1');
    await elevation('req-2');
    const log = (await (await control('/log')).json()) as RequestLogEntry[];
    expect(log.map((e) => e.requestId)).toEqual(['req-1', 'req-2']);
    expect(log[0]).toMatchObject({
      method: 'GET',
      path: '/api/v2/Elevation/point',
      interface: 'elevation',
      outcome: 200,
    });
    expect((log[1]?.seq ?? 0) > (log[0]?.seq ?? 0)).toBe(true);
    const after = (await (await control(`/log?since=${log[0]?.seq}`)).json()) as RequestLogEntry[];
    expect(after.map((e) => e.requestId)).toEqual(['req-2']);
    expect(
      ((await (await control('/log?limit=1')).json()) as RequestLogEntry[]).map((e) => e.requestId),
    ).toEqual(['req-2']);
  });

  it('calls onRequest with the parsed body and the interface', async () => {
    seen.length = 0;
    const e = emulator();
    await fetch(`${e.urls.geojson}/geocode?apiKey=x`, {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'x-request-id': 'r9' },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      path: '/api_rst/v2/geojson/geocode',
      body: { a: 1 },
      requestId: 'r9',
      interface: 'geocoding',
    });
    expect(seen[0]?.query.get('apiKey')).toBe('x');
  });

  it('answers 404 for unknown paths and 405 for a wrong method without counting them', async () => {
    emulator().resetStats();
    expect((await fetch(`${emulator().urls.origin}/nope`)).status).toBe(404);
    const res = await fetch(`${emulator().urls.addressSearch}/ByIdentifier`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect((await control('/nope')).status).toBe(404);
    expect(emulator().stats().total).toBe(0);
  });

  it('treats only loopback peers as local', () => {
    for (const a of ['127.0.0.1', '127.5.0.1', '::1', '::ffff:127.0.0.1']) expect(isLoopback(a)).toBe(true);
    for (const a of ['10.0.0.1', '192.168.1.2', '::ffff:10.0.0.1', undefined])
      expect(isLoopback(a)).toBe(false);
  });
});

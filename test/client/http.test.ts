import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import type { Http, WireState } from '../../src/client/http.js';
import { createHttp } from '../../src/client/http.js';
import type { Handler, TestServer } from './_server.js';
import { json, startServer } from './_server.js';

let server: TestServer | undefined;
let http: Http | undefined;

afterEach(async () => {
  await http?.close();
  await server?.close();
  http = undefined;
  server = undefined;
});

async function setup(handler: Handler, timeoutMs = 2000) {
  server = await startServer(handler);
  http = createHttp({ connections: 4, timeoutMs });
  const origin = server.url;
  const get = (path = '/x', signal?: AbortSignal) =>
    (http as Http).send({ origin, path, method: 'GET', headers: { 'x-request-id': 'r1' } }, signal);
  return { server, get };
}

describe('http.send', () => {
  it('returns the status, headers and whole body of an answer', async () => {
    const { get } = await setup((_, res) => json(res, 503, { errCode: 'BUSY' }, { 'retry-after': '3' }));
    const result = await get();
    expect(result).toMatchObject({ ok: true, status: 503, text: '{"errCode":"BUSY"}' });
    expect(result.ok && result.headers['retry-after']).toBe('3');
  });

  it('keeps connections alive: ten requests in a row open no more sockets than the pool holds', async () => {
    const { server, get } = await setup((_, res) => json(res, 200, 'ok'));
    for (let i = 0; i < 10; i++) await get();
    expect(server.seen).toHaveLength(10);
    expect(new Set(server.seen.map((s) => s.remotePort)).size).toBeLessThanOrEqual(4);
  });

  it('sends the given headers and body', async () => {
    const { server } = await setup((_, res) => json(res, 200, {}));
    await http?.send({
      origin: server.url,
      path: '/p?a=1',
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'abc' },
      body: '{"q":1}',
    });
    expect(server.seen[0]).toMatchObject({ method: 'POST', url: '/p?a=1', body: '{"q":1}' });
    expect(server.seen[0]?.headers['x-request-id']).toBe('abc');
  });

  it('reports a server that never answers as a timeout', async () => {
    const { get } = await setup(() => {}, 100);
    expect(await get()).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it("ends an attempt at its own deadline when it names one, not at the client's", async () => {
    const { server } = await setup(() => {}, 60_000);
    const request = { origin: server.url, path: '/x', method: 'GET' as const, headers: {} };
    expect(await http?.send(request, undefined, { timeoutMs: 50 })).toMatchObject({
      ok: false,
      kind: 'timeout',
    });
  });

  it('tells a slow attempt it is slow, once, and lets the caller abandon it', async () => {
    const { server } = await setup(() => {});
    const request = { origin: server.url, path: '/x', method: 'GET' as const, headers: {} };
    let calls = 0;
    const result = await http?.send(request, undefined, {
      slowMs: 20,
      onSlow: (abandon) => {
        calls++;
        abandon();
      },
    });
    expect(result).toEqual({ ok: false, kind: 'network', code: 'ABANDONED' });
    expect(calls).toBe(1);
  });

  it('reports a body that stops mid-way as a timeout of the whole exchange', async () => {
    const { get } = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    }, 100);
    expect(await get()).toMatchObject({ ok: false, kind: 'timeout' });
  });

  it('reports a reset connection as a network failure', async () => {
    const { get } = await setup((_, res) => res.socket?.destroy());
    expect(await get()).toMatchObject({ ok: false, kind: 'network' });
  });

  it('reports a refused connection as a network failure', async () => {
    const { server: s } = await setup(() => {});
    const origin = s.url;
    await s.close();
    server = undefined;
    const result = await http?.send({ origin, path: '/', method: 'GET', headers: {} });
    expect(result).toMatchObject({ ok: false, kind: 'network', code: 'ECONNREFUSED' });
  });

  it('adds one listener to a caller signal however many requests it covers', async () => {
    const { get } = await setup((_, res) => json(res, 200, 'ok'));
    const controller = new AbortController();
    for (let i = 0; i < 20; i++) await get('/x', controller.signal);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
  });

  it('throws ABORTED when the caller aborts, and nothing else does', async () => {
    const { get } = await setup(() => {});
    const controller = new AbortController();
    const pending = get('/x', controller.signal);
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('gathers a body sent in pieces, a character split across them, and drops a leading BOM', async () => {
    const bytes = Buffer.from('\u{feff}{"name":"Gießen ∑ 🗺"}', 'utf8');
    const { get } = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Cut inside the multi-byte characters, and give the event loop a turn between pieces.
      const cuts = [2, 14, 20, 26, bytes.length];
      let from = 0;
      const next = () => {
        const to = cuts.shift();
        if (to === undefined) return void res.end();
        res.write(bytes.subarray(from, to));
        from = to;
        setTimeout(next, 5);
      };
      next();
    });
    expect(await get()).toMatchObject({ ok: true, status: 200, text: '{"name":"Gießen ∑ 🗺"}' });
  });

  it('keeps only the final status after an informational 1xx', async () => {
    const { get } = await setup((_, res) => {
      res.writeProcessing();
      json(res, 200, { ok: 1 });
    });
    expect(await get()).toMatchObject({ ok: true, status: 200, text: '{"ok":1}' });
  });

  it('ends an attempt still queued behind a busy pool at once when the caller aborts, and the pool goes on', async () => {
    let release: (() => void) | undefined;
    server = await startServer((_, res, index) => {
      if (index === 0) release = () => json(res, 200, 'first');
      else json(res, 200, 'later');
    });
    http = createHttp({ connections: 1, timeoutMs: 5000 });
    const send = (signal?: AbortSignal, wire?: WireState) =>
      (http as Http).send(
        { origin: (server as TestServer).url, path: '/q', method: 'GET', headers: {} },
        signal,
        { wire },
      );
    const firstWire = { written: false };
    const queuedWire = { written: false };
    const first = send(undefined, firstWire);
    const controller = new AbortController();
    const queued = send(controller.signal, queuedWire);
    const started = Date.now();
    setTimeout(() => controller.abort(), 20);
    await expect(queued).rejects.toMatchObject({ code: 'ABORTED' });
    expect(Date.now() - started).toBeLessThan(1000);
    release?.();
    expect(await first).toMatchObject({ ok: true, text: '"first"' });
    // The cancelled request never reached the server, and the socket serves the next one.
    expect(await send()).toMatchObject({ ok: true, text: '"later"' });
    expect(server.seen).toHaveLength(2);
    // What the request counts go by: only the attempt that reached a socket is one.
    expect([firstWire.written, queuedWire.written]).toEqual([true, false]);
  });
});

/**
 * One service request from arrival to answer: route, read the body, test hook, fault decision,
 * handler, the rest of the latency, Retry-After, write, count. Control requests go to control.ts instead.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Reply, ServiceRequest } from './_http.js';
import { parseBody, readBody, serviceError } from './_http.js';
import type { Route, RouteTable } from './_routes.js';
import type { FaultDecision, Faults } from './faults.js';
import type { Stats } from './stats.js';
import type { EmulatorOptions, Outcome, RequestLogEntry } from './types.js';

export interface DispatchDeps {
  routes: RouteTable;
  faults: Faults;
  stats: Stats;
  onRequest: EmulatorOptions['onRequest'];
  /** Waits that close() must be able to cancel; none at all for `ms` <= 0. */
  sleep(ms: number): Promise<void>;
}

const FAULT_BODIES: Record<402 | 500 | 502 | 503, [string, string]> = {
  402: ['QUOTA_EXCEEDED', 'Das Kontingent dieses Schlüssels ist aufgebraucht.'],
  500: ['INTERNAL', 'Interner Serverfehler.'],
  502: ['BAD_GATEWAY', 'Der vorgelagerte Dienst hat nicht geantwortet.'],
  503: ['SERVICE_UNAVAILABLE', 'Der Dienst ist vorübergehend nicht verfügbar.'],
};

const MALFORMED_BODY = '{"type":"FeatureCollection","features":[{"type":"Feature","geome';

export async function dispatch(deps: DispatchDeps, req: IncomingMessage, res: ServerResponse, url: URL) {
  const method = req.method ?? 'GET';
  const route = deps.routes.find(method, url.pathname);
  if (route === undefined)
    return write(res, serviceError(404, 'NOT_FOUND', `Unbekannter Pfad ${url.pathname}`));
  if (route === 'method') {
    const reply = serviceError(405, 'METHOD_NOT_ALLOWED', `Methode ${method} ist hier nicht erlaubt.`);
    return write(res, { ...reply, headers: { allow: deps.routes.allowed(url.pathname) } });
  }
  const receivedAt = Date.now();
  // The latency counts from here: a service that answers in 20 ms does its work within them.
  const arrived = performance.now();
  const text = await readBody(req);
  const requestId = headerValue(req.headers['x-request-id']);
  const request: ServiceRequest = {
    method,
    path: url.pathname,
    query: url.searchParams,
    rawQuery: url.search.slice(1),
    headers: req.headers,
    body: text === null ? { kind: 'none' } : parseBody(text),
  };
  const body =
    request.body.kind === 'json' ? request.body.value : request.body.kind === 'invalid' ? text : undefined;
  deps.onRequest?.({
    method,
    path: url.pathname,
    query: url.searchParams,
    body,
    requestId,
    interface: route.iface,
  });
  const entry: RequestLogEntry = {
    seq: deps.stats.nextSeq(),
    receivedAt,
    method,
    path: route.path,
    interface: route.iface,
    outcome: 200,
    ...(requestId === undefined ? {} : { requestId }),
  };
  const decision = deps.faults.decide(route.iface);
  if (decision?.kind === 'hang') return deps.stats.record({ ...entry, outcome: 'hang' });
  const reply =
    decision?.kind === 'reset'
      ? undefined
      : text === null
        ? tooLarge()
        : decision
          ? faultReply(decision)
          : run(route, request);
  const delay = deps.faults.latencyMs();
  if (delay > 0) await deps.sleep(arrived + delay - performance.now());
  if (reply === undefined) {
    req.socket.destroy();
    return deps.stats.record({
      ...entry,
      outcome: 'reset',
      answeredAt: Date.now(),
      heldMs: heldSince(arrived),
    });
  }
  const answeredAt = Date.now();
  if (decision?.kind === 'throttle') {
    const retryAfter = deps.faults.retryAfter(decision.retryAfterSeconds, answeredAt);
    reply.headers = { ...reply.headers, 'retry-after': retryAfter.header };
    entry.retryAfterMs = retryAfter.ms;
  }
  write(res, reply);
  deps.stats.record({ ...entry, outcome: reply.status as Outcome, answeredAt, heldMs: heldSince(arrived) });
}

/** Milliseconds since `arrived` (a performance.now()), to the microsecond. */
function heldSince(arrived: number): number {
  return Math.round((performance.now() - arrived) * 1000) / 1000;
}

function run(route: Route, request: ServiceRequest): Reply {
  try {
    return route.handle(request);
  } catch (error) {
    // A handler bug must be visible to whoever runs the emulator, and look like a server error to the client.
    console.error(`emulator: ${route.method} ${route.path} failed:`, error);
    return serviceError(500, 'INTERNAL', 'Interner Fehler des Emulators.');
  }
}

function faultReply(decision: Exclude<FaultDecision, { kind: 'hang' | 'reset' }>): Reply {
  switch (decision.kind) {
    case 'malformed':
      return { status: 200, body: MALFORMED_BODY, contentType: 'application/json; charset=utf-8' };
    case 'throttle':
      return serviceError(429, 'TOO_MANY_REQUESTS', 'Zu viele Anfragen. Bitte später erneut versuchen.');
    case 'status':
      return serviceError(decision.status, ...FAULT_BODIES[decision.status]);
  }
}

function tooLarge(): Reply {
  return serviceError(413, 'PAYLOAD_TOO_LARGE', 'Die Anfrage ist zu groß (höchstens 5 MB).');
}

export function write(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  const body = Buffer.from(reply.body, 'utf8');
  res.writeHead(reply.status, {
    'content-type': reply.contentType ?? 'application/json; charset=utf-8',
    'content-length': body.length,
    ...reply.headers,
  });
  res.end(body);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * /_emulator/...: faults, stats and the request log, for tests and benchmarks in other processes.
 * Loopback peers only, no credentials, never faulted, never counted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isGeobatchError } from '../errors.js';
import { write } from './_dispatch.js';
import { json, readBody, serviceError } from './_http.js';
import { validateFaults } from './_options.js';
import type { EmulatorHandle } from './types.js';

export type ControlTarget = Pick<
  EmulatorHandle,
  'setFaults' | 'faults' | 'stats' | 'resetStats' | 'requestLog'
>;

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

export async function control(target: ControlTarget, req: IncomingMessage, res: ServerResponse, url: URL) {
  if (!isLoopback(req.socket.remoteAddress)) {
    return write(res, serviceError(403, 'FORBIDDEN', 'Control endpoints answer loopback clients only.'));
  }
  const route = `${req.method} ${url.pathname.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /_emulator/faults':
      return write(res, json(200, target.faults()));
    case 'PUT /_emulator/faults':
      return write(res, await putFaults(target, req));
    case 'GET /_emulator/stats':
      return write(res, json(200, target.stats()));
    case 'POST /_emulator/stats/reset':
      target.resetStats();
      return write(res, json(200, target.stats()));
    case 'GET /_emulator/log':
      return write(res, json(200, logPage(target, url.searchParams)));
    default:
      return write(res, serviceError(404, 'NOT_FOUND', `No control endpoint ${route}`));
  }
}

async function putFaults(target: ControlTarget, req: IncomingMessage) {
  const text = await readBody(req, 1024 * 1024);
  try {
    target.setFaults(validateFaults(JSON.parse(text ?? '') as unknown));
    return json(200, target.faults());
  } catch (error) {
    const message = isGeobatchError(error) ? error.message : 'The body is not a JSON fault configuration.';
    return serviceError(400, 'CONFIG_INVALID', message);
  }
}

/** `?since=<seq>` keeps entries after that sequence number; `?limit=<n>` keeps the last n. */
function logPage(target: ControlTarget, query: URLSearchParams) {
  const since = Number(query.get('since') ?? 0) || 0;
  const limit = Number(query.get('limit') ?? 0) || 0;
  const entries = target.requestLog().filter((e) => e.seq > since);
  return limit > 0 ? entries.slice(-limit) : entries;
}

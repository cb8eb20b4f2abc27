/** startEmulator: the HTTP server that stands in for the geo services. */
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { UsageError } from '../errors.js';
import { dispatch, write } from './_dispatch.js';
import { serviceError } from './_http.js';
import { Lateness } from './_lateness.js';
import { EMULATOR_DEFAULTS, resolveOptions, validateFaults } from './_options.js';
import { RouteTable } from './_routes.js';
import { Auth, basicHeader } from './auth.js';
import { control } from './control.js';
import { datasets } from './datasets/index.js';
import { Faults } from './faults.js';
import { allRoutes, preload } from './routes.js';
import { Stats } from './stats.js';
import type {
  EmulatorCredentials,
  EmulatorHandle,
  EmulatorOptions,
  EmulatorUrls,
  FaultConfig,
} from './types.js';

export async function startEmulator(options?: EmulatorOptions): Promise<EmulatorHandle> {
  const opts = resolveOptions(options);
  const data = datasets();
  if (opts.preload) preload(data);
  const stats = new Stats();
  const faults = new Faults(opts.faults);
  const auth = new Auth(opts.credentials, opts.tokenTtlSeconds, () => stats.tokenIssued());
  const routes = new RouteTable(allRoutes({ data, auth }));
  const timers = new Timers();
  const handle = {
    setFaults: (config: FaultConfig) => faults.set(validateFaults(config)),
    faults: () => faults.get(),
    stats: () => stats.snapshot(),
    resetStats: () => stats.reset(),
    requestLog: () => stats.log(),
  };
  const deps = { routes, faults, stats, onRequest: opts.onRequest, sleep: (ms: number) => timers.sleep(ms) };
  const server = createServer(
    {
      keepAliveTimeout: EMULATOR_DEFAULTS.keepAliveTimeoutMs,
      headersTimeout: EMULATOR_DEFAULTS.keepAliveTimeoutMs + 1000,
    },
    (req, res) => {
      const url = new URL(req.url ?? '/', 'http://emulator.invalid');
      const work = url.pathname.startsWith('/_emulator')
        ? control(handle, req, res, url)
        : dispatch(deps, req, res, url);
      work.catch((error: unknown) => {
        console.error('emulator: request failed:', error);
        write(res, serviceError(500, 'INTERNAL', 'Interner Fehler des Emulators.'));
      });
    },
  );
  const port = await listen(server, opts.port, opts.host);
  let closing: Promise<void> | undefined;
  return {
    urls: urlsFor(opts.host, port),
    credentials: withBasicHeader(opts.credentials),
    ...handle,
    close() {
      timers.clear();
      closing ??= closeServer(server);
      return closing;
    },
  };
}

/** Latency waits, cancelled on close so that a closed emulator keeps no timer alive. */
class Timers {
  readonly #pending = new Set<NodeJS.Timeout>();
  readonly #lateness = new Lateness();

  sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    const start = performance.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(timer);
        this.#lateness.fired(ms, performance.now() - start);
        resolve();
      }, this.#lateness.wait(ms));
      this.#pending.add(timer);
    });
  }

  clear(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, port, host)));
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return typeof address === 'object' && address ? address.port : port;
}

/** A port taken or refused, as a GeobatchError that says which and what to do; others as they are. */
function listenError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  const why: Record<string, string> = {
    EADDRINUSE: 'another process listens there',
    EACCES: 'this user may not listen there (ports below 1024 need privileges)',
    EADDRNOTAVAIL: 'no interface of this machine has that address',
  };
  const reason = error.code === undefined ? undefined : why[error.code];
  if (reason === undefined) return error;
  return new UsageError(`The emulator cannot listen on ${host}:${port}: ${reason} (${error.code})`, {
    field: 'port',
    received: String(port),
    hint: 'Choose another port, or 0 for any free one.',
    cause: error,
  });
}

/** Stops accepting and destroys every open socket, idle keep-alive and hanging ones alike. */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

export function urlsFor(host: string, port: number): EmulatorUrls {
  // A wildcard bind is reachable on loopback; print that rather than an address no client can use.
  const local = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const shown = local.includes(':') ? `[${local}]` : local;
  const origin = `http://${shown}:${port}`;
  return {
    origin,
    addressSearch: `${origin}/addresssearch/v2`,
    geojson: `${origin}/api_rst/v2/geojson`,
    autocomplete: `${origin}/api/v5/Autocomplete`,
    token: origin,
    area: origin,
    elevation: origin,
    control: `${origin}/_emulator`,
  };
}

/**
 * The credentials as a client takes them, and the Basic header beside them, not enumerable: the
 * object is handed to createClient as it is (`credentials: emu.credentials`), whose options admit
 * no key they do not know, and a header spelt out would be one more copy of a secret in a log.
 */
function withBasicHeader(credentials: EmulatorCredentials): EmulatorHandle['credentials'] {
  return Object.defineProperty({ ...credentials }, 'basicHeader', {
    value: basicHeader(credentials),
    enumerable: false,
  }) as EmulatorHandle['credentials'];
}

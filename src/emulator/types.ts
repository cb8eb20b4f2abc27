/**
 * The emulator's public contract (EMULATOR-API.md): everything that tests, the demo and the
 * benchmarks code against. Type-only.
 */

import type { InterfaceName } from '../contract/index.js';

export type { InterfaceName } from '../contract/index.js';
export { INTERFACE_NAMES } from '../contract/index.js';

/** What the `onRequest` test hook sees of each service request. */
export interface RequestInfo {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The parsed JSON body; the raw text when it is not JSON; undefined without a body. */
  body: unknown;
  requestId?: string;
  interface: InterfaceName;
}

export interface EmulatorOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Autocomplete token lifetime in seconds. @default 600 */
  tokenTtlSeconds?: number;
  /** @default no faults */
  faults?: FaultConfig;
  /** Override the demo credentials it accepts. */
  credentials?: Partial<EmulatorCredentials>;
  /** Test hook, called once per service request (not control requests) after the body is read. */
  onRequest?: (info: RequestInfo) => void;
  /**
   * Build every data set and index (~1 s) before resolving, instead of each on first use (the first
   * request to an interface then waits for its data). The CLI preloads. @default false
   */
  preload?: boolean;
}

export type RetryAfterForm = 'seconds' | 'http-date' | 'alternate';

export interface FaultConfig {
  /**
   * How long every service answer takes from the request's arrival, the emulator's own work
   * included: fixed + uniform random jitter, in ms (on average: see _lateness.ts).
   */
  latency?: { fixedMs?: number; jitterMs?: number };
  /** Probabilities 0..1 per service request, drawn in this order: reset, hang, 429, 500, 502, 503, malformed. */
  reset?: number;
  hang?: number;
  error429?: number;
  error500?: number;
  error502?: number;
  error503?: number;
  malformed?: number;
  /** Retry-After sent with 429s. @default { seconds: 1, form: 'alternate' } */
  retryAfter?: { seconds?: number; form?: RetryAfterForm };
  /** Server-side limit; excess requests get 429 + Retry-After. `burst` @default rps */
  rateLimit?: { rps: number; burst?: number };
  /** After this many service requests (counted from when this config was set), answer 402. */
  quotaAfter?: number;
  /** Restrict faults (not latency/rateLimit/quotaAfter) to these interfaces. @default all */
  interfaces?: InterfaceName[];
  /** Seed for the fault RNG, for reproducible runs. @default random */
  seed?: number;
}

export interface EmulatorCredentials {
  /** HTTP Basic user for address search. @default 'demo-partner' */
  partner: string;
  /** HTTP Basic password. @default 'demo-partner-key' */
  partnerKey: string;
  /** Routing, geocoding, area, elevation, token. @default 'demo-api-key' */
  apiKey: string;
  /** Legacy pair, accepted wherever apiKey is. @default 'demo-system' */
  systemPartner: string;
  /** @default 'demo-security-id' */
  securityID: string;
}

export interface EmulatorUrls {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** `${origin}/addresssearch/v2` + /ByBranchesAndAddress etc. */
  addressSearch: string;
  /** `${origin}/api_rst/v2/geojson` + /route, /geocode */
  geojson: string;
  /** `${origin}/api/v5/Autocomplete` (the full URL) */
  autocomplete: string;
  /** `${origin}` + /api_rst/api/autocompleteToken, /api_rst/v2/authtoken */
  token: string;
  /** `${origin}` + /api/v2/Boundaries/point|rectangle|osmid */
  area: string;
  /** `${origin}` + /api/v2/Elevation/point */
  elevation: string;
  /** `${origin}/_emulator` + /faults (GET, PUT), /stats (GET), /stats/reset (POST), /log (GET) */
  control: string;
}

export interface OutcomeCounts {
  total: number;
  byOutcome: Record<string, number>;
}

export interface EmulatorStats {
  total: number;
  /** Keyed "METHOD /path" (no query); outcome keys are HTTP status codes as strings, or 'reset' / 'hang'. */
  byEndpoint: Record<string, OutcomeCounts>;
  byInterface: Partial<Record<InterfaceName, OutcomeCounts>>;
  tokensIssued: number;
}

export type Outcome = number | 'reset' | 'hang';

export interface RequestLogEntry {
  seq: number;
  /** ms since epoch when the request arrived */
  receivedAt: number;
  /** ms since epoch when the answer (or reset) was sent; absent for hangs */
  answeredAt?: number;
  /**
   * Arrival to answer (or reset) in ms, to the microsecond; absent for hangs. answeredAt minus
   * receivedAt is whole milliseconds, which a timer's phase biases by up to one.
   */
  heldMs?: number;
  method: string;
  path: string;
  interface: InterfaceName;
  outcome: Outcome;
  /** The client's X-Request-Id header. */
  requestId?: string;
  /** For 429s: the wait the Retry-After header demands, in ms from answeredAt. */
  retryAfterMs?: number;
}

export interface EmulatorHandle {
  urls: EmulatorUrls;
  credentials: EmulatorCredentials & { basicHeader: string };
  /** Replaces the whole fault config (also via PUT /_emulator/faults). */
  setFaults(faults: FaultConfig): void;
  faults(): FaultConfig;
  /** Also GET /_emulator/stats. */
  stats(): EmulatorStats;
  /** Also POST /_emulator/stats/reset (clears the log too). */
  resetStats(): void;
  /** Bounded ring (last 100,000 entries); also GET /_emulator/log. */
  requestLog(): readonly RequestLogEntry[];
  /** Closes the server and destroys open sockets (hanging ones too). */
  close(): Promise<void>;
}

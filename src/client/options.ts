/**
 * The client's options: the one commented defaults object and the validation that runs once, in
 * `createClient`. Everything downstream trusts a `ResolvedOptions`.
 */
import type { Logger } from 'pino';
import { INTERFACE_NAMES, type InterfaceName } from '../contract/index.js';
import { bool, fail, keysOf, nonNegative, onlyKnown, positive, positiveInt, url } from './_checks.js';
import type { SharedGate } from './_gate.js';

export type { InterfaceName } from '../contract/index.js';
export { INTERFACE_NAMES } from '../contract/index.js';

/** A concurrency and rate limit, for one interface or for all requests together. */
export interface Limit {
  /** Requests in flight at once. @default 16 (global), unlimited (per interface) */
  concurrency?: number;
  /** Requests started per second; `null` or absent = unlimited. @default null */
  rate?: number | null;
  /**
   * Requests that may start at once after an idle spell. Kept below the service's own burst, so
   * that a client set to the service's rate never drains the service's reserve.
   * @default max(1, rate / 10) (a tenth of a second's worth)
   */
  burst?: number;
}

export interface ClientOptions {
  /** Base addresses; see service-notes.md. Address search and elevation have no public default. */
  endpoints?: {
    /** @default none: must be configured per integration */
    addressSearch?: string;
    /** Routing and geocoding. @default 'https://www.yellowmap.de/api_rst/v2/geojson' */
    geojson?: string;
    /** The full URL. @default 'https://autocomplete.smartmaps.cloud/api/v5/Autocomplete' */
    autocomplete?: string;
    /** @default 'https://www.yellowmap.de' */
    token?: string;
    /** @default 'https://area.smartmaps.cloud' */
    area?: string;
    /** @default none: must be configured */
    elevation?: string;
  };
  credentials?: {
    apiKey?: string;
    /** The legacy pair, used when no apiKey is given. */
    systemPartner?: string;
    securityID?: string;
    /** HTTP Basic user and password of address search. */
    partner?: string;
    partnerKey?: string;
  };
  /** Logging label, sent as `Channel` / `channel` / `authentication.channel`. @default none */
  channel?: string;
  /**
   * The longest one attempt may take, headers and body together: the ceiling of the adaptive
   * deadline, and every attempt's deadline when that is off. @default 30000
   */
  timeoutMs?: number;
  /**
   * Deadlines and hedges that follow the latency observed per operation (interface, method and
   * path), so that a hung request costs milliseconds to seconds rather than `timeoutMs`.
   */
  adaptiveTimeout?: {
    /**
     * An attempt's deadline is 4 x the slowest of its operation's last 128 answers, at least
     * `minMs` and at most `timeoutMs`; `timeoutMs` until 20 answers were seen, and for the rest
     * of a request once one of its attempts timed out. false: always `timeoutMs`. @default true
     */
    enabled?: boolean;
    /** The shortest adaptive deadline, ms. @default 5000 */
    minMs?: number;
    /**
     * Send a second, identical attempt when the first has had no answer after 2 x its
     * operation's p95 latency (at least 50 ms, at most half the deadline); the first answer wins
     * and the other attempt is dropped. At most 5% of requests are hedged. @default true
     */
    hedge?: boolean;
  };
  retry?: {
    /** Attempts per request, the first included. @default 6 */
    maxAttempts?: number;
    /** Backoff cap of the first retry; doubles per retry (full jitter). @default 250 */
    baseDelayMs?: number;
    /** Backoff cap. @default 30000 */
    maxDelayMs?: number;
    /** Longest Retry-After honoured; longer demands are clamped to it. @default 120000 */
    maxRetryAfterMs?: number;
    /**
     * A Retry-After at least this long stops the run (QUOTA_EXCEEDED, with the time to resume):
     * a service asking for an hour is not served by retries every two minutes. `0` stops at any
     * Retry-After; `null` at none (each is waited, up to `maxRetryAfterMs`, like a rate limit's).
     * @default 600000
     */
    stopOnRetryAfterMs?: number | null;
    /**
     * How long an interface that answered earlier in the run may answer nothing (refused, timed
     * out or dropped connections) before the run stops (SERVICE_UNREACHABLE) with its
     * checkpoint. Until then a request out of retries in that silence waits for the service,
     * an attempt a second, rather than failing its rows. @default 30000
     */
    outageMs?: number;
  };
  throttle?: {
    /** Shared by every request. @default { concurrency: 16, rate: null } */
    global?: Limit;
    /** Per interface; a request takes a slot in its interface and in the global limit. @default {} */
    interfaces?: Partial<Record<InterfaceName, Limit>>;
    /** How an interface's rate reacts to 429s. */
    aimd?: {
      /** Factor applied to the rate on a 429; 1 never cuts. @default 0.5 */
      decrease?: number;
      /**
       * Requests/s added back per second after a cut, up to the configured rate.
       * @default 5% of the rate before the last cut (a cut heals in ~10 s at any scale)
       */
      increasePerSecond?: number;
      /** The rate never drops below this. @default 0.5 */
      minRate?: number;
      /**
       * Share of recent answers that may be 429s (or carry a Retry-After) without slowing the
       * interface down: below it, a 429 is sporadic and only its own request waits its
       * Retry-After; above it, the interface has hit a limit, its rate is cut and every request
       * waits. 0 takes every 429 as a limit. @default 0.05
       */
      tolerance?: number;
    };
    /** Hold every request of an interface while a Retry-After it received runs. @default true */
    pauseOnRetryAfter?: boolean;
  };
  /** Lifetime of an autocomplete token (the endpoint does not say). @default 600 */
  tokenTtlSeconds?: number;
  /** Refresh a token this long before it expires. @default min(30, tokenTtlSeconds / 4) */
  tokenRefreshSkewSeconds?: number;
  /** @default a silent logger */
  logger?: Logger;
  /**
   * A rate shared with other processes (a distributed run's workers, see src/queue/rate.ts):
   * every attempt, hedges included, takes a slot from it after its local slots, and sustained 429s
   * are told to it. Programmatic only, never from a job file. @default none (this process alone)
   */
  sharedGate?: SharedGate;
  /**
   * Where each endpoint's address was set, in the words the user set it with (`GEOBATCH_EMULATOR_URL`,
   * `service.endpoints.geojson in job.yaml`): a wrong address's message (ENDPOINT_NOT_FOUND,
   * SERVICE_UNREACHABLE) names that one place, not every place an address may come from. Never
   * the address itself. Programmatic only (the CLI fills it in).
   * @default `endpoints.<name>` for an address given, its default's name for one not given
   */
  endpointSources?: Partial<Record<keyof NonNullable<ClientOptions['endpoints']>, string>>;
  /**
   * Where each credential was set, as the user set it (`${MY_KEY}`, `GEOBATCH_API_KEY`): a
   * rejected key's message (AUTH_REJECTED) names that variable, not the standard one the user may
   * never have set. Never the value. Programmatic only (the CLI fills it in).
   * @default the standard variables, CREDENTIAL_ENV
   */
  credentialSources?: Partial<Record<keyof NonNullable<ClientOptions['credentials']>, string>>;
}

/**
 * The environment variables the CLI reads endpoints from, after the job file, and the one that
 * points them all at an emulator; named in messages about an address that does not answer.
 */
export const ENDPOINT_ENV = {
  addressSearch: 'GEOBATCH_ADDRESS_SEARCH_URL',
  geojson: 'GEOBATCH_GEOJSON_URL',
  autocomplete: 'GEOBATCH_AUTOCOMPLETE_URL',
  token: 'GEOBATCH_TOKEN_URL',
  area: 'GEOBATCH_AREA_URL',
  elevation: 'GEOBATCH_ELEVATION_URL',
} as const;
export const EMULATOR_URL_ENV = 'GEOBATCH_EMULATOR_URL';

/** Frozen to the leaves: a caller writing to it would change every client made after. */
export const DEFAULTS = deepFrozen({
  endpoints: {
    // service-notes.md, "Base addresses": the publicly documented values.
    geojson: 'https://www.yellowmap.de/api_rst/v2/geojson',
    autocomplete: 'https://autocomplete.smartmaps.cloud/api/v5/Autocomplete',
    token: 'https://www.yellowmap.de',
    area: 'https://area.smartmaps.cloud',
  },
  timeoutMs: 30_000,
  adaptiveTimeout: {
    enabled: true,
    // Several seconds: a deadline must never cut a legitimately slow answer (a 500-point
    // elevation batch, a long route) on the strength of a few fast ones.
    minMs: 5_000,
    hedge: true,
  },
  retry: {
    // 5 retries ride out a ~1 minute outage with the backoff below; more only delays the report.
    maxAttempts: 6,
    baseDelayMs: 250,
    maxDelayMs: 30_000,
    maxRetryAfterMs: 120_000,
    // Ten minutes: a rate limit's window is seconds to a minute; a longer wait is a quota's.
    stopOnRetryAfterMs: 600_000,
    // A restart or a network blip is seconds; a service gone for longer is told, not waited out.
    outageMs: 30_000,
  },
  throttle: {
    // 16 sockets saturate a remote service from one process without tripping typical limits.
    global: { concurrency: 16, rate: null },
    // 1% random 429s stay well under 5%; a client even 10% over a limit meets ~9%.
    aimd: { decrease: 0.5, increasePerSecond: null, minRate: 0.5, tolerance: 0.05 },
    pauseOnRetryAfter: true,
  },
  tokenTtlSeconds: 600,
  // A token is refreshed at most this long before expiry, so long TTLs do not refresh early.
  maxTokenRefreshSkewSeconds: 30,
} as const);

function deepFrozen<T extends object>(value: T): T {
  for (const inner of Object.values(value))
    if (inner !== null && typeof inner === 'object') deepFrozen(inner);
  return Object.freeze(value);
}

export interface ResolvedLimit {
  readonly concurrency: number;
  readonly rate: number | null;
  readonly burst: number | null;
}

export interface ResolvedOptions {
  readonly endpoints: Readonly<Record<keyof NonNullable<ClientOptions['endpoints']>, string | undefined>>;
  readonly credentials: Readonly<NonNullable<ClientOptions['credentials']>>;
  /** Where each credential was set, for messages (see ClientOptions.credentialSources). */
  readonly credentialSources: Readonly<NonNullable<ClientOptions['credentialSources']>>;
  readonly channel: string | undefined;
  readonly timeoutMs: number;
  readonly adaptiveTimeout: Readonly<Required<NonNullable<ClientOptions['adaptiveTimeout']>>>;
  readonly retry: Readonly<Required<NonNullable<ClientOptions['retry']>>>;
  readonly global: ResolvedLimit;
  readonly interfaces: Readonly<Record<InterfaceName, ResolvedLimit>>;
  readonly aimd: {
    readonly decrease: number;
    readonly increasePerSecond: number | null;
    readonly minRate: number;
    readonly tolerance: number;
  };
  readonly pauseOnRetryAfter: boolean;
  readonly tokenTtlMs: number;
  readonly tokenSkewMs: number;
  readonly sharedGate: SharedGate | undefined;
  /** Where each endpoint was set, one place each (see ClientOptions.endpointSources). */
  readonly endpointSources: Readonly<Record<keyof NonNullable<ClientOptions['endpoints']>, string>>;
}

function limit(path: string, value: Limit | undefined, concurrency: number): ResolvedLimit {
  if (value === undefined) return { concurrency, rate: null, burst: null };
  const rate =
    value.rate === null || value.rate === undefined ? null : positive(`${path}.rate`, value.rate, 1);
  const burst = value.burst === undefined ? null : positiveInt(`${path}.burst`, value.burst, 1);
  return { concurrency: positiveInt(`${path}.concurrency`, value.concurrency, concurrency), rate, burst };
}

function credentials(value: NonNullable<ClientOptions['credentials']>): ResolvedOptions['credentials'] {
  for (const [name, v] of Object.entries(value)) {
    // The value itself is never echoed: it may be a key.
    if (v !== undefined && (typeof v !== 'string' || v.length === 0)) {
      fail(`credentials.${name}`, 'a non-empty string', typeof v === 'string' ? 'an empty string' : typeof v);
    }
  }
  return { ...value };
}

function credentialSources(
  value: NonNullable<ClientOptions['credentialSources']>,
): ResolvedOptions['credentialSources'] {
  for (const [name, v] of Object.entries(value))
    if (v !== undefined && (typeof v !== 'string' || v.trim() === ''))
      fail(`credentialSources.${name}`, 'a non-empty string', v);
  return { ...value };
}

function adaptiveTimeout(
  value: NonNullable<ClientOptions['adaptiveTimeout']>,
): ResolvedOptions['adaptiveTimeout'] {
  const d = DEFAULTS.adaptiveTimeout;
  return {
    enabled: bool('adaptiveTimeout.enabled', value.enabled, d.enabled),
    minMs: positiveInt('adaptiveTimeout.minMs', value.minMs, d.minMs),
    hedge: bool('adaptiveTimeout.hedge', value.hedge, d.hedge),
  };
}

type Section<K extends keyof ClientOptions> = NonNullable<ClientOptions[K]>;

/** The keys each object of the options may have, for onlyKnown. */
const KNOWN = {
  options: keysOf<ClientOptions>()(
    'endpoints',
    'credentials',
    'channel',
    'timeoutMs',
    'adaptiveTimeout',
    'retry',
    'throttle',
    'tokenTtlSeconds',
    'tokenRefreshSkewSeconds',
    'logger',
    'sharedGate',
    'endpointSources',
    'credentialSources',
  ),
  endpoints: keysOf<Section<'endpoints'>>()(
    'addressSearch',
    'geojson',
    'autocomplete',
    'token',
    'area',
    'elevation',
  ),
  credentials: keysOf<Section<'credentials'>>()(
    'apiKey',
    'systemPartner',
    'securityID',
    'partner',
    'partnerKey',
  ),
  adaptiveTimeout: keysOf<Section<'adaptiveTimeout'>>()('enabled', 'minMs', 'hedge'),
  retry: keysOf<Section<'retry'>>()(
    'maxAttempts',
    'baseDelayMs',
    'maxDelayMs',
    'maxRetryAfterMs',
    'stopOnRetryAfterMs',
    'outageMs',
  ),
  throttle: keysOf<Section<'throttle'>>()('global', 'interfaces', 'aimd', 'pauseOnRetryAfter'),
  aimd: keysOf<NonNullable<Section<'throttle'>['aimd']>>()(
    'decrease',
    'increasePerSecond',
    'minRate',
    'tolerance',
  ),
  limit: keysOf<Limit>()('concurrency', 'rate', 'burst'),
};

/** Every object of the options holds only keys it knows (a typo is an error, not a default). */
function refuseUnknownKeys(options: ClientOptions): void {
  // From JavaScript, createClient() with nothing: say so, not a TypeError reading `endpoints`.
  const given: unknown = options;
  if (given === undefined || given === null || typeof given !== 'object' || Array.isArray(given))
    fail('options', 'an object (at least its credentials)', Array.isArray(given) ? 'an array' : given);
  onlyKnown('options', options, KNOWN.options);
  // Checked now, not at the first retry's log line, where a stand-in without them threw a TypeError.
  const logger: unknown = options.logger;
  if (logger !== undefined) {
    const lacking = LOGGER_METHODS.filter(
      (name) => typeof (logger as Record<string, unknown> | null)?.[name] !== 'function',
    );
    if (lacking.length > 0) fail('logger', 'a pino logger', `an object without ${lacking.join(', ')}`);
  }
  onlyKnown('endpoints', options.endpoints, KNOWN.endpoints);
  onlyKnown('endpointSources', options.endpointSources, KNOWN.endpoints);
  onlyKnown('credentials', options.credentials, KNOWN.credentials);
  onlyKnown('credentialSources', options.credentialSources, KNOWN.credentials);
  onlyKnown('adaptiveTimeout', options.adaptiveTimeout, KNOWN.adaptiveTimeout);
  onlyKnown('retry', options.retry, KNOWN.retry);
  onlyKnown('throttle', options.throttle, KNOWN.throttle);
  const t = options.throttle ?? {};
  onlyKnown('throttle.aimd', t.aimd, KNOWN.aimd);
  onlyKnown('throttle.global', t.global, KNOWN.limit);
  onlyKnown('throttle.interfaces', t.interfaces, INTERFACE_NAMES);
  for (const [name, value] of Object.entries(t.interfaces ?? {}))
    onlyKnown(`throttle.interfaces.${name}`, value, KNOWN.limit);
}

/** What the client calls on its logger. */
const LOGGER_METHODS = ['debug', 'info', 'isLevelEnabled'] as const;

/** Validates `options` once and fills in every default. Throws ConfigError naming the option. */
export function resolveOptions(options: ClientOptions): ResolvedOptions {
  refuseUnknownKeys(options);
  const e = options.endpoints ?? {};
  const d = DEFAULTS.endpoints;
  const r = options.retry ?? {};
  const t = options.throttle ?? {};
  const a = t.aimd ?? {};
  const global = limit('throttle.global', t.global, DEFAULTS.throttle.global.concurrency);
  const interfaces = {} as Record<InterfaceName, ResolvedLimit>;
  for (const name of INTERFACE_NAMES) {
    interfaces[name] = limit(`throttle.interfaces.${name}`, t.interfaces?.[name], Number.POSITIVE_INFINITY);
  }
  const decrease = positive('throttle.aimd.decrease', a.decrease, DEFAULTS.throttle.aimd.decrease);
  if (decrease > 1) fail('throttle.aimd.decrease', 'a number in (0, 1]', decrease);
  const tolerance = nonNegative('throttle.aimd.tolerance', a.tolerance, DEFAULTS.throttle.aimd.tolerance);
  if (tolerance >= 1) fail('throttle.aimd.tolerance', 'a number in [0, 1)', tolerance);
  const ttl = positive('tokenTtlSeconds', options.tokenTtlSeconds, DEFAULTS.tokenTtlSeconds);
  const skewDefault = Math.min(DEFAULTS.maxTokenRefreshSkewSeconds, ttl / 4);
  const skew = nonNegative('tokenRefreshSkewSeconds', options.tokenRefreshSkewSeconds, skewDefault);
  if (skew >= ttl) fail('tokenRefreshSkewSeconds', 'less than `tokenTtlSeconds`', skew);
  const named = options.endpointSources ?? {};
  const sources = endpointSources(e, named);
  // A wrong address names the place the caller says set it (checked above), as ENDPOINT_NOT_FOUND does.
  const address = (name: EndpointKey, fallback: string | undefined) =>
    url(`endpoints.${name}`, e[name], fallback, named[name]);
  return {
    endpoints: {
      addressSearch: address('addressSearch', undefined),
      geojson: address('geojson', d.geojson),
      autocomplete: address('autocomplete', d.autocomplete),
      token: address('token', d.token),
      area: address('area', d.area),
      elevation: address('elevation', undefined),
    },
    credentials: credentials(options.credentials ?? {}),
    credentialSources: credentialSources(options.credentialSources ?? {}),
    channel: options.channel,
    timeoutMs: positiveInt('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs),
    adaptiveTimeout: adaptiveTimeout(options.adaptiveTimeout ?? {}),
    retry: {
      maxAttempts: positiveInt('retry.maxAttempts', r.maxAttempts, DEFAULTS.retry.maxAttempts),
      baseDelayMs: nonNegative('retry.baseDelayMs', r.baseDelayMs, DEFAULTS.retry.baseDelayMs),
      maxDelayMs: nonNegative('retry.maxDelayMs', r.maxDelayMs, DEFAULTS.retry.maxDelayMs),
      maxRetryAfterMs: nonNegative(
        'retry.maxRetryAfterMs',
        r.maxRetryAfterMs,
        DEFAULTS.retry.maxRetryAfterMs,
      ),
      stopOnRetryAfterMs: stopOnRetryAfter(r.stopOnRetryAfterMs),
      outageMs: nonNegative('retry.outageMs', r.outageMs, DEFAULTS.retry.outageMs),
    },
    global,
    interfaces,
    aimd: {
      decrease,
      increasePerSecond:
        a.increasePerSecond === undefined
          ? null
          : nonNegative('throttle.aimd.increasePerSecond', a.increasePerSecond, 0),
      minRate: positive('throttle.aimd.minRate', a.minRate, DEFAULTS.throttle.aimd.minRate),
      tolerance,
    },
    pauseOnRetryAfter: bool(
      'throttle.pauseOnRetryAfter',
      t.pauseOnRetryAfter,
      DEFAULTS.throttle.pauseOnRetryAfter,
    ),
    tokenTtlMs: ttl * 1000,
    tokenSkewMs: skew * 1000,
    sharedGate: sharedGate(options.sharedGate),
    endpointSources: sources,
  };
}

type EndpointKey = keyof NonNullable<ClientOptions['endpoints']>;

/**
 * Each endpoint's one source: the caller's word for it, else the option that set it, else its
 * default (which a message about a wrong path must not send the user to edit as if they had).
 */
function endpointSources(
  given: NonNullable<ClientOptions['endpoints']>,
  named: NonNullable<ClientOptions['endpointSources']>,
): ResolvedOptions['endpointSources'] {
  const sources = {} as Record<EndpointKey, string>;
  for (const name of KNOWN.endpoints as readonly EndpointKey[]) {
    const source: unknown = named[name];
    if (source !== undefined && (typeof source !== 'string' || source.trim() === ''))
      fail(`endpointSources.${name}`, 'a non-empty string', source);
    sources[name] =
      source ?? (given[name] === undefined ? `the default of endpoints.${name}` : `endpoints.${name}`);
  }
  return sources;
}

function stopOnRetryAfter(value: unknown): number | null {
  if (value === null) return null;
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value < 0))
    fail('retry.stopOnRetryAfterMs', 'a number >= 0, or null to never stop on a Retry-After', value);
  return (value as number | undefined) ?? DEFAULTS.retry.stopOnRetryAfterMs;
}

function sharedGate(value: unknown): SharedGate | undefined {
  if (value === undefined) return undefined;
  const gate = value as Partial<SharedGate> | null;
  if (typeof gate?.take !== 'function' || typeof gate.throttled !== 'function')
    fail('sharedGate', 'an object with take() and throttled()', value === null ? 'null' : typeof value);
  return gate as SharedGate;
}

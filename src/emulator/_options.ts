/**
 * The emulator's defaults and the one place its options are checked. Messages follow the project's
 * form: "Expected `faults.error500` to be a number between 0 and 1, got `2`".
 */
import { ConfigError } from '../errors.js';
import { DEFAULT_CREDENTIALS } from './auth.js';
import type { EmulatorCredentials, EmulatorOptions, FaultConfig } from './types.js';
import { INTERFACE_NAMES } from './types.js';

export const EMULATOR_DEFAULTS = {
  /** Any free port. */
  port: 0,
  /** Loopback only: the emulator accepts demo credentials anyone could read. */
  host: '127.0.0.1',
  /** The real service's token lifetime (10 minutes). */
  tokenTtlSeconds: 600,
  /** Pooled client connections must not be cut between requests (Node's own default is 5 s). */
  keepAliveTimeoutMs: 65_000,
} as const;

export interface ResolvedOptions {
  preload: boolean;
  port: number;
  host: string;
  tokenTtlSeconds: number;
  faults: FaultConfig;
  credentials: EmulatorCredentials;
  onRequest: EmulatorOptions['onRequest'];
}

function fail(path: string, expected: string, received: unknown): never {
  const shown = JSON.stringify(received) ?? String(received);
  throw new ConfigError(`Expected \`${path}\` to be ${expected}, got \`${shown}\``, {
    path,
    expected,
    received: shown,
  });
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/** The options' keys: a misspelt one (`fault:`, `latencyMs:`) started an emulator without it. */
const OPTION_KEYS: readonly (keyof EmulatorOptions)[] = [
  'port',
  'host',
  'tokenTtlSeconds',
  'faults',
  'credentials',
  'onRequest',
  'preload',
];

export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  for (const key of Object.keys(options))
    if (!(OPTION_KEYS as readonly string[]).includes(key)) fail(key, `one of ${OPTION_KEYS.join(', ')}`, key);
  const port = options.port ?? EMULATOR_DEFAULTS.port;
  if (!isInt(port) || port < 0 || port > 65535) fail('port', 'an integer from 0 to 65535', port);
  const host = options.host ?? EMULATOR_DEFAULTS.host;
  if (typeof host !== 'string' || host === '') fail('host', 'a host name or address', host);
  const ttl = options.tokenTtlSeconds ?? EMULATOR_DEFAULTS.tokenTtlSeconds;
  if (typeof ttl !== 'number' || !(ttl > 0)) fail('tokenTtlSeconds', 'a positive number', ttl);
  const credentials = { ...DEFAULT_CREDENTIALS, ...options.credentials };
  for (const [name, value] of Object.entries(credentials)) {
    if (typeof value !== 'string' || value === '' || (value.includes(':') && name === 'partner')) {
      fail(`credentials.${name}`, 'a non-empty string (a partner without a colon)', value);
    }
  }
  return {
    preload: options.preload === true,
    port,
    host,
    tokenTtlSeconds: ttl,
    faults: validateFaults(options.faults ?? {}),
    credentials,
    onRequest: options.onRequest,
  };
}

const PROBABILITIES = ['reset', 'hang', 'error429', 'error500', 'error502', 'error503', 'malformed'] as const;
const FAULT_KEYS = new Set([
  ...PROBABILITIES,
  'latency',
  'retryAfter',
  'rateLimit',
  'quotaAfter',
  'interfaces',
  'seed',
]);

/** Checks a whole fault config (from options, the CLI or PUT /_emulator/faults); returns a copy. */
export function validateFaults(input: unknown): FaultConfig {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) fail('faults', 'an object', input);
  const f = input as Record<string, unknown>;
  for (const key of Object.keys(f))
    if (!FAULT_KEYS.has(key)) fail(`faults.${key}`, 'a known fault setting', key);
  const out: FaultConfig = {};
  for (const key of PROBABILITIES) {
    const p = f[key];
    if (p === undefined) continue;
    if (typeof p !== 'number' || !(p >= 0 && p <= 1)) fail(`faults.${key}`, 'a number between 0 and 1', p);
    out[key] = p;
  }
  if (f.latency !== undefined) out.latency = validateLatency(f.latency);
  if (f.retryAfter !== undefined) out.retryAfter = validateRetryAfter(f.retryAfter);
  if (f.rateLimit !== undefined) out.rateLimit = validateRateLimit(f.rateLimit);
  if (f.quotaAfter !== undefined) {
    if (!isInt(f.quotaAfter) || f.quotaAfter < 0)
      fail('faults.quotaAfter', 'a non-negative integer', f.quotaAfter);
    out.quotaAfter = f.quotaAfter;
  }
  if (f.interfaces !== undefined) {
    const list = f.interfaces;
    if (!Array.isArray(list) || !list.every((i) => INTERFACE_NAMES.includes(i))) {
      fail('faults.interfaces', `an array of ${INTERFACE_NAMES.join(', ')}`, list);
    }
    out.interfaces = [...list];
  }
  if (f.seed !== undefined) {
    if (!isInt(f.seed)) fail('faults.seed', 'an integer', f.seed);
    out.seed = f.seed;
  }
  return out;
}

/**
 * A misspelt setting inside a fault (`latency: { fixedMS: 100 }`) was dropped in silence and
 * answered 200 with no latency applied; it is refused as a misspelt top-level one is.
 */
function onlyKeys(path: string, value: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(value))
    if (!known.includes(key)) fail(`${path}.${key}`, `one of ${known.join(', ')}`, key);
}

function validateLatency(v: unknown): NonNullable<FaultConfig['latency']> {
  const l = (typeof v === 'object' && v !== null ? v : fail('faults.latency', 'an object', v)) as Record<
    string,
    unknown
  >;
  onlyKeys('faults.latency', l, ['fixedMs', 'jitterMs']);
  const out: NonNullable<FaultConfig['latency']> = {};
  for (const key of ['fixedMs', 'jitterMs'] as const) {
    const ms = l[key];
    if (ms === undefined) continue;
    if (typeof ms !== 'number' || !(ms >= 0 && ms <= 600_000)) {
      fail(`faults.latency.${key}`, 'a number of milliseconds from 0 to 600000', ms);
    }
    out[key] = ms;
  }
  return out;
}

function validateRetryAfter(v: unknown): NonNullable<FaultConfig['retryAfter']> {
  const r = (typeof v === 'object' && v !== null ? v : fail('faults.retryAfter', 'an object', v)) as Record<
    string,
    unknown
  >;
  onlyKeys('faults.retryAfter', r, ['seconds', 'form']);
  const out: NonNullable<FaultConfig['retryAfter']> = {};
  if (r.seconds !== undefined) {
    if (!isInt(r.seconds) || r.seconds < 0)
      fail('faults.retryAfter.seconds', 'a non-negative integer', r.seconds);
    out.seconds = r.seconds;
  }
  if (r.form !== undefined) {
    if (r.form !== 'seconds' && r.form !== 'http-date' && r.form !== 'alternate') {
      fail('faults.retryAfter.form', "'seconds', 'http-date' or 'alternate'", r.form);
    }
    out.form = r.form;
  }
  return out;
}

function validateRateLimit(v: unknown): NonNullable<FaultConfig['rateLimit']> {
  const r = (typeof v === 'object' && v !== null ? v : fail('faults.rateLimit', 'an object', v)) as Record<
    string,
    unknown
  >;
  onlyKeys('faults.rateLimit', r, ['rps', 'burst']);
  if (typeof r.rps !== 'number' || !(r.rps > 0)) fail('faults.rateLimit.rps', 'a positive number', r.rps);
  if (r.burst !== undefined && (typeof r.burst !== 'number' || !(r.burst >= 1))) {
    fail('faults.rateLimit.burst', 'a number of at least 1', r.burst);
  }
  return r.burst === undefined ? { rps: r.rps } : { rps: r.rps, burst: r.burst };
}

/**
 * Switchable faults: quota, a server-side token bucket, random failures from a seeded RNG, latency.
 * The order of checks is fixed so that a seeded run replays exactly: quota -> rate limit -> reset ->
 * hang -> 429 -> 500 -> 502 -> 503 -> malformed (each drawn only when its probability is > 0).
 */
import { mulberry32 } from './lib/_rng.js';
import type { FaultConfig, InterfaceName } from './types.js';

export type FaultDecision =
  | { kind: 'reset' }
  | { kind: 'hang' }
  | { kind: 'malformed' }
  | { kind: 'status'; status: 402 | 500 | 502 | 503 }
  | { kind: 'throttle'; retryAfterSeconds: number };

const RANDOM_FAULTS = [
  ['reset', { kind: 'reset' }],
  ['hang', { kind: 'hang' }],
  ['error429', null],
  ['error500', { kind: 'status', status: 500 }],
  ['error502', { kind: 'status', status: 502 }],
  ['error503', { kind: 'status', status: 503 }],
  ['malformed', { kind: 'malformed' }],
] as const;

/** The Retry-After header for a wait, and the wait it really demands in ms from `answeredAt`. */
export interface RetryAfter {
  header: string;
  ms: number;
}

export class Faults {
  #config: FaultConfig = {};
  #random: () => number = Math.random;
  #served = 0;
  #tokens = 0;
  #refilledAt = 0;
  #dateForm = false;
  readonly #now: () => number;

  constructor(config: FaultConfig, now: () => number = Date.now) {
    this.#now = now;
    this.set(config);
  }

  /** Replaces the config; restarts the RNG from its seed, the token bucket full, the quota count at 0. */
  set(config: FaultConfig): void {
    this.#config = structuredClone(config);
    this.#random = mulberry32(config.seed ?? Math.floor(Math.random() * 2 ** 32));
    this.#served = 0;
    this.#tokens = config.rateLimit ? (config.rateLimit.burst ?? config.rateLimit.rps) : 0;
    this.#refilledAt = this.#now();
    this.#dateForm = false;
  }

  get(): FaultConfig {
    return structuredClone(this.#config);
  }

  /** The fault for this service request, or null to answer normally. */
  decide(iface: InterfaceName): FaultDecision | null {
    const c = this.#config;
    this.#served++;
    if (c.quotaAfter !== undefined && this.#served > c.quotaAfter) return { kind: 'status', status: 402 };
    if (c.rateLimit) {
      const wait = this.#take(c.rateLimit.rps, c.rateLimit.burst ?? c.rateLimit.rps);
      if (wait > 0) return { kind: 'throttle', retryAfterSeconds: Math.max(1, Math.ceil(wait)) };
    }
    if (c.interfaces && !c.interfaces.includes(iface)) return null;
    for (const [key, decision] of RANDOM_FAULTS) {
      const p = c[key] ?? 0;
      if (p > 0 && this.#random() < p) {
        return decision ?? { kind: 'throttle', retryAfterSeconds: c.retryAfter?.seconds ?? 1 };
      }
    }
    return null;
  }

  /** Extra delay before this answer: fixed + uniform jitter. */
  latencyMs(): number {
    const { fixedMs = 0, jitterMs = 0 } = this.#config.latency ?? {};
    return fixedMs + (jitterMs > 0 ? this.#random() * jitterMs : 0);
  }

  /**
   * Formats a wait as Retry-After at the moment of answering. The HTTP-date form has whole-second
   * resolution, so the date is rounded up: the client must never be told to come back early.
   */
  retryAfter(seconds: number, answeredAt: number): RetryAfter {
    const form = this.#config.retryAfter?.form ?? 'alternate';
    const useDate = form === 'http-date' || (form === 'alternate' && this.#dateForm);
    if (form === 'alternate') this.#dateForm = !this.#dateForm;
    if (!useDate) return { header: String(seconds), ms: seconds * 1000 };
    const at = Math.ceil((answeredAt + seconds * 1000) / 1000) * 1000;
    return { header: new Date(at).toUTCString(), ms: at - answeredAt };
  }

  /** Takes a token; returns 0, or the seconds until one is free. */
  #take(rps: number, burst: number): number {
    const now = this.#now();
    this.#tokens = Math.min(burst, this.#tokens + ((now - this.#refilledAt) / 1000) * rps);
    this.#refilledAt = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return (1 - this.#tokens) / rps;
  }
}

/**
 * A distributed run's rates: the job file's throttle (and `--rate`) hold for all workers of the
 * run together, through the shared gate; each worker's own client keeps the concurrency limits
 * and drops the rates, which would otherwise apply once per worker.
 */
import type { InterfaceName } from '../client/index.js';
import type { JobConfig } from '../config/load.js';

export interface RateLimits {
  /** Requests per second for all interfaces together; null: none. */
  readonly global: number | null;
  readonly interfaces: Partial<Record<InterfaceName, number | null>>;
}

/** A rate of 0 (`--rate 0`) or none means no limit. */
function rate(value: number | null | undefined): number | null {
  return value === undefined || value === null || value <= 0 ? null : value;
}

export function rateLimits(config: JobConfig): RateLimits {
  const throttle = config.service.throttle;
  const interfaces: Partial<Record<InterfaceName, number | null>> = {};
  for (const [name, limit] of Object.entries(throttle?.interfaces ?? {}) as [
    InterfaceName,
    { rate?: number | null } | undefined,
  ][]) {
    const value = rate(limit?.rate);
    if (value !== null) interfaces[name] = value;
  }
  return { global: rate(throttle?.global?.rate), interfaces };
}

/** The job as one worker's client sees it: the same limits but for the rates. */
export function withoutRates(config: JobConfig): JobConfig {
  const throttle = config.service.throttle;
  if (throttle === undefined) return config;
  const interfaces = Object.fromEntries(
    Object.entries(throttle.interfaces ?? {}).map(([name, limit]) => [name, { ...limit, rate: null }]),
  );
  return {
    ...config,
    service: {
      ...config.service,
      throttle: { ...throttle, global: { ...throttle.global, rate: null }, interfaces },
    },
  };
}

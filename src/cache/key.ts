/**
 * What an answer is keyed under: the service that gave it, the operation, every parameter that
 * changes it, and the format the answer is kept in; the item key comes on top (the job's dedup
 * key: the normalised address, the point to 1e-6 degrees...). Never a credential: endpoints are
 * reduced to host, port and path, and parameters come from the job's options, which hold none.
 */
import type { CacheInterface, Scope } from './store.js';

/** The embedded emulator (`--emulator`) is one service, whatever port it listened on. */
export const EMBEDDED_EMULATOR = 'embedded-emulator';

/**
 * A service's identity: scheme, host, port and path of its base URL. User info, query and
 * fragment are dropped (they may hold credentials and do not name another service).
 */
export function serviceIdentity(baseUrl: string | undefined): string {
  if (baseUrl === undefined) return 'unconfigured';
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'unconfigured';
  }
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.hostname.toLowerCase()}:${port}${path}`;
}

/** JSON with object keys sorted at every depth, so equal parameters give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

export interface ScopeParts {
  readonly interface: CacheInterface;
  /** From serviceIdentity, or EMBEDDED_EMULATOR. */
  readonly service: string;
  readonly operation: string;
  /** Every parameter that changes the answer. */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * The version of the answer's stored form: raised when geobatch reads the service differently,
   * so that answers kept by an older geobatch are asked again rather than misread.
   */
  readonly format: number;
}

export function scopeOf(parts: ScopeParts): Scope {
  return {
    interface: parts.interface,
    description: canonicalJson({
      service: parts.service,
      interface: parts.interface,
      operation: parts.operation,
      params: parts.params,
      format: parts.format,
    }),
  };
}

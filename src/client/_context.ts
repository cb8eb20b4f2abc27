/**
 * What every interface module gets from the client: the transport, the resolved options and the
 * base addresses, split once.
 */
import { ConfigError } from '../errors.js';
import type { EndpointName } from './_call.js';
import type { Auth } from './auth.js';
import type { ResolvedOptions } from './options.js';
import type { Base, Transport } from './transport.js';
import { splitBase } from './transport.js';

export type { EndpointName } from './_call.js';

/** Per-call options of every typed function. */
export interface CallOptions {
  /** Aborts the throttle wait, the backoff sleep and the request alike. */
  signal?: AbortSignal;
}

export interface ClientContext {
  readonly transport: Transport;
  readonly options: ResolvedOptions;
  readonly auth: Auth;
  /** The base of `name`; throws ConfigError when it has no default and was not configured. */
  base(name: EndpointName): Base;
}

const WHY_MISSING: Readonly<Partial<Record<EndpointName, string>>> = {
  addressSearch: 'the address search base address is issued per integration',
  elevation: 'the elevation base address is not public',
};

export function createContext(transport: Transport, options: ResolvedOptions, auth: Auth): ClientContext {
  const cache = new Map<EndpointName, Base>();
  return {
    transport,
    options,
    auth,
    base(name) {
      let base = cache.get(name);
      if (base === undefined) {
        const url = options.endpoints[name];
        if (url === undefined) {
          const why = WHY_MISSING[name] ?? 'it has no default';
          throw new ConfigError(`endpoints.${name} is not set: ${why}; configure it`, {
            path: `endpoints.${name}`,
          });
        }
        base = splitBase(name, url, options.endpointSources[name]);
        cache.set(name, base);
      }
      return base;
    },
  };
}

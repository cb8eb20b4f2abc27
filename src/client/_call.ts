/** What an interface module hands the transport: one logical request and how to read its answer. */
import type { InterfaceName, ResolvedOptions } from './options.js';

/** The options' endpoints by name: `geojson`, `area`... */
export type EndpointName = keyof ResolvedOptions['endpoints'];

/** A base address split once into what undici wants. */
export interface Base {
  /** Which of the options' endpoints it is, for messages that say where it is set. */
  readonly name: EndpointName;
  readonly origin: string;
  /** Path prefix without a trailing slash ('' for a bare origin). */
  readonly prefix: string;
  /** Where the address was set (`GEOBATCH_EMULATOR_URL`...), for messages about a wrong one. */
  readonly setBy: string;
}

export function splitBase(name: EndpointName, url: string, setBy = `endpoints.${name}`): Base {
  const parsed = new URL(url);
  return { name, origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, ''), setBy };
}

/** One logical request; the transport retries it as one (same X-Request-Id). */
export interface Call<T> {
  readonly service: InterfaceName;
  readonly method: 'GET' | 'POST';
  readonly base: Base;
  /** Appended to the base prefix. */
  readonly path: string;
  /** Encoded query string without credentials and without '?'. */
  readonly query?: string;
  /** JSON text. */
  readonly body?: string;
  /** Checks and normalises a 2xx JSON answer; throws ResponseError. */
  readonly parse: (json: unknown) => T;
  /** Turns a non-2xx answer into data (geocoding's "no match" as an HTTP error), or undefined. */
  readonly fromStatus?: (status: number, text: string) => T | undefined;
}

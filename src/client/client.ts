/**
 * `createClient`: validates the options once, wires auth, throttle, http, token manager and
 * metrics into one transport, and exposes one typed function per operation of the spec.
 */
import { pino } from 'pino';
import type {
  AddressSearchParams,
  AddressSearchResponse,
  AreaOsmidBody,
  AreaPointBody,
  AreaRectangleBody,
  AutocompleteRequest,
  GeocodeLocation,
  GeoEntity,
} from '../contract/index.js';
import { RunError } from '../errors.js';
import { RetrySleeps } from '../retry-sleeps.js';
import { SecretSet } from '../secrets.js';
import type { LonLat } from '../types.js';
import type { CallOptions } from './_context.js';
import { createContext } from './_context.js';
import type { PagedEndpoint, PagesOptions } from './address-search.js';
import { addressSearch, byCustomerId, byIdentifier, pages } from './address-search.js';
import type { AreaPointQuery, AreaResult } from './area.js';
import { areaOsmids, areaPoint, areaPoints, areaRectangle } from './area.js';
import { createAuth } from './auth.js';
import { autocomplete, fetchToken } from './autocomplete.js';
import { elevationPoint, elevationPoints } from './elevation.js';
import type { GeocodeResult } from './geocoding.js';
import { geocode, reverseGeocode } from './geocoding.js';
import { createHttp } from './http.js';
import type { ClientMetricsSnapshot } from './metrics.js';
import { Metrics } from './metrics.js';
import type { ClientOptions } from './options.js';
import { resolveOptions } from './options.js';
import type {
  IsochroneOptions,
  IsochroneResult,
  Leg,
  MatchResult,
  RouteResult,
  RoutingOptions,
  TripOptions,
  TripResult,
} from './routing.js';
import { isochrone, match, matrix, route, trip } from './routing.js';
import { Throttle } from './throttle.js';
import { TokenManager } from './token.js';
import { Transport } from './transport.js';

type Search = (p: AddressSearchParams, o?: CallOptions) => Promise<AddressSearchResponse>;

export interface GeoClient {
  addressSearch: {
    byBranchesAndAddress: Search;
    byBranchesAndPosition: Search;
    byBranchesAndRectangle: Search;
    byCustomerId(ids: readonly string[], o?: CallOptions): Promise<AddressSearchResponse>;
    byIdentifier(identifier: string, o?: CallOptions): Promise<AddressSearchResponse>;
    pages(
      endpoint: PagedEndpoint,
      p: AddressSearchParams,
      o?: PagesOptions,
    ): AsyncIterable<AddressSearchResponse>;
  };
  autocomplete(req: AutocompleteRequest, o?: CallOptions): Promise<GeoEntity[]>;
  /** Fetches a new token from the token endpoint (autocomplete() manages its own). */
  token(o?: CallOptions): Promise<string>;
  area: {
    point(q: AreaPointQuery, o?: CallOptions): Promise<AreaResult>;
    points(body: AreaPointBody, o?: CallOptions): Promise<AreaResult>;
    rectangle(body: AreaRectangleBody, o?: CallOptions, form?: 'GET' | 'POST'): Promise<AreaResult>;
    osmids(body: AreaOsmidBody, o?: CallOptions): Promise<AreaResult>;
  };
  routing: {
    route(points: readonly LonLat[], opts?: RoutingOptions): Promise<RouteResult>;
    matrix(origin: LonLat, destinations: readonly LonLat[], opts?: RoutingOptions): Promise<Leg[]>;
    trip(points: readonly LonLat[], opts?: TripOptions): Promise<TripResult>;
    isochrone(origin: LonLat, opts: IsochroneOptions): Promise<IsochroneResult>;
    match(points: readonly LonLat[], opts?: RoutingOptions): Promise<MatchResult>;
  };
  geocode(location: GeocodeLocation, o?: CallOptions): Promise<GeocodeResult>;
  reverseGeocode(point: LonLat, o?: CallOptions): Promise<GeocodeResult>;
  elevation: {
    point(p: LonLat, o?: CallOptions): Promise<number | null>;
    /** At most 500 points; more throws a UsageError before anything is sent. */
    points(ps: readonly LonLat[], o?: CallOptions): Promise<(number | null)[]>;
  };
  /** Counters and latency so far. */
  metrics(): ClientMetricsSnapshot;
  /** Requests asleep before a retry: the engine sends others in their place (src/retry-sleeps.ts). */
  readonly retrySleeps: RetrySleeps;
  /** Rejects waiting calls and closes the connection pool. */
  close(): Promise<void>;
}

/** Builds a client. Throws ConfigError for invalid options; registers every credential as a secret. */
export function createClient(options: ClientOptions): GeoClient {
  const resolved = resolveOptions(options);
  // Released when the client is closed: a process that builds clients for many keys keeps none.
  const secrets = new SecretSet();
  // The tokens `token()` hands out, the latest two, in a set of their own: one the manager holds
  // too stays registered for it.
  const issued = new SecretSet();
  const handedOut: string[] = [];
  const auth = createAuth(resolved.credentials, resolved.credentialSources, secrets);
  const metrics = new Metrics();
  const logger = options.logger ?? pino({ level: 'silent' });
  const throttle = new Throttle(resolved);
  const http = createHttp({ connections: resolved.global.concurrency, timeoutMs: resolved.timeoutMs });
  const retrySleeps = new RetrySleeps();
  const transport = new Transport({ options: resolved, http, throttle, auth, metrics, logger, retrySleeps });
  const ctx = createContext(transport, resolved, auth);
  const tokens = new TokenManager({
    fetch: () => fetchToken(ctx),
    ttlMs: resolved.tokenTtlMs,
    skewMs: resolved.tokenSkewMs,
    onToken: () => metrics.tokenFetched(),
    secrets,
  });
  transport.useTokens(tokens);

  return {
    addressSearch: {
      byBranchesAndAddress: (p, o) => addressSearch(ctx, 'ByBranchesAndAddress', p, o),
      byBranchesAndPosition: (p, o) => addressSearch(ctx, 'ByBranchesAndPosition', p, o),
      byBranchesAndRectangle: (p, o) => addressSearch(ctx, 'ByBranchesAndRectangle', p, o),
      byCustomerId: (ids, o) => byCustomerId(ctx, ids, o),
      byIdentifier: (identifier, o) => byIdentifier(ctx, identifier, o),
      pages: (endpoint, p, o) => pages(ctx, endpoint, p, o),
    },
    autocomplete: (req, o) => autocomplete(ctx, req, o),
    token: async (o) => {
      const token = await fetchToken(ctx, o);
      // As the token manager's: the latest two scrubbed, older ones released, so that a client
      // handing tokens out for weeks keeps two, not every one it ever fetched.
      issued.add(token);
      handedOut.push(token);
      while (handedOut.length > 2) issued.release(handedOut.shift() as string);
      return token;
    },
    area: {
      point: (q, o) => areaPoint(ctx, q, o),
      points: (body, o) => areaPoints(ctx, body, o),
      rectangle: (body, o, form) => areaRectangle(ctx, body, o, form),
      osmids: (body, o) => areaOsmids(ctx, body, o),
    },
    routing: {
      route: (points, opts) => route(ctx, points, opts),
      matrix: (origin, destinations, opts) => matrix(ctx, origin, destinations, opts),
      trip: (points, opts) => trip(ctx, points, opts),
      isochrone: (origin, opts) => isochrone(ctx, origin, opts),
      match: (points, opts) => match(ctx, points, opts),
    },
    geocode: (location, o) => geocode(ctx, location, o),
    reverseGeocode: (point, o) => reverseGeocode(ctx, point, o),
    elevation: {
      point: (p, o) => elevationPoint(ctx, p, o),
      points: (ps, o) => elevationPoints(ctx, ps, o),
    },
    metrics: () => metrics.snapshot(),
    retrySleeps,
    close: async () => {
      transport.close();
      throttle.close(new RunError('ABORTED', 'the client was closed'));
      await http.close();
      secrets.releaseAll();
      issued.releaseAll();
    },
  };
}

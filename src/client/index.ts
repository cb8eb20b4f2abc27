/** The typed client of the geo services: a table of contents, re-exports only. */

export type * from '../contract/index.js';
export type { CallOptions } from './_context.js';
export type { SharedGate } from './_gate.js';
export type { PagedEndpoint, PagesOptions } from './address-search.js';
export { encodeAddition } from './address-search.js';
export type { AreaCommon, AreaFeature, AreaPointQuery, AreaResult } from './area.js';
export { CREDENTIAL_ENV } from './auth.js';
export type { GeoClient } from './client.js';
export { createClient } from './client.js';
export type { CoordIssue } from './coords.js';
export { convert, distanceMetres, fromWgs84, isCoordIssue, readLonLat, toWgs84 } from './coords.js';
export type { GeocodeMatch, GeocodeResult } from './geocoding.js';
export type { ClientMetricsSnapshot, LatencySnapshot } from './metrics.js';
export type { ClientOptions, InterfaceName, Limit } from './options.js';
export { DEFAULTS, EMULATOR_URL_ENV, ENDPOINT_ENV, INTERFACE_NAMES } from './options.js';
export type { AttemptFailure, RetryCause, RetryDecision, RetryPolicy } from './retry.js';
export { decideRetry, parseRetryAfter } from './retry.js';
export type {
  IsochroneOptions,
  IsochroneResult,
  Leg,
  MatchResult,
  RouteResult,
  RoutingOptions,
  TripOptions,
  TripResult,
} from './routing.js';

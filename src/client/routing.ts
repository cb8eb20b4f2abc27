/**
 * Routing: one POST endpoint whose `routingparams.type` picks ROUTE, MATRIX, TRIP, ISOCHRONE or
 * MATCH. Each function builds the feature layout the spec prescribes for its type.
 */

import type {
  RoutingFeature,
  RoutingParams,
  RoutingRequest,
  RoutingResponse,
  RoutingType,
  SpeedProfile,
} from '../contract/index.js';
import { CRS84, routingResponseSchema } from '../contract/index.js';
import { InputError, UsageError } from '../errors.js';
import type { LonLat } from '../types.js';
import { checkNumber } from './_arguments.js';
import type { CallOptions, ClientContext } from './_context.js';
import { check } from './_parse.js';
import type { IsochroneResult, Leg, MatchResult, RouteResult, TripResult } from './_routing-read.js';
import { readIsochrone, readMatch, readMatrix, readRoute, readTrip } from './_routing-read.js';
import { checkPoints } from './coords.js';

export type { IsochroneResult, Leg, MatchResult, RouteResult, TripResult };

export interface RoutingOptions extends CallOptions {
  speedProfile?: SpeedProfile;
  /** Language of route instructions. */
  isoLocale?: string;
  routingTimeMode?: 'ARRIVAL' | 'DEPARTURE';
  /**
   * Further `routingparams` the spec does not name (a departure time under the name your contract
   * uses). They never replace the ones this client sets.
   */
  params?: Readonly<Record<string, string | number | boolean>>;
}

export interface TripOptions extends RoutingOptions {
  /** Return to the start at the end. @default false */
  roundTrip?: boolean;
}

export type IsochroneOptions = RoutingOptions & {
  /** A string holding an integer 35..150; higher = finer polygon. */
  isochroneGrid?: number;
} & (
    | { timeInMinutes: number; distanceInMeters?: undefined }
    | { distanceInMeters: number; timeInMinutes?: undefined }
  );

const point = (p: LonLat, properties: Record<string, unknown> = {}): RoutingFeature => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates: [p[0], p[1]] },
  properties,
});
const multiPoint = (ps: readonly LonLat[]): RoutingFeature => ({
  type: 'Feature',
  geometry: { type: 'MultiPoint', coordinates: ps.map((p) => [p[0], p[1]]) },
  properties: {},
});

function send<T>(
  ctx: ClientContext,
  type: RoutingType,
  features: RoutingFeature[],
  opts: RoutingOptions | undefined,
  extra: Partial<RoutingParams>,
  read: (response: RoutingResponse) => T,
): Promise<T> {
  const routingparams: RoutingParams = {
    ...opts?.params,
    type,
    coordFormatOut: 'GEODECIMAL_POINT',
    ...extra,
  };
  if (opts?.speedProfile !== undefined) routingparams.speedProfile = opts.speedProfile;
  if (opts?.isoLocale !== undefined) routingparams.isoLocale = opts.isoLocale;
  if (opts?.routingTimeMode !== undefined) routingparams.routingTimeMode = opts.routingTimeMode;
  const request: RoutingRequest = {
    type: 'FeatureCollection',
    routingparams,
    authentication: { channel: ctx.options.channel ?? '' },
    crs: CRS84,
    features,
  };
  const what = `routing ${type}`;
  return ctx.transport.call(
    {
      service: 'routing',
      method: 'POST',
      base: ctx.base('geojson'),
      path: '/route',
      body: JSON.stringify(request),
      parse: (json) => read(check(routingResponseSchema, json, what)),
    },
    opts?.signal,
  );
}

function atLeast(points: readonly unknown[], n: number, type: RoutingType): void {
  if (points.length < n) {
    throw new UsageError(
      `routing ${type} needs at least ${n} point${n === 1 ? '' : 's'}, got ${points.length}`,
      {
        service: 'routing',
        expected: `>= ${n} points`,
        received: String(points.length),
      },
    );
  }
}

/** A route through `points`: start, intermediate points, destination. */
export async function route(
  ctx: ClientContext,
  points: readonly LonLat[],
  opts?: RoutingOptions,
): Promise<RouteResult> {
  atLeast(points, 2, 'ROUTE');
  checkPoints('routing ROUTE', points);
  return send(
    ctx,
    'ROUTE',
    points.map((p) => point(p)),
    opts,
    {},
    (r) => readRoute(r, 'routing ROUTE'),
  );
}

/** Distance and travel time from `origin` to each destination, in the order given. */
export async function matrix(
  ctx: ClientContext,
  origin: LonLat,
  destinations: readonly LonLat[],
  opts?: RoutingOptions,
): Promise<Leg[]> {
  atLeast(destinations, 1, 'MATRIX');
  checkPoints('routing MATRIX origin', [origin]);
  checkPoints('routing MATRIX destinations', destinations);
  const features = [point(origin, { type: 'StartPoint' }), multiPoint(destinations)];
  return send(ctx, 'MATRIX', features, opts, {}, (r) => readMatrix(r, destinations.length));
}

/** The optimised route through `points` (the first is the start). */
export async function trip(
  ctx: ClientContext,
  points: readonly LonLat[],
  opts?: TripOptions,
): Promise<TripResult> {
  atLeast(points, 2, 'TRIP');
  checkPoints('routing TRIP', points);
  const extra = { routingRoundTrip: opts?.roundTrip ?? false };
  return send(ctx, 'TRIP', [multiPoint(points)], opts, extra, readTrip);
}

/** The area reachable from `origin` within a time or a distance. */
export async function isochrone(
  ctx: ClientContext,
  origin: LonLat,
  opts: IsochroneOptions,
): Promise<IsochroneResult> {
  checkPoints('routing ISOCHRONE', [origin]);
  checkReach(opts);
  const extra: Partial<RoutingParams> = {
    timeInMinutes: opts.timeInMinutes ?? null,
    distanceInMeters: opts.distanceInMeters ?? null,
  };
  if (opts.isochroneGrid !== undefined) extra.isochroneGrid = String(opts.isochroneGrid);
  return send(ctx, 'ISOCHRONE', [point(origin)], opts, extra, readIsochrone);
}

/** Exactly one of minutes and metres, a number above 0, as the service asks. */
function checkReach(opts: IsochroneOptions): void {
  const given = (['timeInMinutes', 'distanceInMeters'] as const).filter((key) => opts?.[key] !== undefined);
  if (given.length !== 1)
    throw new InputError(
      'FIELD_INVALID',
      `routing ISOCHRONE: expected exactly one of timeInMinutes and distanceInMeters, got ${given.length === 0 ? 'neither' : 'both'}`,
      { field: 'timeInMinutes', expected: 'exactly one of timeInMinutes and distanceInMeters' },
    );
  const key = given[0] as (typeof given)[number];
  checkNumber('routing ISOCHRONE', key, opts[key], 'a number above 0', (n) => n > 0);
  if (opts.isochroneGrid !== undefined)
    checkNumber('routing ISOCHRONE', 'isochroneGrid', opts.isochroneGrid, 'a number above 0', (n) => n > 0);
}

/** Snaps a GPS track to the road network; one destination per input point. */
export async function match(
  ctx: ClientContext,
  points: readonly LonLat[],
  opts?: RoutingOptions,
): Promise<MatchResult> {
  atLeast(points, 2, 'MATCH');
  checkPoints('routing MATCH', points);
  const extra: Partial<RoutingParams> = {};
  if (ctx.options.channel !== undefined) extra.channel = ctx.options.channel;
  return send(ctx, 'MATCH', [multiPoint(points)], opts, extra, (r) => readMatch(r, points.length));
}

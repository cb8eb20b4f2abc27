/**
 * The service's wire shapes: Routing (apiKey; one POST endpoint, `routingparams.type` picks the computation).
 * Shared by the client and the emulator (see index.ts for the conventions).
 */
import { z } from 'zod';
import { anyGeometry, bbox } from './_fields.js';
import type { CoordFormat, Crs, RoutingType, SpeedProfile } from './common.js';

export interface RoutingParams {
  type: RoutingType;
  isoLocale?: string;
  coordFormatOut?: CoordFormat;
  speedProfile?: SpeedProfile;
  routingTimeMode?: 'ARRIVAL' | 'DEPARTURE';
  routingRoundTrip?: boolean;
  timeInMinutes?: number | null;
  distanceInMeters?: number | null;
  /** A string holding an integer 35..150. */
  isochroneGrid?: string;
  channel?: string;
}

export interface RoutingFeature {
  type: 'Feature';
  geometry: { type: 'Point'; coordinates: number[] } | { type: 'MultiPoint'; coordinates: number[][] };
  properties: Record<string, unknown>;
}

export interface RoutingRequest {
  type: 'FeatureCollection';
  routingparams: RoutingParams;
  authentication?: { channel?: string };
  crs?: Crs;
  features: RoutingFeature[];
}

/** EMULATOR CHOICE (not shown): the most points in one routing request (MATRIX: end points). */
export const ROUTING_MAX_POINTS = 1000;

/**
 * EMULATOR CHOICE for the feature properties the spec does not show:
 * - ROUTE: one LineString feature, properties `{ distance, duration, legs }` (one leg per pair of
 *   consecutive points).
 * - MATRIX: one Point feature per end point, in request order, properties
 *   `{ index, distance, duration }` (metres, seconds). The client also accepts a single feature
 *   with `distances`/`durations` arrays.
 * - TRIP: one LineString feature, properties `{ distance, duration, order, legs }` (`order` =
 *   input indices in visiting order; `legs` = `{ distance, duration }` between consecutive stops
 *   in visiting order, as ROUTE's `legs`).
 * - ISOCHRONE: a Polygon feature `{ type: 'isochrone', timeInMinutes | distanceInMeters }` and the
 *   origin Point feature `{ type: 'origin' }`.
 * - MATCH: as the spec shows (`properties.matchDestinations`).
 * Every answer carries collection-level `properties: { distance, duration }` where they make sense.
 */
export const routingResponseSchema = z.looseObject({
  type: z.literal('FeatureCollection'),
  bbox: bbox.nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  features: z.array(
    z.looseObject({
      type: z.literal('Feature'),
      geometry: anyGeometry.nullable(),
      properties: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
});
export type RoutingResponse = z.infer<typeof routingResponseSchema>;

export interface MatchDestination {
  isMatched: boolean;
  distance: number;
  inPoint: { type: 'Point'; coordinates: number[] };
  matchedPoint: { type: 'Point'; coordinates: number[] };
}

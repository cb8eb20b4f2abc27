/**
 * Reading routing answers. The spec shows only MATCH's properties; for the rest (contract/routing.ts EMULATOR
 * CHOICE) several plausible spellings are accepted and normalised.
 */
import type { LineString, MultiLineString, MultiPolygon, Polygon } from 'geojson';
import { z } from 'zod';
import type { MatchDestination, RoutingResponse } from '../contract/index.js';
import type { LonLat } from '../types.js';
import { check, invalid, toNumber } from './_parse.js';

type Props = Record<string, unknown>;
type Feature = RoutingResponse['features'][number];

const point = z.looseObject({ type: z.literal('Point'), coordinates: z.array(z.number()).min(2) });
const matchDestinationsSchema = z.array(
  z.looseObject({ isMatched: z.boolean(), distance: z.number(), inPoint: point, matchedPoint: point }),
);

const DISTANCE_KEYS = ['distance', 'Distance', 'distanceInMeters', 'length'] as const;
const DURATION_KEYS = ['duration', 'Duration', 'durationInSeconds', 'time', 'travelTime'] as const;

/**
 * One origin-destination pair. A destination the service leaves without a number (unreachable?)
 * fails the whole answer with a ResponseError naming it: the spec shows no unreachable form.
 */
export interface Leg {
  distance_m: number;
  duration_s: number;
}

export interface RouteResult {
  distance_m: number;
  duration_s: number;
  /** The route line (the first line feature), null when the answer has none. */
  geometry: LineString | MultiLineString | null;
  /** The collection-level properties, raw. */
  properties: Props;
  /**
   * Distance and duration per leg, between consecutive points of the route in travel order, when
   * the answer carries `legs` (the emulator does for ROUTE and TRIP); null when it does not.
   */
  legs: Leg[] | null;
}

export interface TripResult extends RouteResult {
  /** Input indices in visiting order, when the service says. */
  order: number[] | null;
}

export interface IsochroneResult {
  polygon: Polygon | MultiPolygon;
  /** The origin the service reports, if any. */
  origin: LonLat | null;
  properties: Props;
}

export interface MatchResult extends RouteResult {
  /** One per input point. */
  destinations: MatchDestination[];
}

function firstNumber(props: Props | null | undefined, keys: readonly string[]): number | undefined {
  if (!props) return undefined;
  for (const key of keys) {
    const n = toNumber(props[key]);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** Totals from the collection's properties, else from the first feature that has them. */
export function readTotals(
  response: RoutingResponse,
  what: string,
): { distance_m: number; duration_s: number } {
  let distance = firstNumber(response.properties, DISTANCE_KEYS);
  let duration = firstNumber(response.properties, DURATION_KEYS);
  for (const feature of response.features) {
    distance ??= firstNumber(feature.properties, DISTANCE_KEYS);
    duration ??= firstNumber(feature.properties, DURATION_KEYS);
  }
  if (distance === undefined) return invalid(what, ['properties', 'distance'], 'a distance', undefined);
  if (duration === undefined) return invalid(what, ['properties', 'duration'], 'a duration', undefined);
  return { distance_m: distance, duration_s: duration };
}

function lineOf(response: RoutingResponse): LineString | MultiLineString | null {
  const feature = response.features.find(
    (f) => f.geometry?.type === 'LineString' || f.geometry?.type === 'MultiLineString',
  );
  return (feature?.geometry as LineString | MultiLineString | undefined) ?? null;
}

/** `legs` from the collection's properties or a feature's; null unless every leg has both numbers. */
function legsOf(response: RoutingResponse): Leg[] | null {
  const raw = [response.properties, ...response.features.map((f) => f.properties)]
    .map((p) => p?.legs)
    .find(Array.isArray);
  if (raw === undefined) return null;
  const legs: Leg[] = [];
  for (const leg of raw) {
    const props = typeof leg === 'object' && leg !== null ? (leg as Props) : null;
    const distance_m = firstNumber(props, DISTANCE_KEYS);
    const duration_s = firstNumber(props, DURATION_KEYS);
    if (distance_m === undefined || duration_s === undefined) return null;
    legs.push({ distance_m, duration_s });
  }
  return legs;
}

export function readRoute(response: RoutingResponse, what: string): RouteResult {
  return {
    ...readTotals(response, what),
    geometry: lineOf(response),
    properties: response.properties ?? {},
    legs: legsOf(response),
  };
}

export function readTrip(response: RoutingResponse): TripResult {
  const route = readRoute(response, 'routing TRIP');
  const raw =
    response.features.map((f) => f.properties?.order).find(Array.isArray) ?? response.properties?.order;
  const order = Array.isArray(raw) && raw.every((v) => Number.isInteger(v)) ? (raw as number[]) : null;
  return { ...route, order };
}

/** One leg per destination, in request order: per-feature (by `index`, else order) or arrays. */
export function readMatrix(response: RoutingResponse, expected: number): Leg[] {
  const holder = [response.properties, ...response.features.map((f) => f.properties)].find(
    (p) => Array.isArray(p?.distances) || Array.isArray(p?.durations),
  );
  if (holder) return legsFromArrays(holder, expected);
  const features = response.features.filter((f) => !/start/i.test(String(f.properties?.type ?? '')));
  if (features.length !== expected)
    return invalid('routing MATRIX', ['features'], `${expected} end points`, features);
  const indexed = features.every((f) => Number.isInteger(f.properties?.index));
  const legs: Leg[] = new Array(expected);
  features.forEach((f, i) => {
    const at = indexed ? (f.properties?.index as number) : i;
    if (at < 0 || at >= expected || legs[at] !== undefined) {
      invalid(
        'routing MATRIX',
        ['features', i, 'properties', 'index'],
        `a unique index below ${expected}`,
        at,
      );
    }
    const where = ['features', i, 'properties'];
    const distance_m = firstNumber(f.properties, DISTANCE_KEYS);
    if (distance_m === undefined) invalid('routing MATRIX', [...where, 'distance'], 'a number', undefined);
    const duration_s = firstNumber(f.properties, DURATION_KEYS);
    if (duration_s === undefined) invalid('routing MATRIX', [...where, 'duration'], 'a number', undefined);
    legs[at] = { distance_m, duration_s };
  });
  return legs;
}

function legsFromArrays(props: Props, expected: number): Leg[] {
  const distances = props.distances;
  const durations = props.durations;
  if (!Array.isArray(distances) || distances.length !== expected) {
    return invalid('routing MATRIX', ['properties', 'distances'], `${expected} distances`, distances);
  }
  if (!Array.isArray(durations) || durations.length !== expected) {
    return invalid('routing MATRIX', ['properties', 'durations'], `${expected} durations`, durations);
  }
  return distances.map((d, i) => ({
    distance_m: toNumber(d) ?? invalid('routing MATRIX', ['properties', 'distances', i], 'a number', d),
    duration_s:
      toNumber(durations[i]) ??
      invalid('routing MATRIX', ['properties', 'durations', i], 'a number', durations[i]),
  }));
}

export function readIsochrone(response: RoutingResponse): IsochroneResult {
  const area = response.features.find(
    (f) => f.geometry?.type === 'Polygon' || f.geometry?.type === 'MultiPolygon',
  );
  if (area === undefined)
    return invalid('routing ISOCHRONE', ['features'], 'a Polygon feature', response.features);
  const point = response.features.find((f) => f.geometry?.type === 'Point')?.geometry?.coordinates;
  const origin = Array.isArray(point) ? ([Number(point[0]), Number(point[1])] as const) : null;
  return { polygon: area.geometry as Polygon | MultiPolygon, origin, properties: area.properties ?? {} };
}

export function readMatch(response: RoutingResponse, expected: number): MatchResult {
  const route = readRoute(response, 'routing MATCH');
  const index = response.features.findIndex((f: Feature) => Array.isArray(f.properties?.matchDestinations));
  if (index < 0) {
    return invalid(
      'routing MATCH',
      ['features', 0, 'properties', 'matchDestinations'],
      'an array',
      undefined,
    );
  }
  const path = ['features', index, 'properties', 'matchDestinations'];
  const raw = response.features[index]?.properties?.matchDestinations;
  const destinations = check(matchDestinationsSchema, raw, 'routing MATCH', path) as MatchDestination[];
  if (destinations.length !== expected)
    return invalid('routing MATCH', path, `${expected} entries`, destinations);
  return { ...route, destinations };
}

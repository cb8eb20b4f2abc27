/**
 * Geocoding and reverse geocoding: one POST endpoint, `searchparams.geocodingType` picks which.
 *
 * "No match" is data, not an error: the public client reads it as 200 with no features and
 * `properties.exception`; a 404 (or a 400/422 whose errCode says "no result") is read the same
 * way when its body carries an errCode, in case the real service reports it as an HTTP error.
 */

import type { GeocodeLocation, GeocodeRequest, GeocodeResponse, GeocodingType } from '../contract/index.js';
import { CRS84, geocodeResponseSchema } from '../contract/index.js';
import type { LonLat } from '../types.js';
import type { CallOptions, ClientContext } from './_context.js';
import { errorDetail } from './_failures.js';
import { check, invalid, toNumber } from './_parse.js';
import { checkPoints } from './coords.js';

/** A found location; components the service left empty are null. */
export interface GeocodeMatch {
  lon: number;
  lat: number;
  street: string | null;
  houseNo: string | null;
  zip: string | null;
  city: string | null;
  cityPart: string | null;
  district: string | null;
  /** ISO country code (`isoCountry`, else `country`). */
  isoCountry: string | null;
  description: string | null;
  /** Granularity of the match (`STREET`, `CITY`...), when the service says. */
  matchLevel: string | null;
}

export interface GeocodeResult {
  /** The first feature; null when nothing matched. */
  match: GeocodeMatch | null;
  /** How many features the service returned. */
  candidates: number;
  /** The service's reason when it found nothing (or warned). */
  exception?: { errCode: string; publicReport: string };
}

const NO_RESULT = /no_?(result|match)|not_?found/i;
/** An error body's code that says no result: NOT_FOUND is not one on a 404, where a path is what was not found. */
const NO_MATCH_CODE = /no_?(result|match)/i;

/** Geocodes an address. Coordinates are always requested as GEODECIMAL_POINT. */
export function geocode(
  ctx: ClientContext,
  location: GeocodeLocation,
  o?: CallOptions,
): Promise<GeocodeResult> {
  // The spec: "placeholder values are passed for GEOCODE".
  return send(ctx, 'GEOCODE', [0, 0], location, o);
}

/** Finds the address at a point. */
export async function reverseGeocode(
  ctx: ClientContext,
  point: LonLat,
  o?: CallOptions,
): Promise<GeocodeResult> {
  checkPoints('reverse geocoding', [point]);
  return send(ctx, 'REVERSE_GEOCODE', [point[0], point[1]], {}, o);
}

function send(
  ctx: ClientContext,
  type: GeocodingType,
  coordinates: [number, number],
  location: GeocodeLocation,
  o: CallOptions | undefined,
): Promise<GeocodeResult> {
  return ctx.transport.call(
    {
      service: 'geocoding',
      method: 'POST',
      base: ctx.base('geojson'),
      path: '/geocode',
      body: geocodeBody(type, coordinates, ctx.options.channel ?? '', location),
      parse: readGeocodeResponse,
      fromStatus: noMatchFromStatus,
    },
    o?.signal,
  );
}

/**
 * The request body, byte for byte `JSON.stringify` of the GeocodeRequest the spec describes, with
 * everything but the point and the location written once per geocoding type and channel. Turning
 * the whole object into JSON per request was 3.9 µs of CPU each (388 ms of a 100,000-row run);
 * only the point and the location vary from one request to the next.
 */
export function geocodeBody(
  type: GeocodingType,
  coordinates: readonly [number, number],
  channel: string,
  location: GeocodeLocation,
): string {
  const key = `${type}\n${channel}`;
  let tail = bodyTails.get(key);
  if (tail === undefined) {
    const rest: Omit<GeocodeRequest, 'type' | 'properties' | 'geometry' | 'location'> = {
      crs: CRS84,
      searchparams: { geocodingType: type, coordFormatOut: 'GEODECIMAL_POINT' },
      authentication: { channel },
    };
    // '{"crs":...,"authentication":{...}}' without its braces, between the point and the location.
    tail = `},${JSON.stringify(rest).slice(1, -1)},"location":`;
    if (bodyTails.size >= MAX_TAILS) bodyTails.clear();
    bodyTails.set(key, tail);
  }
  return `${BODY_HEAD}${JSON.stringify(coordinates)}${tail}${JSON.stringify(location)}}`;
}

const BODY_HEAD = '{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":';
/** Per geocoding type and channel; a process uses one or two channels, the bound is for safety. */
const bodyTails = new Map<string, string>();
const MAX_TAILS = 64;

/** Checks and normalises a geocoding answer. Exported for tests and for the emulator's self-checks. */
export function readGeocodeResponse(json: unknown): GeocodeResult {
  const response = check(geocodeResponseSchema, json, 'geocoding');
  const raw = response.properties?.exception;
  const exception =
    raw?.errCode !== undefined && raw.errCode !== null
      ? { errCode: String(raw.errCode), publicReport: raw.publicReport ?? '' }
      : undefined;
  const feature = response.features[0];
  const result: GeocodeResult = { match: null, candidates: response.features.length };
  if (exception !== undefined) result.exception = exception;
  if (feature !== undefined) result.match = readMatch(feature);
  return result;
}

function readMatch(feature: GeocodeResponse['features'][number]): GeocodeMatch {
  const [lon, lat] = pointOf(feature);
  const p = feature.properties ?? {};
  return {
    lon,
    lat,
    street: text(p.street),
    houseNo: text(p.houseNo),
    zip: text(p.zip),
    city: text(p.city),
    cityPart: text(p.cityPart),
    district: text(p.district),
    isoCountry: text(p.isoCountry) ?? text(p.country),
    description: text(p.description),
    matchLevel: text(p.matchLevel),
  };
}

/** The service fills unused components with '' or null; both read as null ("not given"). */
function text(value: string | null | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

/** The feature's point; the centre of its bbox when its geometry is not a point. */
function pointOf(feature: GeocodeResponse['features'][number]): [number, number] {
  const g = feature.geometry;
  if (g?.type === 'Point' && Array.isArray(g.coordinates)) {
    const lon = toNumber(g.coordinates[0]);
    const lat = toNumber(g.coordinates[1]);
    if (lon !== undefined && lat !== undefined) return [lon, lat];
    return invalid('geocoding', ['features', 0, 'geometry', 'coordinates'], '[lon, lat]', g.coordinates);
  }
  const b = feature.bbox;
  if (b && b.length >= 4)
    return [((b[0] as number) + (b[2] as number)) / 2, ((b[1] as number) + (b[3] as number)) / 2];
  return invalid('geocoding', ['features', 0, 'geometry'], 'a Point', g);
}

function noMatchFromStatus(status: number, text: string): GeocodeResult | undefined {
  if (status !== 404 && status !== 400 && status !== 422) return undefined;
  // A 404 is "no match" as a geocoding answer (a FeatureCollection with its exception) or an error
  // body saying no result or match; a bare `{ errCode: NOT_FOUND }` is what a wrong base address
  // answers (the emulator's unknown path does), and read as no match it failed every row as a bad
  // address and was kept in the cache for a day.
  const answered = status === 404 ? answerException(text) : undefined;
  const detail = answered ?? errorDetail(text);
  const errCode = detail?.errCode;
  if (errCode === undefined) return undefined;
  if (answered === undefined && !(status === 404 ? NO_MATCH_CODE : NO_RESULT).test(errCode)) return undefined;
  return { match: null, candidates: 0, exception: { errCode, publicReport: detail?.publicReport ?? '' } };
}

/** The `properties.exception` of a body shaped as a geocoding answer, else undefined. */
function answerException(text: string): { errCode: string; publicReport?: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (body === null || typeof body !== 'object') return undefined;
  const answer = body as { type?: unknown; properties?: { exception?: unknown } };
  const exception = answer.properties?.exception;
  if (answer.type !== 'FeatureCollection' || exception === null || typeof exception !== 'object')
    return undefined;
  const { errCode, publicReport } = exception as Record<string, unknown>;
  if (typeof errCode !== 'string') return undefined;
  return { errCode, ...(typeof publicReport === 'string' ? { publicReport } : {}) };
}

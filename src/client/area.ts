/**
 * Area boundaries: GeoJSON FeatureCollections for a point, a rectangle or OSM ids. The boundary
 * property names are not shown in the spec; each feature is normalised to a name, a key, a level
 * and a polygon, from whichever of the plausible spellings the service used.
 */
import type { MultiPolygon, Polygon } from 'geojson';
import type {
  AreaCommonBody,
  AreaOsmidBody,
  AreaPointBody,
  AreaRectangleBody,
  AreaResponse,
} from '../contract/index.js';
import { areaResponseSchema } from '../contract/index.js';
import type { LonLat } from '../types.js';
import { checkAreaCommon, checkLevel, checkList, checkNumber } from './_arguments.js';
import type { CallOptions, ClientContext } from './_context.js';
import { check, invalid, toNumber } from './_parse.js';
import type { QueryValue } from './_query.js';
import { buildQuery } from './_query.js';
import { checkPoints } from './coords.js';

export type AreaCommon = AreaCommonBody;

export interface AreaPointQuery extends AreaCommon {
  level: number;
  latitude: number;
  longitude: number;
}

export interface AreaFeature {
  /** Absent when the service does not say. */
  osmid?: number;
  /** An official key (German ARS), else the OSM id, as text. */
  key: string;
  name: string;
  /** The boundary's level, else the level that was asked for. */
  level: number;
  isoCountry: string | null;
  geometry: Polygon | MultiPolygon;
  /**
   * The area's own bounding box, [west, south, east, north] in WGS84, when the service sent one with
   * the feature: that of the whole area, where the geometry may be simplified (reduceGeometry, zoom).
   */
  bbox?: [number, number, number, number];
  /** The feature's properties as the service sent them. */
  properties: Record<string, unknown>;
}

export interface AreaResult {
  features: AreaFeature[];
  bbox: number[] | null;
}

const NAME_KEYS = ['name', 'Name', 'localName', 'displayName'] as const;
const KEY_KEYS = ['key', 'Key', 'ars', 'ARS', 'ags', 'AGS', 'id', 'osmid', '_osmid', 'osm_id'] as const;
const OSMID_KEYS = ['osmid', '_osmid', 'osm_id', 'osmId'] as const;
const LEVEL_KEYS = ['level', 'admin_level', 'adminLevel'] as const;
const COUNTRY_KEYS = ['isoCountry', 'iso_country', 'countryCode', 'isoCountryCode', 'country'] as const;

function commonQuery(c: AreaCommon, channel: string | undefined): Record<string, QueryValue> {
  return {
    channel,
    isoCountries: c.isoCountries,
    isoLanguages: c.isoLanguages,
    reduceGeometry: c.reduceGeometry,
    zoom: c.zoom,
  };
}

function send(
  ctx: ClientContext,
  level: number | undefined,
  languages: readonly string[] | undefined,
  method: 'GET' | 'POST',
  path: string,
  query: Record<string, QueryValue>,
  body: object | undefined,
  o: CallOptions | undefined,
): Promise<AreaResult> {
  return ctx.transport.call(
    {
      service: 'area',
      method,
      base: ctx.base('area'),
      path: `/api/v2/Boundaries/${path}`,
      query: buildQuery(query),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      parse: (json) => readAreaResponse(json, level, languages),
    },
    o?.signal,
  );
}

/** Boundaries at `level` containing one point (GET form). */
export async function areaPoint(ctx: ClientContext, q: AreaPointQuery, o?: CallOptions): Promise<AreaResult> {
  checkLevel('area point', q.level);
  checkAreaCommon('area point', q);
  checkPoints('area point', [[q.longitude, q.latitude]]);
  const query = {
    level: q.level,
    latitude: q.latitude,
    longitude: q.longitude,
    ...commonQuery(q, ctx.options.channel),
  };
  return send(ctx, q.level, q.isoLanguages, 'GET', 'point', query, undefined, o);
}

/** Boundaries at `level` containing any of several points (POST form). */
export async function areaPoints(
  ctx: ClientContext,
  body: AreaPointBody,
  o?: CallOptions,
): Promise<AreaResult> {
  checkLevel('area points', body.level);
  checkAreaCommon('area points', body);
  checkList('area points', 'points', body.points);
  checkPoints(
    'area points',
    body.points.map((p) => [p.longitude, p.latitude]),
  );
  return send(ctx, body.level, body.isoLanguages, 'POST', 'point', { channel: ctx.options.channel }, body, o);
}

/**
 * Boundaries at `level` meeting a rectangle. The GET form's rectangle parameters are not shown in
 * the spec; it sends the body's corners flattened (`northEastLatitude`...), the emulator's choice.
 */
export async function areaRectangle(
  ctx: ClientContext,
  body: AreaRectangleBody,
  o?: CallOptions,
  form: 'GET' | 'POST' = 'POST',
): Promise<AreaResult> {
  checkLevel('area rectangle', body.level);
  checkAreaCommon('area rectangle', body);
  const corners = [body.boundingBox?.northEast, body.boundingBox?.southWest];
  checkPoints(
    'area rectangle corners (northEast, southWest)',
    corners.map((c) => [c?.longitude, c?.latitude] as unknown as LonLat),
  );
  if (form === 'POST')
    return send(
      ctx,
      body.level,
      body.isoLanguages,
      'POST',
      'rectangle',
      { channel: ctx.options.channel },
      body,
      o,
    );
  const { northEast, southWest } = body.boundingBox;
  const query = {
    level: body.level,
    northEastLatitude: northEast.latitude,
    northEastLongitude: northEast.longitude,
    southWestLatitude: southWest.latitude,
    southWestLongitude: southWest.longitude,
    ...commonQuery(body, ctx.options.channel),
  };
  return send(ctx, body.level, body.isoLanguages, 'GET', 'rectangle', query, undefined, o);
}

/** Boundaries by OpenStreetMap id. */
export async function areaOsmids(
  ctx: ClientContext,
  body: AreaOsmidBody,
  o?: CallOptions,
): Promise<AreaResult> {
  checkAreaCommon('area osmid', body);
  checkList('area osmid', 'osmids', body?.osmids);
  for (const [i, id] of body.osmids.entries())
    checkNumber(
      'area osmid',
      `osmids[${i}]`,
      id,
      'a positive whole number',
      (n) => Number.isInteger(n) && n > 0,
    );
  return send(ctx, undefined, body.isoLanguages, 'POST', 'osmid', { channel: ctx.options.channel }, body, o);
}

/**
 * Checks an area answer and normalises its features; `level` is the one asked for, if any, and
 * `languages` those asked for (`isoLanguages`): a name in the first of them is taken first.
 */
export function readAreaResponse(json: unknown, level?: number, languages?: readonly string[]): AreaResult {
  const response = check(areaResponseSchema, json, 'area');
  return {
    features: response.features.map((f, i) => readFeature(f, i, level, languages)),
    bbox: response.bbox ?? null,
  };
}

function pick(props: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) {
    const value = props[key];
    if (value !== undefined && value !== null && value !== '') return value;
  }
  return undefined;
}

function nameOf(props: Record<string, unknown>, languages: readonly string[] = []): unknown {
  const names = props.names ?? props.Names;
  const byLanguage = names !== null && typeof names === 'object' ? (names as Record<string, unknown>) : {};
  // Asked for English names, a boundary that carries one by language is named in English even
  // when its plain `name` is the German one.
  for (const language of languages) {
    const named = pick(byLanguage, [language]) ?? pick(props, [`name:${language}`]);
    if (named !== undefined) return named;
  }
  const direct = pick(props, NAME_KEYS);
  if (direct !== undefined) return direct;
  if (names !== null && typeof names === 'object')
    return pick(byLanguage, ['de', 'en', ...Object.keys(byLanguage)]);
  return pick(props, ['name:de', 'name:en']);
}

/** A GeoJSON bbox (2D, or 3D with its heights) as [west, south, east, north]; none when malformed. */
function boxOf(bbox: readonly number[] | undefined): [number, number, number, number] | undefined {
  if (bbox === undefined || (bbox.length !== 4 && bbox.length !== 6)) return undefined;
  const half = bbox.length / 2;
  const box = [bbox[0], bbox[1], bbox[half], bbox[half + 1]] as [number, number, number, number];
  return box.every(Number.isFinite) && box[1] <= box[3] ? box : undefined;
}

function readFeature(
  feature: AreaResponse['features'][number],
  i: number,
  asked: number | undefined,
  languages: readonly string[] | undefined,
): AreaFeature {
  const props = feature.properties ?? {};
  const geometry = feature.geometry;
  if (geometry === null || (geometry.type !== 'Polygon' && geometry.type !== 'MultiPolygon')) {
    return invalid(
      'area',
      ['features', i, 'geometry', 'type'],
      'Polygon or MultiPolygon',
      geometry?.type ?? null,
    );
  }
  if (!Array.isArray(geometry.coordinates)) {
    return invalid('area', ['features', i, 'geometry', 'coordinates'], 'an array', geometry.coordinates);
  }
  const name = nameOf(props, languages);
  if (typeof name !== 'string') return invalid('area', ['features', i, 'properties', 'name'], 'a name', name);
  const key = pick(props, KEY_KEYS);
  if (typeof key !== 'string' && typeof key !== 'number') {
    return invalid('area', ['features', i, 'properties', 'key'], 'a key or an id', key);
  }
  const level = toNumber(pick(props, LEVEL_KEYS)) ?? asked;
  if (level === undefined)
    return invalid('area', ['features', i, 'properties', 'level'], 'a level', undefined);
  const country = pick(props, COUNTRY_KEYS);
  const area: AreaFeature = {
    key: String(key),
    name,
    level,
    isoCountry: typeof country === 'string' ? country : null,
    geometry: geometry as unknown as Polygon | MultiPolygon,
    properties: props,
  };
  const osmid = toNumber(pick(props, OSMID_KEYS));
  if (osmid !== undefined) area.osmid = osmid;
  const bbox = boxOf(feature.bbox);
  if (bbox !== undefined) area.bbox = bbox;
  return area;
}

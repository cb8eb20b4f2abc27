/**
 * {area_base}/api/v2/Boundaries/point|rectangle|osmid: the boundaries that cover points, meet a
 * rectangle or carry given ids, as a FeatureCollection built from pre-serialized features.
 */

import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import type { Reply, ServiceRequest } from '../_http.js';
import { badRequest, jsonText } from '../_http.js';
import type { HandlerContext, Route } from '../_routes.js';
import { apiKeyDenied } from '../auth.js';
import type { Area, AreaLevel, BoundaryData } from '../datasets/boundaries.js';
import type { BBox } from '../lib/_geo.js';
import { extendBox } from '../lib/_geo.js';
import type { Rect } from './geometry.js';
import { areaJson, intersectsRect, tolerance } from './geometry.js';
import type { CommonParams } from './params.js';
import { common, geoPoint, points, source } from './params.js';

const BASE = '/api/v2/Boundaries';

export function areaRoutes(ctx: HandlerContext): Route[] {
  const guarded =
    (fn: (req: ServiceRequest) => Reply) =>
    (req: ServiceRequest): Reply => {
      const denied = apiKeyDenied(ctx.auth.apiKey(req.query));
      if (denied) return denied;
      if (req.body.kind === 'invalid') return badRequest('Der Anfragekörper ist kein gültiges JSON.');
      return fn(req);
    };
  const point = guarded((req) => pointQuery(ctx.data.boundaries, req));
  const rectangle = guarded((req) => rectangleQuery(ctx.data.boundaries, req));
  const osmid = guarded((req) => osmidQuery(ctx.data.boundaries, req));
  return [
    { method: 'GET', path: `${BASE}/point`, iface: 'area', handle: point },
    { method: 'POST', path: `${BASE}/point`, iface: 'area', handle: point },
    { method: 'GET', path: `${BASE}/rectangle`, iface: 'area', handle: rectangle },
    { method: 'POST', path: `${BASE}/rectangle`, iface: 'area', handle: rectangle },
    { method: 'POST', path: `${BASE}/osmid`, iface: 'area', handle: osmid },
  ];
}

const bodyOf = (req: ServiceRequest) => (req.body.kind === 'json' ? req.body.value : undefined);

function pointQuery(b: BoundaryData, req: ServiceRequest): Reply {
  const get = source(req.query, bodyOf(req));
  const params = common(get);
  if (typeof params === 'string') return badRequest(params);
  const list = points(get, bodyOf(req));
  if (typeof list === 'string') return badRequest(list);
  const level = params.germany ? b.levels.get(params.level) : undefined;
  const found = new Set<Area>();
  if (level) {
    for (const p of list) {
      const area = coveringArea(level, p.longitude, p.latitude);
      if (area) found.add(area);
    }
  }
  return collection([...found], params);
}

/**
 * The area covering a point, boundary included. Where two cover it (a shared border), the one with
 * the lowest key (ARS) wins: candidates are tried in key order.
 */
export function coveringArea(level: AreaLevel, lon: number, lat: number): Area | undefined {
  const candidates = level.index.search(lon, lat, lon, lat).sort((x, y) => x - y);
  for (const i of candidates) {
    const area = level.areas[i] as Area;
    if (booleanPointInPolygon([lon, lat], area.geometry, { ignoreBoundary: false })) return area;
  }
  return undefined;
}

function rectangleQuery(b: BoundaryData, req: ServiceRequest): Reply {
  const body = bodyOf(req);
  const get = source(req.query, body);
  const params = common(get);
  if (typeof params === 'string') return badRequest(params);
  const box = (body as { boundingBox?: { northEast?: unknown; southWest?: unknown } } | undefined)
    ?.boundingBox;
  const ne = geoPoint(
    box?.northEast ?? { latitude: get('northEastLatitude'), longitude: get('northEastLongitude') },
    'northEast',
  );
  const sw = geoPoint(
    box?.southWest ?? { latitude: get('southWestLatitude'), longitude: get('southWestLongitude') },
    'southWest',
  );
  if (typeof ne === 'string') return badRequest(ne);
  if (typeof sw === 'string') return badRequest(sw);
  if (ne.latitude < sw.latitude || ne.longitude < sw.longitude) {
    return badRequest('northEast muss nördlich und östlich von southWest liegen.');
  }
  const rect: Rect = { west: sw.longitude, south: sw.latitude, east: ne.longitude, north: ne.latitude };
  const level = params.germany ? b.levels.get(params.level) : undefined;
  const found = level
    ? level.index
        .search(rect.west, rect.south, rect.east, rect.north)
        .sort((x, y) => x - y)
        .map((i) => level.areas[i] as Area)
        .filter((a) => intersectsRect(a.geometry, rect))
    : [];
  return collection(found, params);
}

function osmidQuery(b: BoundaryData, req: ServiceRequest): Reply {
  const body = bodyOf(req);
  const params = common(source(req.query, body), false);
  if (typeof params === 'string') return badRequest(params);
  const ids: unknown[] = [];
  const single = req.query.get('osmid');
  if (single !== null && single.trim() !== '') ids.push(Number(single));
  const list = (body as { osmids?: unknown } | undefined)?.osmids;
  if (list !== undefined && list !== null) {
    if (!Array.isArray(list)) return badRequest('`osmids` muss eine Liste ganzer Zahlen sein.');
    ids.push(...list);
  }
  if (ids.length === 0) return badRequest('`osmid` (Query) oder `osmids` (Body) ist erforderlich.');
  if (!ids.every((id) => typeof id === 'number' && Number.isInteger(id))) {
    return badRequest('Jede OSM-Id muss eine ganze Zahl sein.');
  }
  const found = new Set<Area>();
  for (const id of ids as number[]) {
    const area = b.byOsmid.get(id);
    if (area && params.germany) found.add(area);
  }
  return collection([...found], params);
}

function collection(areas: readonly Area[], params: CommonParams): Reply {
  const tol = tolerance(params.tolerance.reduceGeometry, params.tolerance.zoom);
  let box: BBox | null = null;
  for (const a of areas) box = extendBox(box, a.bbox);
  const head = box
    ? `{"type":"FeatureCollection","bbox":${JSON.stringify(box)},`
    : '{"type":"FeatureCollection",';
  return jsonText(200, `${head}"features":[${areas.map((a) => areaJson(a, tol)).join(',')}]}`);
}

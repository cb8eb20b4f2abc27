/**
 * {elevation_base}/api/v2/Elevation/point: metres above sea level, from the SRTM tile where it
 * covers, else interpolated from the nearest places' DEM elevations; null outside Germany.
 */
import type { ElevationPointResult, ElevationResponse, GeoPoint } from '../contract/index.js';
import { ELEVATION_MAX_POINTS } from '../contract/index.js';
import type { Reply, ServiceRequest } from './_http.js';
import { badRequest, isRecord, json, numberParam } from './_http.js';
import type { HandlerContext, Route } from './_routes.js';
import { apiKeyDenied } from './auth.js';
import type { Datasets } from './datasets/index.js';
import { isLatitude, isLongitude } from './lib/_geo.js';

export const ELEVATION_PATH = '/api/v2/Elevation/point';

/** Places used for inverse-distance weighting, and how far they may be. */
const IDW_NEIGHBOURS = 4;
const IDW_MAX_METRES = 30_000;

export function elevationRoutes(ctx: HandlerContext): Route[] {
  const handle = (req: ServiceRequest): Reply => {
    const denied = apiKeyDenied(ctx.auth.apiKey(req.query));
    if (denied) return denied;
    const points = req.method === 'GET' ? queryPoint(req.query) : bodyPoints(req);
    if (typeof points === 'string') return badRequest(points);
    const answer: ElevationResponse = { points: points.map((p) => withElevation(ctx.data, p)) };
    return json(200, answer);
  };
  return [
    { method: 'GET', path: ELEVATION_PATH, iface: 'elevation', handle },
    { method: 'POST', path: ELEVATION_PATH, iface: 'elevation', handle },
  ];
}

function queryPoint(query: URLSearchParams): GeoPoint[] | string {
  const latitude = numberParam(query, 'latitude');
  const longitude = numberParam(query, 'longitude');
  if (!isLatitude(latitude) || !isLongitude(longitude)) {
    return 'latitude (-90 bis 90) und longitude (-180 bis 180) sind als Zahlen erforderlich.';
  }
  return [{ latitude, longitude }];
}

/** One bad point fails the whole request, and the message names its index. */
function bodyPoints(req: ServiceRequest): GeoPoint[] | string {
  if (req.body.kind === 'invalid') return 'Der Anfragekörper ist kein gültiges JSON.';
  const body = req.body.kind === 'json' ? req.body.value : undefined;
  const list = isRecord(body) ? body.points : undefined;
  if (!Array.isArray(list) || list.length === 0) return '`points` muss eine nicht leere Liste sein.';
  if (list.length > ELEVATION_MAX_POINTS) {
    return `Höchstens ${ELEVATION_MAX_POINTS} Punkte je Anfrage erlaubt, erhalten: ${list.length}.`;
  }
  const out: GeoPoint[] = [];
  for (const [i, p] of list.entries()) {
    if (!isRecord(p) || !isLatitude(p.latitude) || !isLongitude(p.longitude)) {
      return `points[${i}]: latitude (-90 bis 90) und longitude (-180 bis 180) müssen Zahlen sein.`;
    }
    out.push({ latitude: p.latitude, longitude: p.longitude });
  }
  return out;
}

function withElevation(data: Datasets, p: GeoPoint): ElevationPointResult {
  return {
    latitude: p.latitude,
    longitude: p.longitude,
    elevation: elevationAt(data, p.longitude, p.latitude),
  };
}

/** Whole metres, or null where there are no data (outside Germany's land area). */
export function elevationAt(data: Datasets, lon: number, lat: number): number | null {
  if (!data.boundaries.country.contains(lon, lat)) return null;
  const srtm = data.srtm.elevation(lon, lat);
  if (srtm !== null) return srtm;
  let weight = 0;
  let sum = 0;
  for (const { index, distance } of data.places.index.nearest(lon, lat, IDW_NEIGHBOURS, IDW_MAX_METRES)) {
    const elevation = data.places.places[index]?.elevation;
    if (elevation === null || elevation === undefined) continue;
    if (distance < 1) return elevation;
    const w = 1 / distance ** 2;
    weight += w;
    sum += w * elevation;
  }
  return weight > 0 ? Math.round(sum / weight) : null;
}

/** POST {geojson_base}/route: ROUTE, MATRIX, TRIP, ISOCHRONE and MATCH on a great-circle model. */
import type { Reply, ServiceRequest } from '../_http.js';
import { badRequest, json, serviceError } from '../_http.js';
import type { HandlerContext, Route } from '../_routes.js';
import type { Collection } from './compute.js';
import { matrix, route, trip } from './compute.js';
import { isochrone, isochroneLimits } from './isochrone.js';
import { match } from './match.js';
import { offRoads } from './network.js';
import { PROFILES } from './profiles.js';
import { parseRouting } from './request.js';

export const ROUTE_PATH = '/api_rst/v2/geojson/route';

/** routing and geocoding: no key -> 412 (the spec), a wrong key -> 401. */
export function geojsonAuth(ctx: HandlerContext, req: ServiceRequest): Reply | null {
  const check = ctx.auth.apiKey(req.query);
  if (check === 'missing') return serviceError(412, 'PRECONDITION_FAILED', 'Es wurde kein apiKey übergeben.');
  if (check === 'wrong') return serviceError(401, 'UNAUTHORIZED', 'Der apiKey ist ungültig.');
  if (req.body.kind !== 'json') return badRequest('Der Anfragekörper ist kein gültiges JSON.');
  return null;
}

export function routingRoutes(ctx: HandlerContext): Route[] {
  const handle = (req: ServiceRequest): Reply => {
    const denied = geojsonAuth(ctx, req);
    if (denied) return denied;
    const parsed = parseRouting(req.body.kind === 'json' ? req.body.value : undefined);
    if (typeof parsed === 'string') return badRequest(parsed);
    const off = offRoads(parsed);
    if (off !== undefined) return badRequest(off);
    const profile = PROFILES[parsed.speedProfile];
    const format = parsed.coordFormatOut;
    let answer: Collection;
    switch (parsed.type) {
      case 'ROUTE':
        answer = route(profile, format, parsed.points);
        break;
      case 'MATRIX':
        answer = matrix(profile, format, parsed.start, parsed.ends);
        break;
      case 'TRIP':
        answer = trip(profile, format, parsed.points, parsed.roundTrip);
        break;
      case 'MATCH':
        answer = match(ctx.data, profile, format, parsed.points);
        break;
      case 'ISOCHRONE': {
        const limits = isochroneLimits(parsed.params);
        if (typeof limits === 'string') return badRequest(limits);
        answer = isochrone(profile, format, parsed.origin, limits);
        break;
      }
    }
    return json(200, answer);
  };
  return [{ method: 'POST', path: ROUTE_PATH, iface: 'routing', handle }];
}

/**
 * The token endpoints: GET /api_rst/api/autocompleteToken?apiKey=... and the legacy
 * GET /api_rst/v2/authtoken?systemPartner=...&securityID=... (either accepts either credential).
 */
import type { Reply, ServiceRequest } from './_http.js';
import { json, serviceError } from './_http.js';
import type { HandlerContext, Route } from './_routes.js';

export const TOKEN_PATHS = ['/api_rst/api/autocompleteToken', '/api_rst/v2/authtoken'] as const;

export function tokenRoutes(ctx: HandlerContext): Route[] {
  const handle = (req: ServiceRequest): Reply => {
    const check = ctx.auth.apiKey(req.query);
    if (check !== 'ok') {
      const why = check === 'missing' ? 'Es wurde kein Schlüssel übergeben.' : 'Der Schlüssel ist ungültig.';
      return serviceError(401, 'UNAUTHORIZED', why);
    }
    // The token travels as a JSON string, as the spec says.
    return json(200, ctx.auth.issueToken());
  };
  return TOKEN_PATHS.map((path) => ({ method: 'GET', path, iface: 'token', handle }));
}

/** POST {autocomplete_url}: suggestions for a partial query, behind a Bearer token. */
import type { GeoEntity } from '../../contract/index.js';
import type { Reply, ServiceRequest } from '../_http.js';
import { badRequest, json, serviceError } from '../_http.js';
import type { HandlerContext, Route } from '../_routes.js';
import type { Datasets } from '../datasets/index.js';
import type { Repository } from './entities.js';
import { buildRepository } from './entities.js';
import { validateRequest } from './request.js';
import type { Suggestion } from './search.js';
import { suggest } from './search.js';

export const AUTOCOMPLETE_PATH = '/api/v5/Autocomplete';

/** The suggestion repository, built on first use. */
export const repositoryOf = (data: Datasets): Repository => data.derive('autocomplete', buildRepository);

export function autocompleteRoutes(ctx: HandlerContext): Route[] {
  const handle = (req: ServiceRequest): Reply => {
    const token = ctx.auth.bearer(req.headers, req.query);
    if (token !== 'ok') {
      const why = token === 'expired' ? 'ist abgelaufen' : token === 'missing' ? 'fehlt' : 'ist ungültig';
      return serviceError(401, 'UNAUTHORIZED', `Das Token ${why}. Bitte ein neues Token anfordern.`);
    }
    if (req.body.kind !== 'json') return badRequest('Der Anfragekörper ist kein gültiges JSON.');
    const valid = validateRequest(req.body.value);
    if (typeof valid === 'string') return badRequest(valid);
    const found = suggest(repositoryOf(ctx.data), valid);
    const entity = (s: Suggestion) => toGeoEntity(s, valid.language);
    return json(200, valid.geoJson ? collection(found, entity) : { geoEntities: found.map(entity) });
  };
  return [{ method: 'POST', path: AUTOCOMPLETE_PATH, iface: 'autocomplete', handle }];
}

function toGeoEntity({ entity: e, score }: Suggestion, language: 'de' | 'en'): GeoEntity {
  return {
    geoEntityType: e.type,
    countryLongName: language === 'en' ? 'Germany' : 'Deutschland',
    country: 'DE',
    state: e.state || null,
    neighbourhood: null,
    district: e.district,
    county: null,
    city: e.city,
    cityPart: e.cityPart,
    zip: e.zip,
    street: null,
    village: null,
    houseNo: null,
    geometry: { type: 'Point', coordinates: [e.lon, e.lat] },
    poi: null,
    osmid: e.osmid,
    repositoryScore: score,
    displayValue: e.displayValue,
  };
}

/** geoJson: true. The property names are capitalised, as the spec's examples show them. */
function collection(found: Suggestion[], toEntity: (s: Suggestion) => GeoEntity) {
  return {
    type: 'FeatureCollection',
    features: found.map((s) => {
      const { geometry, osmid, ...rest } = toEntity(s);
      const properties: Record<string, unknown> = { _osmid: osmid };
      for (const [key, value] of Object.entries(rest)) properties[capitalise(key)] = value;
      return { type: 'Feature', geometry, properties };
    }),
  };
}

function capitalise(key: string): string {
  return key.charAt(0).toUpperCase() + key.slice(1);
}

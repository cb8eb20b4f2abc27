/**
 * POST {geojson_base}/geocode: GEOCODE (zip/city -> a place row of the postal data) and
 * REVERSE_GEOCODE (coordinate -> nearest place row). EMULATOR CHOICE: there are no street data,
 * so street and house number are never verified: the answer leaves them empty and `matchLevel`
 * says what did match ('ZIP' or 'CITY').
 */
import type { CoordFormat, GeocodeFeatureProperties, GeocodeLocation } from '../contract/index.js';
import { GEOCODE_NO_MATCH_CODE } from '../contract/index.js';
import type { Reply, ServiceRequest } from './_http.js';
import { badRequest, isRecord, json } from './_http.js';
import type { HandlerContext, Route } from './_routes.js';
import type { Datasets } from './datasets/index.js';
import type { Located } from './datasets/locator.js';
import { nameMatchQuality } from './datasets/locator.js';
import { isCoordFormat, toFormat } from './lib/_coords.js';
import { isLatitude, isLongitude } from './lib/_geo.js';
import { fold } from './lib/_text.js';
import { geojsonAuth } from './routing/handler.js';

export const GEOCODE_PATH = '/api_rst/v2/geojson/geocode';
/** Reverse geocoding finds nothing farther than this from a place. */
export const REVERSE_MAX_METRES = 25_000;
const GERMANY = new Set(['DE', 'D', 'DEU', 'DEUTSCHLAND', 'GERMANY']);

export function geocodingRoutes(ctx: HandlerContext): Route[] {
  const handle = (req: ServiceRequest): Reply => {
    const denied = geojsonAuth(ctx, req);
    if (denied) return denied;
    const body = req.body.kind === 'json' ? req.body.value : undefined;
    if (!isRecord(body) || !isRecord(body.searchparams)) return badRequest('searchparams fehlt.');
    const { geocodingType, coordFormatOut = 'GEODECIMAL_POINT' } = body.searchparams;
    if (!isCoordFormat(coordFormatOut)) return badRequest('searchparams.coordFormatOut ist unbekannt.');
    if (geocodingType === 'GEOCODE') {
      const location = readLocation(body.location);
      if (typeof location === 'string') return badRequest(location);
      return answer(geocode(ctx.data, location), coordFormatOut, 'Die Adresse wurde nicht gefunden.');
    }
    if (geocodingType === 'REVERSE_GEOCODE') {
      const c = isRecord(body.geometry) ? body.geometry.coordinates : undefined;
      if (!Array.isArray(c) || !isLongitude(c[0]) || !isLatitude(c[1])) {
        return badRequest('geometry.coordinates muss [Länge, Breite] mit gültigen Zahlen sein.');
      }
      const near = ctx.data.postal.placeIndex.nearest(c[0], c[1], 1, REVERSE_MAX_METRES)[0];
      const row = near ? ctx.data.postal.places[near.index] : undefined;
      return answer(
        row ? { row, level: 'ZIP' } : null,
        coordFormatOut,
        'Zu dieser Koordinate gibt es keine Adresse.',
      );
    }
    return badRequest('searchparams.geocodingType muss GEOCODE oder REVERSE_GEOCODE sein.');
  };
  return [{ method: 'POST', path: GEOCODE_PATH, iface: 'geocoding', handle }];
}

const FIELDS = [
  'country',
  'isoCountry',
  'district',
  'zip',
  'city',
  'cityAddOn',
  'cityPart',
  'street',
  'houseNo',
  'singleSlot',
];

function readLocation(value: unknown): GeocodeLocation | string {
  if (value === undefined || value === null) return {};
  if (!isRecord(value)) return '`location` muss ein Objekt sein.';
  const out: Record<string, string> = {};
  for (const key of FIELDS) {
    const v = value[key];
    if (v === undefined || v === null) continue;
    if (typeof v !== 'string' && typeof v !== 'number') return `location.${key} muss ein Text sein.`;
    out[key] = String(v).trim();
  }
  return out;
}

export function geocode(data: Datasets, loc: GeocodeLocation): Located | null {
  const country = (loc.country || loc.isoCountry || '').toUpperCase();
  if (country !== '' && !GERMANY.has(country)) return null;
  let { zip, city } = loc;
  if (!zip && !city && loc.singleSlot) ({ zip, city } = data.locator.parseSingleSlot(loc.singleSlot));
  if (zip && !/^\d{5}$/.test(zip)) return null;
  const found = data.locator.locate(zip || undefined, city || undefined);
  if (!found || !loc.district) return found;
  const district = fold(loc.district);
  const fits = [found.row.state, found.row.district].some((n) => nameMatchQuality(district, fold(n)) > 0);
  return fits ? found : null;
}

function answer(found: Located | null, format: CoordFormat, noMatch: string): Reply {
  if (!found) {
    return json(200, {
      type: 'FeatureCollection',
      features: [],
      properties: { exception: { errCode: GEOCODE_NO_MATCH_CODE, publicReport: noMatch } },
    });
  }
  const { row, level } = found;
  const [x, y] = toFormat(format, row.lon, row.lat);
  const bbox = [x, y, x, y];
  const properties: GeocodeFeatureProperties = {
    description: `${row.zip} ${row.name}, ${row.state}`,
    city: row.name,
    country: 'Deutschland',
    isoCountry: 'DE',
    district: row.state,
    cityAddon: '',
    cityPart: '',
    houseNo: '',
    street: '',
    zip: row.zip,
    matchLevel: level,
  };
  return json(200, {
    type: 'FeatureCollection',
    bbox,
    features: [{ type: 'Feature', bbox, geometry: { type: 'Point', coordinates: [x, y] }, properties }],
  });
}

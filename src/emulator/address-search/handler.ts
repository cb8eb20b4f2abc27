/** {address_search_base}/ByBranchesAndAddress|Position|Rectangle, ByCustomerId, ByIdentifier. */
import type { AddressSearchEndpoint } from '../../contract/index.js';
import type { Reply, ServiceRequest } from '../_http.js';
import { plain } from '../_http.js';
import type { HandlerContext, Route } from '../_routes.js';
import type { Datasets } from '../datasets/index.js';
import { haversine } from '../lib/_geo.js';
import { language } from './locale.js';
import { byCustomerId, byIdentifier } from './lookups.js';
import * as P from './params.js';
import type { AddressIndex, AddressRecord } from './records.js';
import { buildAddressIndex } from './records.js';
import type { Answer } from './response.js';
import { distanceFrom, fail, found, notAuthenticated } from './response.js';
import type { Hit } from './search.js';
import { inRectangle, nearby, pageOfHits, recordFilter } from './search.js';
import type { SearchKind } from './where.js';
import { searchArea } from './where.js';

export const ADDRESS_SEARCH_BASE = '/addresssearch/v2';

type Search = Answer['search'];

/** The records and their indexes, built on first use. */
export const addressIndexOf = (data: Datasets): AddressIndex =>
  data.derive('addressIndex', buildAddressIndex);

export function addressSearchRoutes(ctx: HandlerContext): Route[] {
  const index = () => addressIndexOf(ctx.data);
  const endpoints: Record<AddressSearchEndpoint, (req: ServiceRequest, s: Search) => Reply> = {
    ByBranchesAndAddress: (req, s) => areaSearch(ctx, index(), req, s, 'address'),
    ByBranchesAndPosition: (req, s) => areaSearch(ctx, index(), req, s, 'position'),
    ByBranchesAndRectangle: (req, s) => areaSearch(ctx, index(), req, s, 'rectangle'),
    ByCustomerId: (req, s) => byCustomerId(index(), req, s),
    ByIdentifier: (req, s) => byIdentifier(index(), req, s),
  };
  return Object.entries(endpoints).map(([name, fn]) => ({
    method: 'GET',
    path: `${ADDRESS_SEARCH_BASE}/${name}`,
    iface: 'addressSearch',
    handle(req: ServiceRequest): Reply {
      const q = req.query;
      const search: Search = {
        branches: q.get('Branches') ?? '',
        catchwords: q.get('Catchwords') ?? '',
        x: '',
        y: '',
      };
      const auth = ctx.auth.basic(req.headers);
      if (auth === 'missing') {
        return plain(401, 'Access denied: the Authorization header with Basic authentication is missing.');
      }
      if (auth === 'wrong') return notAuthenticated(search);
      return fn(req, search);
    },
  }));
}

/** The three ByBranchesAnd* searches; parameter problems are checked in the spec's order of importance. */
function areaSearch(
  ctx: HandlerContext,
  index: AddressIndex,
  req: ServiceRequest,
  search: Search,
  kind: SearchKind,
) {
  const q = req.query;
  const expression = P.branches(q);
  if (P.isProblem(expression)) return fail(expression, search);
  const area = searchArea(ctx.data, q, kind);
  if (P.isProblem(area)) return fail(area, search);
  const radius = kind === 'rectangle' ? 0 : P.maxRadius(q);
  if (P.isProblem(radius)) return fail(radius, search);
  const paging = P.paging(q);
  if (P.isProblem(paging)) return fail(paging, search);
  const orderBy = P.orderBy(q);
  if (P.isProblem(orderBy)) return fail(orderBy, search);
  const lang = language(q);
  if (P.isProblem(lang)) return fail(lang, search);
  const { centres, rect } = area;
  const centre: [number, number] = rect
    ? [(rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2]
    : [centres[0]?.lon ?? 0, centres[0]?.lat ?? 0];
  search.x = String(centre[0]);
  search.y = String(centre[1]);
  const filter = recordFilter(expression, P.catchwords(q));
  const { within } = area;
  const accept =
    within === undefined ? filter : (r: AddressRecord) => filter(r) && within(r.row.lon, r.row.lat);
  const points = centres.map((c): [number, number] => [c.lon, c.lat]);
  const hits = !P.germany(q)
    ? []
    : rect
      ? inRectangle(index, rect, accept)
      : nearby(index, points, radius, accept);
  const toRef = distanceFrom(P.additionReference(req.rawQuery));
  // Rectangle hits have no search distance; distance orders use the rectangle's centre.
  const sortDistance = (h: Hit) =>
    toRef(h.record) ?? h.distance ?? haversine(centre[0], centre[1], h.record.row.lon, h.record.row.lat);
  const start = (paging.page - 1) * paging.top;
  const page = pageOfHits(hits, orderBy, sortDistance, start, start + paging.top);
  const geoItems = centres.map((c) => c.geoItem);
  return found(search, geoItems, page, paging, hits.length, toRef, lang);
}

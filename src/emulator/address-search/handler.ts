/** {address_search_base}/ByBranchesAndAddress|Position|Rectangle, ByCustomerId, ByIdentifier. */
import type { AddressSearchEndpoint, GeoItem } from '../../client/wire.js';
import { ADDRESS_SEARCH_STATUS } from '../../client/wire.js';
import type { Reply, ServiceRequest } from '../_http.js';
import { jsonText, plain } from '../_http.js';
import type { HandlerContext, Route } from '../_routes.js';
import { derive } from '../datasets/index.js';
import { haversine } from '../lib/_geo.js';
import type { Centre } from './locate.js';
import { geoItemFor, locateAddress } from './locate.js';
import type { Problem } from './params.js';
import * as P from './params.js';
import type { AddressIndex, AddressRecord } from './records.js';
import { buildAddressIndex } from './records.js';
import type { Answer } from './response.js';
import { notAuthenticated, problem, render } from './response.js';
import type { Hit } from './search.js';
import { inRectangle, nearby, pageOfHits, recordFilter } from './search.js';

export const ADDRESS_SEARCH_BASE = '/addresssearch/v2';
/** EMULATOR CHOICE (not shown): the most supplier keys one ByCustomerId request may carry. */
export const CUSTOMER_IDS_MAX = 100;
const REVERSE_MAX_METRES = 25_000;

type Search = Answer['search'];
type Ctx = HandlerContext & { index: AddressIndex };

export function addressSearchRoutes(base: HandlerContext): Route[] {
  const ctx: Ctx = { ...base, index: derive(base.data, 'addressIndex', buildAddressIndex) };
  const endpoints: Record<AddressSearchEndpoint, (req: ServiceRequest, s: Search) => Reply> = {
    ByBranchesAndAddress: (req, s) => areaSearch(ctx, req, s, 'address'),
    ByBranchesAndPosition: (req, s) => areaSearch(ctx, req, s, 'position'),
    ByBranchesAndRectangle: (req, s) => areaSearch(ctx, req, s, 'rectangle'),
    ByCustomerId: (req, s) => byCustomerId(ctx, req, s),
    ByIdentifier: (req, s) => byIdentifier(ctx, req, s),
  };
  return Object.entries(endpoints).map(([name, fn]) => ({
    method: 'GET',
    path: `${ADDRESS_SEARCH_BASE}/${name}`,
    iface: 'addressSearch',
    handle(req: ServiceRequest): Reply {
      const search: Search = {
        branches: req.query.get('Branches') ?? '',
        catchwords: req.query.get('Catchwords') ?? '',
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

function fail(p: Problem, search: Search): Reply {
  return p.kind === 'http400' ? jsonText(400, JSON.stringify(p.message)) : problem(p.code, p.report, search);
}

function areaSearch(
  ctx: Ctx,
  req: ServiceRequest,
  search: Search,
  kind: 'address' | 'position' | 'rectangle',
) {
  const q = req.query;
  const expression = P.branches(q);
  if (P.isProblem(expression)) return fail(expression, search);
  let centres: Centre[] = [];
  let rect: [number, number, number, number] | null = null;
  if (kind === 'address') {
    const located = locateAddress(ctx.data.locator, q);
    if (P.isProblem(located)) return fail(located, search);
    centres = located;
  } else {
    const format = P.coordFormat(q);
    if (P.isProblem(format)) return fail(format, search);
    if (kind === 'position') {
      const at = P.coordinate(q, 'LocX', 'LocY', format);
      if (P.isProblem(at)) return fail(at, search);
      centres = [{ lon: at[0], lat: at[1], geoItem: reverseItem(ctx, at[0], at[1]) }];
    } else {
      const ul = P.coordinate(q, 'Lux', 'Luy', format);
      if (P.isProblem(ul)) return fail(ul, search);
      const lr = P.coordinate(q, 'Rlx', 'Rly', format);
      if (P.isProblem(lr)) return fail(lr, search);
      if (ul[0] > lr[0] || ul[1] < lr[1]) {
        const report =
          'Das Rechteck ist ungültig: Lux/Luy ist die linke obere, Rlx/Rly die rechte untere Ecke.';
        return problem(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER, report, search);
      }
      rect = [ul[0], lr[1], lr[0], ul[1]];
    }
  }
  const radius = kind === 'rectangle' ? 0 : P.maxRadius(q);
  if (P.isProblem(radius)) return fail(radius, search);
  const paging = P.paging(q);
  if (P.isProblem(paging)) return fail(paging, search);
  const orderBy = P.orderBy(q);
  if (P.isProblem(orderBy)) return fail(orderBy, search);
  const centre: [number, number] = rect
    ? [(rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2]
    : [centres[0]?.lon ?? 0, centres[0]?.lat ?? 0];
  search.x = String(centre[0]);
  search.y = String(centre[1]);
  const accept = recordFilter(expression, P.catchwords(q));
  const hits = !P.germany(q)
    ? []
    : rect
      ? inRectangle(ctx.index, rect, accept)
      : nearby(
          ctx.index,
          centres.map((c) => [c.lon, c.lat]),
          radius,
          accept,
        );
  const reference = P.additionReference(req.rawQuery);
  const toRef = (r: AddressRecord) =>
    reference ? haversine(reference[0], reference[1], r.row.lon, r.row.lat) : null;
  const sortDistance = (h: Hit) =>
    toRef(h.record) ?? h.distance ?? haversine(centre[0], centre[1], h.record.row.lon, h.record.row.lat);
  const pageHits = pageOfHits(
    hits,
    orderBy,
    sortDistance,
    (paging.page - 1) * paging.top,
    paging.page * paging.top,
  );
  return answer(
    search,
    centres.map((c) => c.geoItem),
    pageHits,
    paging,
    hits.length,
    toRef,
  );
}

function answer(
  search: Search,
  geoItems: GeoItem[],
  hits: Hit[],
  paging: P.Paging,
  maxCount: number,
  toRef: (r: AddressRecord) => number | null,
): Reply {
  const items = hits.map((h) => {
    const d = toRef(h.record) ?? h.distance;
    return { record: h.record, distance: d === null ? '' : String(Math.round(d)) };
  });
  return render({
    statusCode: 0,
    publicReport: '',
    authenticated: true,
    geoItems,
    search,
    items,
    maxCount,
    ...paging,
  });
}

function reverseItem(ctx: Ctx, lon: number, lat: number): GeoItem {
  const near = ctx.data.postal.placeIndex.nearest(lon, lat, 1, REVERSE_MAX_METRES)[0];
  return geoItemFor(near ? ctx.data.postal.places[near.index] : undefined, 'COORDINATE', lon, lat);
}

function byCustomerId(ctx: Ctx, req: ServiceRequest, search: Search): Reply {
  const keys = [
    ...new Set(
      (req.query.get('CustomerIds') ?? '')
        .split('|')
        .map((k) => k.trim())
        .filter(Boolean),
    ),
  ];
  if (keys.length === 0)
    return fail(
      { kind: 'http400', message: 'Eine oder mehrere Kundennummern (CustomerIds) sind erforderlich.' },
      search,
    );
  if (keys.length > CUSTOMER_IDS_MAX) {
    const report = `Höchstens ${CUSTOMER_IDS_MAX} Kundennummern je Anfrage, erhalten: ${keys.length}.`;
    return problem(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER, report, search);
  }
  const hits = keys
    .flatMap((k) => ctx.index.byKey.get(k) ?? [])
    .map((record) => ({ record, distance: null }));
  return records(req, search, hits);
}

function byIdentifier(ctx: Ctx, req: ServiceRequest, search: Search): Reply {
  const id = req.query.get('Identifier');
  if (!id) return fail({ kind: 'http400', message: 'Der Parameter Identifier ist erforderlich.' }, search);
  const record = ctx.index.byYmid.get(id);
  if (!record) {
    return problem(ADDRESS_SEARCH_STATUS.NOT_FOUND, 'Zu diesem Identifier gibt es keinen Eintrag.', search);
  }
  return records(req, search, [{ record, distance: null }]);
}

/** One page holding every hit (ByCustomerId and ByIdentifier take no Top/Page). */
function records(req: ServiceRequest, search: Search, hits: Hit[]): Reply {
  const reference = P.additionReference(req.rawQuery);
  const toRef = (r: AddressRecord) =>
    reference ? haversine(reference[0], reference[1], r.row.lon, r.row.lat) : null;
  return answer(search, [], hits, { page: 1, top: Math.max(1, hits.length) }, hits.length, toRef);
}

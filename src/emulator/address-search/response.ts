/** The one response object of all five address search endpoints, written from JSON fragments. */
import type { GeoItem } from '../../contract/index.js';
import { ADDRESS_SEARCH_STATUS } from '../../contract/index.js';
import type { Reply } from '../_http.js';
import { jsonText } from '../_http.js';
import { haversine } from '../lib/_geo.js';
import { type Language, localised } from './locale.js';
import type { Paging, Problem } from './params.js';
import type { AddressRecord } from './records.js';
import { itemJson } from './records.js';
import type { Hit } from './search.js';

export const COPYRIGHT_TEXT = '© GeoNames (geonames.org), CC BY 4.0 (modified); Kontaktdaten synthetisch';

export interface Answer {
  statusCode: number;
  publicReport: string;
  authenticated: boolean;
  geoItems: readonly GeoItem[];
  search: { branches: string; catchwords: string; x: string; y: string };
  items: readonly { record: AddressRecord; distance: string }[];
  page: number;
  top: number;
  maxCount: number;
  /** IsoLocale's language (locale.ts). @default 'de' */
  language?: Language;
}

export function render(a: Answer): Reply {
  const paging = {
    Page: a.page,
    MaxPage: Math.max(1, Math.ceil(a.maxCount / a.top)),
    Count: a.items.length,
    MaxCount: a.maxCount,
  };
  const head = {
    GeoItems: a.geoItems,
    Paging: paging,
  };
  const tail = {
    AddressShadowItems: [],
    AddressesNearby: [],
    AddressTiles: [],
    RegioAdItems: [],
    RelatedBranches: [],
    SeparatedBranches: [],
    SearchData: {
      Branches: a.search.branches,
      Catchwords: a.search.catchwords,
      Location: { XCoord: a.search.x, YCoord: a.search.y },
      NewSearchOnRectChange: false,
    },
    AddressItemsCopyright: { Text: COPYRIGHT_TEXT, BrandingList: [] },
    IsRequestAuthenticated: a.authenticated,
    IsAccessApproved: a.authenticated,
    StatusCode: a.statusCode,
    Exceptions: a.statusCode === 0 ? [] : [{ StatusCode: a.statusCode, Message: a.publicReport }],
    PublicReport: a.publicReport,
    InternalError: null,
  };
  const items = a.items.map((i) => localised(itemJson(i.record, i.distance), a.language ?? 'de')).join(',');
  const text = `${JSON.stringify(head).slice(0, -1)},"AddressItems":[${items}],${JSON.stringify(tail).slice(1)}`;
  return jsonText(200, text);
}

/** An empty answer reporting a problem (200 + StatusCode + PublicReport, as the spec says). */
export function problem(code: number, report: string, search: Answer['search'], authenticated = true): Reply {
  return render({
    statusCode: code,
    publicReport: report,
    authenticated,
    geoItems: [],
    search,
    items: [],
    page: 1,
    top: 1,
    maxCount: 0,
  });
}

export const NOT_AUTHENTICATED_REPORT =
  'Die Anfrage konnte nicht authentifiziert werden: Partner oder Zugangsschlüssel sind ungültig.';

export function notAuthenticated(search: Answer['search']): Reply {
  return problem(ADDRESS_SEARCH_STATUS.NOT_AUTHENTICATED, NOT_AUTHENTICATED_REPORT, search, false);
}

/** The answer to a problem: the documented 400 (a JSON string) or 200 with StatusCode. */
export function fail(p: Problem, search: Answer['search']): Reply {
  return p.kind === 'http400' ? jsonText(400, JSON.stringify(p.message)) : problem(p.code, p.report, search);
}

/** Metres from the Addition reference point, or null without one. */
export function distanceFrom(reference: [number, number] | null): (r: AddressRecord) => number | null {
  return (r) => (reference ? haversine(reference[0], reference[1], r.row.lon, r.row.lat) : null);
}

/**
 * A successful answer. Distance: to the Addition point when given, else empty, as the spec's
 * Addition section says ("without them the field stays empty"), even where the search has a
 * location: a client must not come to rely on a distance the service does not send.
 */
export function found(
  search: Answer['search'],
  geoItems: GeoItem[],
  hits: Hit[],
  paging: Paging,
  maxCount: number,
  toRef: (r: AddressRecord) => number | null,
  language: Language = 'de',
): Reply {
  const items = hits.map((h) => {
    const d = toRef(h.record);
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
    language,
    ...paging,
  });
}

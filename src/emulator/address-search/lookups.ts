/** ByCustomerId and ByIdentifier: records by key, all on one page (they take no Top/Page). */
import { ADDRESS_SEARCH_STATUS, CUSTOMER_IDS_MAX } from '../../contract/index.js';
import type { Reply, ServiceRequest } from '../_http.js';
import * as P from './params.js';
import type { AddressIndex } from './records.js';
import type { Answer } from './response.js';
import { distanceFrom, fail, found, problem } from './response.js';
import type { Hit } from './search.js';

type Search = Answer['search'];

/** Records in the order of the keys asked for; unknown keys are simply absent. */
export function byCustomerId(index: AddressIndex, req: ServiceRequest, search: Search): Reply {
  const raw = (req.query.get('CustomerIds') ?? '').split('|').map((k) => k.trim());
  const keys = [...new Set(raw.filter(Boolean))];
  if (keys.length === 0) {
    const message = 'Eine oder mehrere Kundennummern (CustomerIds) sind erforderlich.';
    return fail({ kind: 'http400', message }, search);
  }
  if (keys.length > CUSTOMER_IDS_MAX) {
    const report = `Höchstens ${CUSTOMER_IDS_MAX} Kundennummern je Anfrage, erhalten: ${keys.length}.`;
    return problem(ADDRESS_SEARCH_STATUS.INVALID_PARAMETER, report, search);
  }
  const hits = keys.flatMap((k) => index.byKey.get(k) ?? []).map((record) => ({ record, distance: null }));
  return onePage(req, search, hits);
}

/** The identifier is decoded once (by the query parser): YMIDUrlEncoded works as sent. */
export function byIdentifier(index: AddressIndex, req: ServiceRequest, search: Search): Reply {
  const id = req.query.get('Identifier');
  if (!id) return fail({ kind: 'http400', message: 'Der Parameter Identifier ist erforderlich.' }, search);
  const record = index.byYmid.get(id);
  if (!record) {
    return problem(ADDRESS_SEARCH_STATUS.NOT_FOUND, 'Zu diesem Identifier gibt es keinen Eintrag.', search);
  }
  return onePage(req, search, [{ record, distance: null }]);
}

function onePage(req: ServiceRequest, search: Search, hits: Hit[]): Reply {
  const toRef = distanceFrom(P.additionReference(req.rawQuery));
  return found(search, [], hits, { page: 1, top: Math.max(1, hits.length) }, hits.length, toRef);
}

/**
 * Address search: five GET endpoints sharing one response object, HTTP Basic auth, and a page
 * iterator. A 200 can still carry a failure (StatusCode/PublicReport): that becomes an error here,
 * and a rejected login (IsRequestAuthenticated false) stops the run like a 401 would.
 */

import type { AddressSearchEndpoint, AddressSearchParams, AddressSearchResponse } from '../contract/index.js';
import { addressSearchResponseSchema } from '../contract/index.js';
import { ServiceError, UsageError } from '../errors.js';
import type { LonLat } from '../types.js';
import type { CallOptions, ClientContext } from './_context.js';
import { fatalError } from './_failures.js';
import { check } from './_parse.js';
import { buildQuery } from './_query.js';
import { checkPoints } from './coords.js';

export type PagedEndpoint = Extract<
  AddressSearchEndpoint,
  'ByBranchesAndAddress' | 'ByBranchesAndPosition' | 'ByBranchesAndRectangle'
>;

export interface PagesOptions extends CallOptions {
  /** Stop after this many pages even if the service has more. @default all, up to Paging.MaxPage */
  maxPages?: number;
}

const ESCAPE = /%[0-9A-Fa-f]{2}/;

/**
 * `Addition` from key/value pairs: `LocXForDistanceCalculation=13.788&...`. The query builder
 * encodes the whole value once, which turns the inner `=`/`&` into the %3D/%26 the service needs.
 */
export function encodeAddition(pairs: Readonly<Record<string, string | number>>): string {
  return Object.entries(pairs)
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

/** Calls one endpoint with `params` as they are. */
/** Async: an endpoint that is not configured rejects the call, as every other call's problem does. */
export async function addressSearch(
  ctx: ClientContext,
  endpoint: AddressSearchEndpoint,
  params: AddressSearchParams,
  o?: CallOptions,
): Promise<AddressSearchResponse> {
  // The position or rectangle a search names, in the format it says (CoordFormatIn, else degrees).
  const corners = [
    [params.LocX, params.LocY],
    [params.Lux, params.Luy],
    [params.Rlx, params.Rly],
  ].filter(([x, y]) => x !== undefined || y !== undefined) as unknown as LonLat[];
  const format = params.CoordFormatIn;
  checkPoints(`address search ${endpoint}`, corners, format === undefined || format === 'GEODECIMAL_POINT');
  const { Identifier, ...rest } = params;
  const channel = endpoint.startsWith('ByBranches') ? (params.Channel ?? ctx.options.channel) : undefined;
  let query = buildQuery({ ...rest, Channel: channel });
  if (Identifier !== undefined) {
    // YMIDUrlEncoded is "usable directly": already encoded, so it must not be encoded again.
    const value = ESCAPE.test(Identifier) ? Identifier : encodeURIComponent(Identifier);
    query += `${query === '' ? '' : '&'}Identifier=${value}`;
  }
  const place = {
    service: 'addressSearch' as const,
    endpoint: `${ctx.base('addressSearch').prefix}/${endpoint}`,
  };
  return ctx.transport.call(
    {
      service: 'addressSearch',
      method: 'GET',
      base: ctx.base('addressSearch'),
      path: `/${endpoint}`,
      query,
      parse: (json) => {
        const response = check(addressSearchResponseSchema, json, 'address search');
        // The spec's only authentication signal is the IsRequestAuthenticated flag. Its StatusCode
        // values are "0 = ok, non-zero = problem" and nothing more: a code that means "login
        // refused" in the emulator's table (an EMULATOR CHOICE) is, from the real service, any
        // other problem, and fails the request, not the run.
        if (response.IsRequestAuthenticated === false) {
          throw fatalError('AUTH_REJECTED', undefined, place, ctx.auth, undefined, reportOf(response));
        }
        if (response.StatusCode !== 0) {
          const report = response.PublicReport ? `: ${response.PublicReport}` : '';
          throw new ServiceError(
            'SERVICE_REPORTED',
            `address search reported status ${response.StatusCode}${report}`,
            {
              ...place,
              status: 200,
              detail: reportOf(response),
            },
          );
        }
        return response;
      },
    },
    o?.signal,
  );
}

function reportOf(response: AddressSearchResponse): Record<string, string> {
  return { StatusCode: String(response.StatusCode), PublicReport: response.PublicReport ?? '' };
}

/** Records by supplier key (ProviderForeignKey), joined with `|`. */
export async function byCustomerId(
  ctx: ClientContext,
  ids: readonly string[],
  o?: CallOptions,
): Promise<AddressSearchResponse> {
  if (ids.length === 0) throw new UsageError('address search ByCustomerId needs at least one id');
  return addressSearch(ctx, 'ByCustomerId', { CustomerIds: ids.join('|') }, o);
}

/** The one record named by a YMID (raw or YMIDUrlEncoded). */
export function byIdentifier(
  ctx: ClientContext,
  identifier: string,
  o?: CallOptions,
): Promise<AddressSearchResponse> {
  return addressSearch(ctx, 'ByIdentifier', { Identifier: identifier }, o);
}

/** Every page of a search from `params.Page` (default 1) up to Paging.MaxPage, one request each. */
export async function* pages(
  ctx: ClientContext,
  endpoint: PagedEndpoint,
  params: AddressSearchParams,
  o?: PagesOptions,
): AsyncGenerator<AddressSearchResponse, void, undefined> {
  const limit = o?.maxPages ?? Number.POSITIVE_INFINITY;
  let page = params.Page ?? 1;
  for (let fetched = 0; fetched < limit; fetched++, page++) {
    const response = await addressSearch(ctx, endpoint, { ...params, Page: page }, o);
    yield response;
    if (page >= response.Paging.MaxPage || response.AddressItems.length === 0) return;
  }
}

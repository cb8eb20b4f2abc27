/**
 * address-search: for each row's point, the N nearest records of the given category codes within
 * a radius (ByBranchesAndPosition ordered by distance, paging only as far as N needs). Output:
 * columns for the nearest hit and the total count, or (`explode`) one output row per hit.
 */

import { z } from 'zod';
import type { AddressItem, OrderBy } from '../contract/index.js';
import { ADDRESS_SEARCH_MAX_TOP, ORDER_BY } from '../contract/index.js';
import type { Job } from '../engine/job.js';
import type { Fields, LonLat, OutputRecord } from '../types.js';
import {
  cell,
  isPlanIssue,
  type Mapping,
  pointGeometry,
  pointKey,
  readPoint,
  withSwapHint,
} from './_fields.js';
import { defineJobKind } from './_kind.js';
import { POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { AddressSearchPort } from './_ports.js';
import { answerOf, eachItem } from './_single.js';

export interface AddressSearchJobOptions {
  readonly mapping: Mapping;
  /** @default 'near_' */
  readonly prefix?: string;
  /** Category codes: `a|b` = a or b, `a&b` = a and b (sent as %26). */
  readonly branches: string;
  /** @default 5000 */
  readonly radiusMeters?: number;
  /** Hits wanted per row. @default 1 */
  readonly nearest?: number;
  /** @default min(nearest, 100) */
  readonly pageSize?: number;
  /** @default 'DISTANCE' */
  readonly orderBy?: OrderBy;
  /** @default 'nearest' */
  readonly mode?: 'nearest' | 'explode';
}

export interface NearbyResult {
  readonly total: number;
  readonly hits: readonly AddressItem[];
}

const HIT_FIELDS = [
  'rank',
  'name',
  'distance_m',
  'lon',
  'lat',
  'street',
  'zip',
  'city',
  'category',
  'ymid',
] as const;

/** The category codes a Branches expression names (`a&b|c` -> a, b, c). */
function requestedCodes(branches: string): ReadonlySet<string> {
  return new Set(branches.split(/[|&]|%26/).map((code) => code.trim()));
}

function hitColumns(
  prefix: string,
  hit: AddressItem | undefined,
  rank: number,
  codes: ReadonlySet<string>,
): Fields {
  const data = hit?.BasicData;
  const distance = data?.Geo.Distance;
  const values: Record<(typeof HIT_FIELDS)[number], string | number | null> = {
    rank: hit === undefined ? null : rank,
    name: data?.Address.CompanyName ?? null,
    distance_m: distance === undefined || distance === '' ? null : Number(distance),
    lon: data === undefined ? null : Number(data.Geo.XCoord),
    lat: data === undefined ? null : Number(data.Geo.YCoord),
    street: data?.Address.Street ?? null,
    zip: data?.Address.Zip ?? null,
    city: data?.Address.City ?? null,
    // The category the hit was found by, not the base code every record carries.
    category:
      (data?.BranchListElements?.find((b) => codes.has(b.BranchCode)) ?? data?.BranchListElements?.[0])
        ?.BranchText ?? null,
    ymid: data?.Identifiers.YMID ?? null,
  };
  return Object.fromEntries(HIT_FIELDS.map((f) => [`${prefix}${f}`, cell(values[f])]));
}

export function createAddressSearchJob(
  client: AddressSearchPort,
  options: AddressSearchJobOptions,
): Job<LonLat, NearbyResult> {
  const prefix = options.prefix ?? 'near_';
  const wanted = options.nearest ?? 1;
  const pageSize = options.pageSize ?? Math.min(wanted, 100);
  const columns = [`${prefix}count`, ...HIT_FIELDS.map((f) => `${prefix}${f}`)];
  const codes = requestedCodes(options.branches);

  async function search(point: LonLat, signal: AbortSignal): Promise<NearbyResult> {
    const hits: AddressItem[] = [];
    let total = 0;
    const params = {
      Branches: options.branches,
      LocX: point[0],
      LocY: point[1],
      MaxRadius: options.radiusMeters ?? 5000,
      OrderBy: options.orderBy ?? 'DISTANCE',
      Top: pageSize,
    };
    const maxPages = Math.ceil(wanted / pageSize);
    for await (const page of client.addressSearch.pages('ByBranchesAndPosition', params, {
      signal,
      maxPages,
    })) {
      total = page.Paging.MaxCount;
      hits.push(...page.AddressItems);
      if (hits.length >= wanted) break;
    }
    return { total, hits: hits.slice(0, wanted) };
  }

  return {
    kind: 'address-search',
    columns,
    plan(row) {
      const point = readPoint(row, options.mapping);
      return isPlanIssue(point) ? point : [point];
    },
    key: pointKey,
    execute: eachItem(pointKey, search),
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return withSwapHint(answer.failed, [readPoint(row, options.mapping)]);
      const { total, hits } = answer.value;
      const geometry = pointGeometry(row, options.mapping);
      const count = { [`${prefix}count`]: total };
      const records: OutputRecord[] =
        options.mode === 'explode' && hits.length > 0
          ? hits.map((hit, i) => ({
              columns: { ...count, ...hitColumns(prefix, hit, i + 1, codes) },
              geometry,
            }))
          : [{ columns: { ...count, ...hitColumns(prefix, hits[0], 1, codes) }, geometry }];
      return { ok: true, records };
    },
  };
}

export const addressSearchKind = defineJobKind({
  name: 'address-search',
  summary: 'coordinates -> what is nearby, by category',
  mappingFields: POINT_FIELDS,
  mappingRequired: false,
  options: z.strictObject({
    prefix,
    /** Category codes in the service's syntax: `a|b` = a or b, `a&b` = a and b. */
    branches: z.string().min(1),
    radiusMeters: positiveInt.max(300_000, 'the service searches at most 300 km').optional(),
    nearest: positiveInt.max(1000).optional(),
    pageSize: positiveInt.max(ADDRESS_SEARCH_MAX_TOP).optional(),
    orderBy: z.enum(ORDER_BY as readonly OrderBy[] as [OrderBy, ...OrderBy[]]).optional(),
    /** `nearest`: columns for the nearest hit and a count; `explode`: one output row per hit. */
    mode: z.enum(['nearest', 'explode']).optional(),
  }),
  optionsRequired: true,
  services: ['addressSearch'],
  docs: {
    mapping: '`lon`, `lat` (as above)',
    options: {
      branches: 'required',
      radiusMeters: '5000, at most 300000',
      nearest: '1',
      pageSize: 'min(nearest, 100)',
      orderBy: '`DISTANCE`',
      mode: '`nearest` \\| `explode`',
      prefix: '`near_`',
    },
  },
  multipleRecords: (options) => options.mode === 'explode',
  create: ({ client, mapping, options }) => createAddressSearchJob(client, { mapping, ...options }),
});

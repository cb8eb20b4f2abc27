/**
 * address-search: for each row, the records of the given category codes found around a point
 * (ByBranchesAndPosition), around an address (ByBranchesAndAddress) or inside a rectangle
 * (ByBranchesAndRectangle), in the order asked for, paging only as far as `nearest` needs, or
 * through every page the service has (`nearest: all`). Output: columns for the first hit and the
 * total count, or (`explode`) one output row per hit.
 */

import type { Point } from 'geojson';
import { z } from 'zod';
import { encodeAddition } from '../client/address-search.js';
import type { AddressItem, AddressSearchParams, GeoItem, OrderBy } from '../contract/index.js';
import {
  ADDITION_DISTANCE_KEYS,
  ADDRESS_SEARCH_MAX_TOP,
  ADDRESS_SEARCH_STATUS,
  ORDER_BY,
} from '../contract/index.js';
import type { ItemResult, Job } from '../engine/job.js';
import { isGeobatchError } from '../errors.js';
import type { Fields, LonLat, OutputRecord, Row } from '../types.js';
import {
  COORD_FORMATS_DOC,
  type CoordFormatsSetting,
  coordCells,
  coordFormats,
  coordFormatsOption,
  lonLatColumns,
  pointFromText,
  readsIn,
} from './_coord-format.js';
import { countryOption } from './_country.js';
import {
  cell,
  isPlanIssue,
  type Mapping,
  type PointFields,
  pointGeometry,
  readPoint,
  withSwapHint,
} from './_fields.js';
import { refuse, requireOne } from './_file-rules.js';
import { chooseForm, formOrThrow } from './_forms.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { locale, lonLatOption, POINT_DOC, POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { AddressSearchPort } from './_ports.js';
import { RECTANGLE_CONSTANTS, RECTANGLE_FIELDS } from './_rectangle.js';
import {
  ADDRESS_FIELDS,
  ENDPOINT,
  planSearch,
  SEARCH_FORMS,
  type Search,
  type SearchForm,
} from './_search-forms.js';
import { answerOf } from './_single.js';
import { noteRectangle, type SwappedPoints } from './_swapped.js';

export type { Search, SearchForm } from './_search-forms.js';

export interface AddressSearchJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default 'near_' */
  readonly prefix?: string;
  /** Category codes: `a|b` = a or b, `a&b` = a and b (sent as %26). */
  readonly branches: string;
  /** @default inferred from the mapping: rectangle keys -> rectangle, address keys -> address, else position */
  readonly form?: SearchForm;
  /** Not used by the rectangle form; -1: the service's widest, 300 km. @default 5000 */
  readonly radiusMeters?: number;
  /** Hits wanted per row, or every hit the service has. @default 1 */
  readonly nearest?: number | 'all';
  /** @default min(nearest, 100); 100 for `all` */
  readonly pageSize?: number;
  /** @default 'DISTANCE' */
  readonly orderBy?: OrderBy;
  /** @default 'nearest' */
  readonly mode?: 'nearest' | 'explode';
  /** The point and rectangle columns' and the output's coordinate format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormatsSetting;
  /** IsoLocale, the language of multilingual content. Not sent when absent (the service's de-DE). */
  readonly locale?: string;
  /** Catchwords: extra free-text terms, separated by spaces, the hits must match. Not sent when absent. */
  readonly catchwords?: string;
  /**
   * IsoCountryCode for every row, as a code (countryCode); a row's own `country` wins. Not sent
   * when absent (the service's DE).
   */
  readonly country?: string;
  /** FreeFilter, the integration's special filter, sent as it is. Not sent when absent. */
  readonly freeFilter?: string;
  /**
   * The point, in degrees, that each hit's distance is measured from (Addition's
   * LocXForDistanceCalculation and LocYForDistanceCalculation). @default the row's point for the
   * position form; none (no distance) for the address and rectangle forms
   */
  readonly distanceFrom?: { readonly lon: number; readonly lat: number };
}

export interface NearbyResult {
  readonly total: number;
  readonly hits: readonly AddressItem[];
  /**
   * The address form's places the service searched around (its GeoItems): the row's "Neustadt"
   * may be another Neustadt than the one meant, and the hits alone do not say which. Absent in
   * answers cached before it was kept: their columns stay empty.
   */
  readonly located?: readonly LocatedPlace[];
}

/** One place the service located an address search at. */
interface LocatedPlace {
  readonly text: string;
  readonly level: string | null;
}

/** The address form's columns after the hit columns: where the search was made, and how exactly. */
const LOCATED_FIELDS = ['located', 'located_level'] as const;

function locatedOf(items: readonly GeoItem[] | undefined): LocatedPlace[] {
  return (items ?? []).map((item) => {
    const description = item.Description?.trim();
    const place = [item.Zip, item.City].filter((part) => part !== undefined && part !== '').join(' ');
    const text =
      description !== undefined && description !== ''
        ? description
        : [place, item.District].filter((part) => part !== undefined && part !== '').join(', ');
    return { text, level: item.GeoLevel ?? null };
  });
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

function hitPoint(hit: AddressItem | undefined): LonLat | null {
  return hit === undefined ? null : pointFromText(hit.BasicData.Geo.XCoord, hit.BasicData.Geo.YCoord);
}

/** The address form reads no conventional columns: with none of these mapped, every row fails. */
function placeIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireOne(
    mapping,
    ['zip', 'city', 'location'],
    'each address search needs a postcode, a city or a location',
  );
}

export function createAddressSearchJob(
  client: AddressSearchPort,
  options: AddressSearchJobOptions,
): Job<Search, NearbyResult> {
  const form = formOrThrow(SEARCH_FORMS, options.mapping, options.form);
  if (form === 'address') refuse('address-search', placeIssue(options.mapping));
  const prefix = options.prefix ?? 'near_';
  const wanted = options.nearest === 'all' ? Number.POSITIVE_INFINITY : (options.nearest ?? 1);
  const pageSize = options.pageSize ?? Math.min(wanted, ADDRESS_SEARCH_MAX_TOP);
  const located = form === 'address' ? LOCATED_FIELDS : [];
  const columns = [
    `${prefix}count`,
    ...HIT_FIELDS.map((f) => `${prefix}${f}`),
    ...located.map((f) => `${prefix}${f}`),
  ];
  const codes = requestedCodes(options.branches);
  /** Pages a search may take: as many as `nearest` needs; Infinity for `all`. */
  const pagesAtMost = Math.ceil(wanted / pageSize);
  const formats = coordFormats(options.coordFormat);
  const at: PointFields = { format: formats.input };
  const common = {
    Branches: options.branches,
    OrderBy: options.orderBy ?? 'DISTANCE',
    Top: pageSize,
    ...(form === 'rectangle' ? {} : { MaxRadius: options.radiusMeters ?? 5000 }),
    ...(options.locale === undefined ? {} : { IsoLocale: options.locale }),
    ...(options.catchwords === undefined ? {} : { Catchwords: options.catchwords }),
    ...(options.country === undefined ? {} : { IsoCountryCode: options.country }),
    ...(options.freeFilter === undefined ? {} : { FreeFilter: options.freeFilter }),
    ...(options.distanceFrom === undefined ? {} : { Addition: additionOf(options.distanceFrom) }),
  } satisfies AddressSearchParams;

  /**
   * The spec fills BasicData.Geo.Distance only with both Addition keys set ("without them the
   * field stays empty"). A position search knows its point, in degrees (planSearch reads it so), so
   * it sends that point unless `distanceFrom` names another: `near_distance_m` is then the hit's
   * distance from the row's point. The address form knows no point before the answer; see README.
   */
  function searchPointAddition(params: AddressSearchParams): AddressSearchParams {
    if (form !== 'position' || options.distanceFrom !== undefined) return {};
    const { LocX, LocY, CoordFormatIn } = params;
    if (LocX === undefined || LocY === undefined || CoordFormatIn !== undefined) return {};
    return { Addition: additionOf({ lon: LocX, lat: LocY }) };
  }

  function hitColumns(hit: AddressItem | undefined, rank: number): Fields {
    const data = hit?.BasicData;
    const distance = data?.Geo.Distance;
    const [x, y] = coordCells(hitPoint(hit), formats.output);
    const values: Record<(typeof HIT_FIELDS)[number], string | number | null> = {
      rank: hit === undefined ? null : rank,
      name: data?.Address.CompanyName ?? null,
      distance_m: distance === undefined || distance === '' ? null : Number(distance),
      lon: x,
      lat: y,
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

  async function search(item: Search, signal: AbortSignal): Promise<NearbyResult> {
    const hits: AddressItem[] = [];
    let total = 0;
    let places: LocatedPlace[] | undefined;
    const maxPages = pagesAtMost;
    for await (const page of client.addressSearch.pages(
      ENDPOINT[form],
      { ...common, ...item.params, ...searchPointAddition(item.params) },
      { signal, ...(Number.isFinite(maxPages) ? { maxPages } : {}) },
    )) {
      total = page.Paging.MaxCount;
      if (form === 'address') places ??= locatedOf(page.GeoItems);
      hits.push(...page.AddressItems);
      if (hits.length >= wanted) break;
    }
    return { total, hits: hits.slice(0, wanted), ...(places === undefined ? {} : { located: places }) };
  }

  /** The address form's "that address does not exist" is an answer about the row, not a fault. */
  async function searchOrNoMatch(item: Search, signal: AbortSignal): Promise<ItemResult<NearbyResult>> {
    try {
      return { ok: true, value: await search(item, signal) };
    } catch (error) {
      const detail = isGeobatchError(error) ? error.context.detail : undefined;
      if (
        form === 'address' &&
        isGeobatchError(error) &&
        error.code === 'SERVICE_REPORTED' &&
        String(detail?.StatusCode) === String(ADDRESS_SEARCH_STATUS.LOCATION_NOT_FOUND)
      ) {
        const report = String(detail?.PublicReport ?? '');
        return {
          ok: false,
          failure: {
            code: 'NO_MATCH',
            stage: 'response',
            message: report === '' ? 'the service cannot locate this address' : `no match: ${report}`,
            detail: { StatusCode: String(detail?.StatusCode), PublicReport: report },
          },
        };
      }
      throw error;
    }
  }

  /** Position: the row keeps its own point. Address and rectangle: each record is its hit's point. */
  function geometryOf(row: Row, hit: AddressItem | undefined): Point | null | undefined {
    if (form === 'position') return pointGeometry(row, options.mapping, at);
    const point = hitPoint(hit);
    return point === null ? null : { type: 'Point', coordinates: [point[0], point[1]] };
  }

  return {
    kind: 'address-search',
    columns,
    plan(row) {
      const item = planSearch(form, row, options.mapping, formats.input, options.country);
      if (isPlanIssue(item)) return item;
      noteSearch(options.points, row, form, item);
      return [item];
    },
    key: (item) => item.key,
    // One request a search, and as many more as the pages `nearest` needs, if the service has them.
    ...(pagesAtMost > 1 ? { requestsAtMost: (items: readonly Search[]) => items.length * pagesAtMost } : {}),
    ...(form === 'position' ? { locate: (row: Row) => pointGeometry(row, options.mapping, at) } : {}),
    async execute(items, signal) {
      const out = new Map<string, ItemResult<NearbyResult>>();
      for (const item of items) out.set(item.key, await searchOrNoMatch(item, signal));
      return out;
    },
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) {
        const points = form === 'position' ? [readPoint(row, options.mapping, at)] : [];
        return withSwapHint(answer.failed, points);
      }
      const { total, hits } = answer.value;
      const places = answer.value.located;
      // Several places (`76131|80331`) are each named, in the service's order.
      const where =
        form !== 'address'
          ? {}
          : {
              [`${prefix}located`]: places === undefined ? null : places.map((p) => p.text).join(' | '),
              [`${prefix}located_level`]:
                places === undefined ? null : places.map((p) => p.level ?? '').join(' | ') || null,
            };
      const count = { [`${prefix}count`]: total };
      const records: OutputRecord[] =
        options.mode === 'explode' && hits.length > 0
          ? hits.map((hit, i) => ({
              columns: { ...count, ...hitColumns(hit, i + 1), ...where },
              geometry: geometryOf(row, hit),
            }))
          : [
              {
                columns: { ...count, ...hitColumns(hits[0], 1), ...where },
                geometry: geometryOf(row, hits[0]),
              },
            ];
      return { ok: true, records };
    },
  };
}

const FORMS = ['position', 'address', 'rectangle'] as const;

export const addressSearchKind = defineJobKind({
  name: 'address-search',
  summary: 'a point, an address or a rectangle -> what is there, by category',
  mappingFields: [...POINT_FIELDS, ...ADDRESS_FIELDS, ...RECTANGLE_FIELDS],
  mappingRequired: false,
  forms: SEARCH_FORMS,
  options: z.strictObject({
    prefix,
    /** Category codes in the service's syntax: `a|b` = a or b, `a&b` = a and b. */
    branches: z
      .string()
      .min(1)
      .describe('the category codes to search, such as "1301" (`a|b`: either, `a&b`: both)'),
    form: z.enum(FORMS).optional(),
    // -1 is the service's own "unlimited", which it caps at 300 km as it does any radius (spec).
    radiusMeters: z
      .number()
      .int()
      .max(300_000, 'the service searches at most 300 km')
      .refine((v) => v === -1 || v > 0, "expected more than 0, or -1 for the service's widest (300 km)")
      .optional(),
    nearest: z.union([positiveInt.max(1000), z.literal('all')]).optional(),
    pageSize: positiveInt.max(ADDRESS_SEARCH_MAX_TOP).optional(),
    orderBy: z.enum(ORDER_BY as readonly OrderBy[] as [OrderBy, ...OrderBy[]]).optional(),
    /** `nearest`: columns for the nearest hit and a count; `explode`: one output row per hit. */
    mode: z.enum(['nearest', 'explode']).optional(),
    coordFormat: coordFormatsOption,
    locale,
    // Single spaces between terms: a leading, trailing or doubled space changes no answer, but
    // would key another cache scope and be paid for again.
    catchwords: z
      .string()
      .regex(/^\S+( \S+)*$/, 'terms separated by single spaces, such as "sparkasse filiale"')
      .optional(),
    country: countryOption,
    // The spec says only "special filter for custom solutions": its syntax is the integration's.
    freeFilter: z.string().min(1).optional(),
    distanceFrom: lonLatOption,
  }),
  services: ['addressSearch'],
  docs: {
    mapping: `position: ${POINT_DOC}; address: \`zip\`, \`city\`, \`street\`, \`houseNo\`, \`location\` (single slot), \`country\`; rectangle: \`west\`, \`south\`, \`east\`, \`north\``,
    options: {
      branches: 'required',
      form: '`position` \\| `address` \\| `rectangle`; default: from the mapping',
      radiusMeters: "5000, at most 300000, or -1 for the service's widest (300 km); not for rectangles",
      nearest: '1, at most 1000, or `all`',
      pageSize: 'min(nearest, 100)',
      orderBy: '`DISTANCE`',
      mode: '`nearest` \\| `explode`',
      prefix: '`near_`',
      coordFormat: COORD_FORMATS_DOC,
      locale: "none: the service's `de-DE`; a locale such as `en-GB`",
      catchwords: 'none; free-text terms the hits must also match, separated by spaces',
      country: "none: the service's `DE`; an ISO code or a country's name, for rows that give none",
      freeFilter: "none; the integration's special filter, sent as it is",
      distanceFrom:
        "none: from the row's point (position form), no distance otherwise; { `lon`, `lat` } in degrees",
    },
  },
  multipleRecords: (options) => options.mode === 'explode',
  checkFile({ mapping, options }) {
    const choice = chooseForm(SEARCH_FORMS, mapping, options.form);
    if ('issue' in choice) return choice.issue;
    if (choice.form === 'address') {
      const issue = placeIssue(mapping);
      if (issue !== undefined) return issue;
    }
    if (choice.form === 'rectangle' && options.radiusMeters !== undefined)
      return {
        path: 'options.radiusMeters',
        expected: 'not used by the rectangle form (the rectangle bounds it)',
      };
    if (options.nearest === 'all' && options.mode !== 'explode')
      return {
        path: 'options.nearest',
        expected: '`all` only with mode: explode (mode nearest writes one hit per row)',
        hint: 'add mode: explode, or give nearest a number',
      };
    return undefined;
  },
  coordinates(options, mapping) {
    const formats = coordFormats(options.coordFormat);
    // Each form reads its own points: the address form none (warning of default point columns it
    // never reads misled, and mapping lon/lat as advised was refused as the position form's keys).
    const choice = mapping === undefined ? undefined : chooseForm(SEARCH_FORMS, mapping, options.form);
    const form = choice === undefined || 'issue' in choice ? undefined : choice.form;
    const pairs: [string, string][] =
      form === 'position'
        ? [[...POINT_FIELDS]]
        : form === 'rectangle'
          ? [
              ['west', 'south'],
              ['east', 'north'],
            ]
          : form === 'address'
            ? []
            : [[...POINT_FIELDS], ['west', 'south'], ['east', 'north']];
    return {
      reads: pairs.length === 0 ? [] : [readsIn(pairs, formats.input, 'coordFormat.input')],
      writes: {
        columns: lonLatColumns(options.prefix ?? 'near_'),
        format: formats.output,
        option: 'coordFormat.output',
      },
    };
  },
  constants(options, mapping) {
    const choice = chooseForm(SEARCH_FORMS, mapping, options.form);
    if ('issue' in choice) return [];
    if (choice.form === 'rectangle') return RECTANGLE_CONSTANTS;
    if (choice.form === 'position') return [];
    const format = coordFormats(options.coordFormat).input;
    // The country is checked before the address is: a mapping of the country alone tells.
    return [
      {
        keys: ['country'],
        read: (row, given) => planSearch('address', row, given, format, options.country),
      },
    ];
  },
  create: ({ client, mapping, options, points }) =>
    createAddressSearchJob(client, { mapping, ...options, points }),
});

/** Addition's reference point: the client encodes the whole value once, so `=`/`&` go as %3D/%26. */
function additionOf(point: { readonly lon: number; readonly lat: number }): string {
  return encodeAddition({
    [ADDITION_DISTANCE_KEYS.lon]: point.lon,
    [ADDITION_DISTANCE_KEYS.lat]: point.lat,
  });
}

/** A search's point or rectangle, as read from the row, for the run's swapped-coordinates warning. */
function noteSearch(points: SwappedPoints | undefined, row: Row, form: SearchForm, search: Search): void {
  if (points === undefined) return;
  const p = search.params;
  if (form === 'position' && p.LocX !== undefined && p.LocY !== undefined) points.note(row, p.LocX, p.LocY);
  const { rect } = search;
  if (form === 'rectangle' && rect !== undefined)
    noteRectangle(points, row, rect.west, rect.south, rect.east, rect.north);
}

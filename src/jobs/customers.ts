/**
 * customer-lookup: a column of supplier keys -> the record's fields. Many keys travel in one
 * ByCustomerId request joined with `|`; answers are matched back by ProviderForeignKey, never by
 * position, because the service returns records in its own order and omits unknown keys. A cut
 * answer (Paging.MaxCount above the records returned) is not taken as "not found": see lookUp.
 */

import { z } from 'zod';
import type { AddressItem } from '../contract/index.js';
import { CUSTOMER_IDS_MAX } from '../contract/index.js';
import type { ItemResult, Job, PlanIssue } from '../engine/job.js';
import type { Fields, Row } from '../types.js';
import { columnName } from './_column-name.js';
import {
  COORD_FORMAT_DOC,
  type CoordFormat,
  coordCells,
  coordFormatOption,
  DEFAULT_COORD_FORMAT,
  pointFromText,
} from './_coord-format.js';
import { cell, columnOf, isPlanIssue, type Mapping, readText } from './_fields.js';
import { refuse, requireEach } from './_file-rules.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { lingerMs, positiveInt, prefix } from './_options.js';
import type { CustomerLookupPort } from './_ports.js';
import { answerOf } from './_single.js';

/** The record fields a customer-lookup job can write. */
export const CUSTOMER_FIELDS = [
  'company',
  'street',
  'house_no',
  'zip',
  'city',
  'city_part',
  'country',
  'phone',
  'email',
  'url',
  'lon',
  'lat',
  'ymid',
  'provider_key',
  'branch_codes',
  'branch_texts',
] as const;
export type CustomerField = (typeof CUSTOMER_FIELDS)[number];
export type MultiplePolicy = 'first' | 'fail' | 'all';

export interface CustomerLookupJobOptions {
  readonly mapping: Mapping;
  /** @default 'cust_' */
  readonly prefix?: string;
  /** Keys per request. @default 50 */
  readonly batchSize?: number;
  /**
   * Longest request URL to build. IIS, which the service appears to run on, refuses query strings
   * over 2048 bytes by default. @default 2048
   */
  readonly maxUrlLength?: number;
  /** Base URL of the address search service, to count the URL length exactly. */
  readonly baseUrl: string;
  /** @default ['company','street','zip','city','phone','email','url','lon','lat','ymid'] */
  readonly fields?: readonly CustomerField[];
  /**
   * Several records for one key: `first` takes the first by identifier (stable), `fail` reports
   * the row as AMBIGUOUS, `all` writes one output row per record. @default 'first'
   */
  readonly onMultiple?: MultiplePolicy;
  /** @default 50 */
  readonly lingerMs?: number;
  /** The `lon`/`lat` columns' format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormat;
}

export const DEFAULT_CUSTOMER_FIELDS: readonly CustomerField[] = [
  'company',
  'street',
  'zip',
  'city',
  'phone',
  'email',
  'url',
  'lon',
  'lat',
  'ymid',
];

/**
 * The record fields a job writes, each once: a field named twice would be two columns of one name,
 * which the run's column check took for two steps writing it.
 */
export const fieldsOption = z
  .array(z.enum(CUSTOMER_FIELDS))
  .min(1)
  .superRefine((fields, ctx) => {
    const seen = new Set<string>();
    for (const [i, field] of fields.entries()) {
      if (seen.has(field))
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: 'expected each field once (it is listed before)',
        });
      seen.add(field);
    }
  })
  .optional();

/** The coordinate fields among those a record's columns are written for (`lon`, `lat`). */
export function coordFields(fields: readonly CustomerField[] = DEFAULT_CUSTOMER_FIELDS): CustomerField[] {
  return fields.filter((field) => field === 'lon' || field === 'lat');
}

function project(item: AddressItem, field: CustomerField): string | number | null {
  const { Address, Contact, Geo, Identifiers, BranchListElements } = item.BasicData;
  switch (field) {
    case 'company':
      return Address.CompanyName;
    case 'street':
      return Address.Street ?? null;
    case 'house_no':
      return Address.HouseNo ?? null;
    case 'zip':
      return Address.Zip ?? null;
    case 'city':
      return Address.City ?? null;
    case 'city_part':
      return Address.CityPart ?? null;
    case 'country':
      return Address.Country ?? null;
    case 'phone':
      return Contact?.Phone ?? null;
    case 'email':
      return Contact?.Email ?? null;
    case 'url':
      return Contact?.Url ?? null;
    case 'lon':
      return Geo.XCoord === '' ? null : Number(Geo.XCoord);
    case 'lat':
      return Geo.YCoord === '' ? null : Number(Geo.YCoord);
    case 'ymid':
      return Identifiers.YMID;
    case 'provider_key':
      return Identifiers.ProviderForeignKey;
    case 'branch_codes':
      return (BranchListElements ?? []).map((b) => b.BranchCode).join('|');
    case 'branch_texts':
      return (BranchListElements ?? []).map((b) => b.BranchText ?? '').join('|');
  }
}

/**
 * A record's fields as output columns (`<prefix><field>`), `lon`/`lat` in `format`; all empty for
 * no record. Shared with identifier-lookup, which writes the same fields.
 */
export function recordColumns(
  item: AddressItem | undefined,
  fields: readonly CustomerField[],
  prefix: string,
  format: CoordFormat = DEFAULT_COORD_FORMAT,
): Fields {
  const out: Fields = {};
  const [x, y] =
    item === undefined
      ? [null, null]
      : coordCells(pointFromText(item.BasicData.Geo.XCoord, item.BasicData.Geo.YCoord), format);
  for (const f of fields) {
    if (f === 'lon') out[`${prefix}${f}`] = x;
    else if (f === 'lat') out[`${prefix}${f}`] = y;
    else out[`${prefix}${f}`] = item === undefined ? null : cell(project(item, f));
  }
  return out;
}

/** The record's point as a GeoJSON geometry (WGS84), or null when it has none. */
export function recordGeometry(item: AddressItem) {
  const point = pointFromText(item.BasicData.Geo.XCoord, item.BasicData.Geo.YCoord);
  return point === null ? null : { type: 'Point' as const, coordinates: [point[0], point[1]] };
}

// Query-string cost of one key: its encoded form plus the encoded pipe that joins it.
const SEPARATOR_COST = encodeURIComponent('|').length;

/**
 * A key that would not fit even a request of its own, with its length and the limit. The limit is
 * in URL bytes: where the key's characters are not one byte each URL-encoded, both are given.
 */
function tooLong(field: string, key: string, bytes: number, max: number): PlanIssue {
  const characters = [...key].length;
  const [size, limit] =
    bytes === characters
      ? [`${characters} characters`, `${max}`]
      : [`${characters} characters, ${bytes} bytes URL-encoded`, `${max} bytes`];
  return {
    code: 'FIELD_INVALID',
    field,
    message: `${columnName(field)}: ${size}, too long for one request URL (at most ${limit})`,
  };
}

/** What the keys of one request may weigh: the URL's length without its path and query name. */
function keysWeight(baseUrl: string, maxUrlLength = 2048): number {
  return maxUrlLength - (`${baseUrl.replace(/\/+$/, '')}/ByCustomerId?CustomerIds=`.length + 64);
}

/** A row's supplier key, or why it is none that a request can carry. */
function readKey(row: Row, mapping: Mapping, maxKeyBytes: number): string | PlanIssue {
  const field = columnOf(mapping, 'key') ?? 'key';
  const key = readText(row, mapping, 'key');
  if (key === undefined)
    return {
      code: 'FIELD_MISSING',
      field,
      message: `${columnName(field)}: missing; expected a supplier key`,
    };
  if (key.includes('|'))
    return {
      code: 'FIELD_INVALID',
      field,
      message: `${columnName(field)}: expected one supplier key, got \`${key}\` (contains |)`,
    };
  const bytes = encodeURIComponent(key).length;
  return bytes > maxKeyBytes ? tooLong(field, key, bytes, maxKeyBytes) : key;
}

export function createCustomerLookupJob(
  client: CustomerLookupPort,
  options: CustomerLookupJobOptions,
): Job<string, AddressItem[]> {
  const prefix = options.prefix ?? 'cust_';
  const fields = options.fields ?? DEFAULT_CUSTOMER_FIELDS;
  const policy = options.onMultiple ?? 'first';
  const maxWeight = keysWeight(options.baseUrl, options.maxUrlLength);
  // The longest key, URL-encoded, that fits a request alone.
  const maxKeyBytes = maxWeight - SEPARATOR_COST;

  const columns = [...fields.map((f) => `${prefix}${f}`), `${prefix}matches`];
  const toColumns = (item: AddressItem | undefined, matches: number): Fields => ({
    ...recordColumns(item, fields, prefix, options.coordFormat),
    [`${prefix}matches`]: matches,
  });

  return {
    kind: 'customer-lookup',
    columns,
    plan(row) {
      const key = readKey(row, options.mapping, maxKeyBytes);
      return isPlanIssue(key) ? key : [key];
    },
    key: (k) => k,
    batching: {
      maxItems: options.batchSize ?? 50,
      lingerMs: options.lingerMs ?? 50,
      weight: (k) => encodeURIComponent(k).length + SEPARATOR_COST,
      maxWeight,
    },
    async execute(keys, signal) {
      const out = new Map<string, ItemResult<AddressItem[]>>();
      await lookUp(client, keys, signal, out);
      return out;
    },
    render(_row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return answer.failed;
      const records = answer.value;
      if (records.length > 1 && policy === 'fail') {
        return {
          ok: false,
          failure: {
            code: 'AMBIGUOUS',
            stage: 'response',
            message: `${records.length} records share this supplier key`,
          },
        };
      }
      const chosen = policy === 'all' ? records : records.slice(0, 1);
      return {
        ok: true,
        records: chosen.map((item) => ({
          columns: toColumns(item, records.length),
          geometry: recordGeometry(item),
        })),
      };
    },
  };
}

/**
 * Answers `keys` into `out`. The spec takes no Top/Page for ByCustomerId, yet its answer carries
 * Paging: when Paging.MaxCount says more records exist than came, the answer was cut short, and
 * no key in it can be taken as whole: one missing may have records all the same, and one present
 * may have more than came (a key of two records answered with one read as ok, and its row was not
 * AMBIGUOUS). Such a request is asked again in halves, down to one key a request: only a key
 * missing from a whole answer is NOT_FOUND, and a lone key whose answer is still cut short fails
 * as RESPONSE_INVALID, saying how many of its records came. Every request goes through the client,
 * which counts it (summary `http`).
 */
async function lookUp(
  client: CustomerLookupPort,
  keys: readonly string[],
  signal: AbortSignal,
  out: Map<string, ItemResult<AddressItem[]>>,
): Promise<void> {
  const response = await client.addressSearch.byCustomerId(keys, { signal });
  const { MaxCount } = response.Paging;
  const returned = response.AddressItems.length;
  if (MaxCount > returned && keys.length > 1) {
    const half = Math.ceil(keys.length / 2);
    for (const part of [keys.slice(0, half), keys.slice(half)]) await lookUp(client, part, signal, out);
    return;
  }
  const byKey = new Map<string, AddressItem[]>();
  for (const item of response.AddressItems) {
    const key = item.BasicData.Identifiers.ProviderForeignKey;
    byKey.set(key, [...(byKey.get(key) ?? []), item]);
  }
  for (const key of keys) {
    const records = byKey.get(key);
    if (MaxCount > returned) {
      // One key asked and its answer still cut short: no smaller request to ask.
      out.set(key, {
        ok: false,
        failure: {
          code: 'RESPONSE_INVALID',
          stage: 'response',
          message: `supplier key \`${key}\`: the answer was cut short (Paging.MaxCount ${MaxCount}, ${returned} records returned), so its records cannot all be read`,
          detail: { MaxCount: String(MaxCount), returned: String(returned) },
        },
      });
    } else if (records === undefined) {
      out.set(key, {
        ok: false,
        failure: { code: 'NOT_FOUND', stage: 'response', message: `supplier key \`${key}\` not found` },
      });
    } else {
      out.set(key, {
        ok: true,
        value: records.sort((a, b) => compare(a.BasicData.Identifiers.YMID, b.BasicData.Identifiers.YMID)),
      });
    }
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Without the keys every row would fail as FIELD_MISSING: there is no default column. */
function keyIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireEach(mapping, ['key'], 'the supplier keys to look up');
}

export const customerLookupKind = defineJobKind({
  name: 'customer-lookup',
  summary: 'supplier keys -> the company records the service holds',
  mappingFields: ['key'],
  mappingRequired: true,
  options: z.strictObject({
    prefix,
    batchSize: positiveInt.max(CUSTOMER_IDS_MAX).optional(),
    maxUrlLength: positiveInt.min(256).optional(),
    fields: fieldsOption,
    onMultiple: z.enum(['first', 'fail', 'all']).optional(),
    lingerMs,
    coordFormat: coordFormatOption,
  }),
  services: ['addressSearch'],
  docs: {
    mapping: '`key` (required)',
    options: {
      prefix: '`cust_`',
      batchSize: '50, at most 100',
      maxUrlLength: '2048, at least 256',
      fields: 'company, street, zip, city, phone, email, url, lon, lat, ymid',
      onMultiple: '`first` \\| `fail` \\| `all`',
      lingerMs: '50',
      coordFormat: COORD_FORMAT_DOC,
    },
  },
  multipleRecords: (options) => options.onMultiple === 'all',
  checkFile: ({ mapping }) => keyIssue(mapping),
  // The endpoint is the service's, not the file's: a key too long with no base URL at all is too
  // long for every one.
  constants: (options) => [
    {
      keys: ['key'],
      read: (row, mapping) => readKey(row, mapping, keysWeight('', options.maxUrlLength) - SEPARATOR_COST),
    },
  ],
  coordinates: (options) => ({
    writes: {
      columns: coordFields(options.fields).map((f) => `${options.prefix ?? 'cust_'}${f}`),
      format: options.coordFormat ?? DEFAULT_COORD_FORMAT,
      option: 'coordFormat',
    },
  }),
  create({ client, mapping, options, endpoints }) {
    refuse('customer-lookup', keyIssue(mapping));
    return createCustomerLookupJob(client, { mapping, ...options, baseUrl: endpoints.addressSearch ?? '' });
  },
});

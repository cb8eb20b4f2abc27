/**
 * identifier-lookup: a column of YMIDs (the service's record identifiers, as stored from an
 * earlier search) -> the record as the service holds it now, to refresh stored records.
 *
 * ByIdentifier takes one identifier a request (the spec: "One record by identifier"), so each
 * distinct identifier costs one request and no more: a YMID and its YMIDUrlEncoded and
 * YMIDPathEncoded forms are the same identifier, and rows repeating one share its answer.
 */

import { z } from 'zod';
import type { AddressItem } from '../contract/index.js';
import { ADDRESS_SEARCH_STATUS } from '../contract/index.js';
import type { ItemResult, Job, PlanIssue, RenderResult } from '../engine/job.js';
import { isGeobatchError } from '../errors.js';
import { fieldOf } from '../fields.js';
import type { Row } from '../types.js';
import { columnName } from './_column-name.js';
import {
  COORD_FORMAT_DOC,
  type CoordFormat,
  coordFormatOption,
  DEFAULT_COORD_FORMAT,
} from './_coord-format.js';
import { columnOf, isPlanIssue, type Mapping, readText } from './_fields.js';
import { refuse, requireEach } from './_file-rules.js';
import { parseIdentifier, quoted, readIdentifier, YMID_EXPECTED } from './_identifier.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { prefix } from './_options.js';
import type { IdentifierLookupPort } from './_ports.js';
import { answerOf } from './_single.js';
import {
  type CustomerField,
  coordFields,
  DEFAULT_CUSTOMER_FIELDS,
  fieldsOption,
  recordColumns,
  recordGeometry,
} from './customers.js';

export { readIdentifier } from './_identifier.js';

export interface IdentifierLookupJobOptions {
  readonly mapping: Mapping;
  /** @default 'rec_' */
  readonly prefix?: string;
  /** @default ['company','street','zip','city','phone','email','url','lon','lat','ymid'] */
  readonly fields?: readonly CustomerField[];
  /** The `lon`/`lat` columns' format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormat;
}

/** The id cell as it is, spaces at either end included (they may be `+` signs). */
function rawText(row: Row, mapping: Mapping): string | undefined {
  const source = mapping.id;
  if (source === undefined) return undefined;
  const value = 'value' in source ? source.value : fieldOf(row.fields, source.column);
  return value === undefined || value === null ? undefined : String(value);
}

function notFound(id: string, report?: string): ItemResult<AddressItem> {
  return {
    ok: false,
    failure: {
      code: 'NOT_FOUND',
      stage: 'response',
      message: `identifier \`${id}\` not found${report ? `: ${report}` : ''}`,
      ...(report ? { detail: { PublicReport: report } } : {}),
    },
  };
}

/** The YMID a row's id cell holds, or why it holds none. */
function readId(row: Row, mapping: Mapping): string | PlanIssue {
  const field = columnOf(mapping, 'id') ?? 'id';
  const text = readText(row, mapping, 'id') === undefined ? undefined : rawText(row, mapping);
  if (text === undefined)
    return { code: 'FIELD_MISSING', field, message: `${columnName(field)}: missing; expected a YMID` };
  const reading = parseIdentifier(text);
  if ('id' in reading) return reading.id;
  return {
    code: 'FIELD_INVALID',
    field,
    message: `${columnName(field)}: ${YMID_EXPECTED}, got ${quoted(text.trim())}: ${reading.problem}`,
  };
}

export function createIdentifierLookupJob(
  client: IdentifierLookupPort,
  options: IdentifierLookupJobOptions,
): Job<string, AddressItem> {
  const prefix = options.prefix ?? 'rec_';
  const fields = options.fields ?? DEFAULT_CUSTOMER_FIELDS;

  async function lookup(id: string, signal: AbortSignal): Promise<ItemResult<AddressItem>> {
    try {
      const response = await client.addressSearch.byIdentifier(id, { signal });
      const items = response.AddressItems;
      // The spec promises exactly one hit; should several come, the one that carries the id asked for wins.
      const item = items.find((i) => i.BasicData.Identifiers.YMID === id) ?? items[0];
      return item === undefined ? notFound(id) : { ok: true, value: item };
    } catch (error) {
      // The service says "no such record" as a status in a 200 answer, not as an HTTP error.
      const detail = isGeobatchError(error) ? error.context.detail : undefined;
      if (
        isGeobatchError(error) &&
        error.code === 'SERVICE_REPORTED' &&
        String(detail?.StatusCode) === String(ADDRESS_SEARCH_STATUS.NOT_FOUND)
      )
        return notFound(id, detail?.PublicReport === undefined ? undefined : String(detail.PublicReport));
      throw error;
    }
  }

  /**
   * A NOT_FOUND names the identifier as the cell wrote it, and the YMID sent where that differs:
   * padding or an alphabet the cell never had read as if the user had written it.
   */
  function asWritten(failed: RenderResult, row: Row): RenderResult {
    if (failed.ok) return failed;
    const raw = rawText(row, options.mapping);
    const id = raw === undefined ? undefined : readIdentifier(raw);
    const written = raw?.trim();
    if (failed.failure.code !== 'NOT_FOUND' || written === undefined || id === undefined || id === written)
      return failed;
    const message = failed.failure.message.replace(
      `identifier \`${id}\``,
      `identifier \`${written.slice(0, 60)}\` (sent as the YMID \`${id}\`)`,
    );
    return { ...failed, failure: { ...failed.failure, message } };
  }

  return {
    kind: 'identifier-lookup',
    columns: fields.map((f) => `${prefix}${f}`),
    plan(row): readonly string[] | PlanIssue {
      const id = readId(row, options.mapping);
      return isPlanIssue(id) ? id : [id];
    },
    key: (id) => id,
    async execute(ids, signal) {
      const out = new Map<string, ItemResult<AddressItem>>();
      for (const id of ids) out.set(id, await lookup(id, signal));
      return out;
    },
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return asWritten(answer.failed, row);
      const item = answer.value;
      return {
        ok: true,
        records: [
          {
            columns: recordColumns(item, fields, prefix, options.coordFormat),
            geometry: recordGeometry(item),
          },
        ],
      };
    },
  };
}

/** Without the identifiers every row would fail as FIELD_MISSING: there is no default column. */
function idIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireEach(mapping, ['id'], 'the YMIDs to look up');
}

export const identifierLookupKind = defineJobKind({
  name: 'identifier-lookup',
  summary: 'YMIDs -> the records the service holds now',
  mappingFields: ['id'],
  mappingRequired: true,
  options: z.strictObject({
    prefix,
    fields: fieldsOption,
    coordFormat: coordFormatOption,
  }),
  services: ['addressSearch'],
  docs: {
    mapping: '`id` (required: a YMID, YMIDUrlEncoded or YMIDPathEncoded)',
    options: {
      prefix: '`rec_`',
      fields: 'as customer-lookup: company, street, zip, city, phone, email, url, lon, lat, ymid',
      coordFormat: COORD_FORMAT_DOC,
    },
  },
  checkFile: ({ mapping }) => idIssue(mapping),
  constants: () => [{ keys: ['id'], read: readId }],
  coordinates: (options) => ({
    writes: {
      columns: coordFields(options.fields).map((f) => `${options.prefix ?? 'rec_'}${f}`),
      format: options.coordFormat ?? DEFAULT_COORD_FORMAT,
      option: 'coordFormat',
    },
  }),
  create({ client, mapping, options }) {
    refuse('identifier-lookup', idIssue(mapping));
    return createIdentifierLookupJob(client, { mapping, ...options });
  },
});

/**
 * autocomplete: a free-text address column -> the best suggestion's normalised address, its
 * coordinates and its score. One request per distinct text (case and spacing do not matter). The
 * bearer token the interface needs is the client's business: fetched once, shared by every
 * request, renewed before it expires and once more when the service rejects it.
 */

import { z } from 'zod';
import type { AutocompleteRequest, GeoEntity, GeoEntityType } from '../contract/index.js';
import { AUTOCOMPLETE_MAX_TOP, GEO_ENTITY_TYPES } from '../contract/index.js';
import type { ItemFailure, Job } from '../engine/job.js';
import type { Fields, LonLat } from '../types.js';
import { type BoostSettings, boostBoxOption, boostNearOption, boostRequest } from './_boosts.js';
import { columnName } from './_column-name.js';
import {
  COORD_FORMAT_DOC,
  type CoordFormat,
  coordCells,
  coordFormatOption,
  DEFAULT_COORD_FORMAT,
  lonLatColumns,
} from './_coord-format.js';
import { cell, columnOf, type Mapping, readText } from './_fields.js';
import { firstIssue, refuse, requireEach } from './_file-rules.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { countries, languages, positiveInt, prefix } from './_options.js';
import type { AutocompletePort } from './_ports.js';
import { answerOf, eachItem } from './_single.js';

export interface AutocompleteJobOptions extends BoostSettings {
  readonly mapping: Mapping;
  /** @default 'ac_' */
  readonly prefix?: string;
  /** Suggestions asked per text; the best-scored one is written. @default 5 (the service's default) */
  readonly top?: number;
  /** Only these entity types (`filterOptions.includedGeoEntities`). @default all */
  readonly types?: readonly GeoEntityType[];
  /** Never these entity types. @default none */
  readonly excludeTypes?: readonly GeoEntityType[];
  /** ISO country codes to search in (`isoCountries`). @default all the service covers */
  readonly countries?: readonly string[];
  /** Only suggestions that have a postcode (`filterOptions.plzSearch`). @default false */
  readonly withZip?: boolean;
  /** A best suggestion scoring below this fails the row as NO_MATCH. @default none */
  readonly minScore?: number;
  /** The coordinate columns' format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormat;
}

const OUTPUT = [
  'display',
  'type',
  'street',
  'house_no',
  'zip',
  'city',
  'city_part',
  'district',
  'state',
  'country',
  'lon',
  'lat',
  'score',
  'osmid',
  'candidates',
] as const;

/** One text to ask about, and the key texts that differ only by case and spacing share. */
export interface Query {
  readonly key: string;
  readonly text: string;
}

/** The text as one request: trimmed, inner spaces collapsed. */
function normalise(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** Texts that differ only by case and spacing are one request (the service's matching ignores both). */
function textKey(text: string): string {
  return text.toLocaleLowerCase('de-DE');
}

/** The best-scored suggestion; among equal scores the service's own order decides. */
export function best(entities: readonly GeoEntity[]): GeoEntity | undefined {
  let chosen: GeoEntity | undefined;
  for (const entity of entities) {
    if (chosen === undefined || (entity.repositoryScore ?? -Infinity) > (chosen.repositoryScore ?? -Infinity))
      chosen = entity;
  }
  return chosen;
}

function pointOf(entity: GeoEntity): LonLat | null {
  const c = entity.geometry?.coordinates;
  if (c === undefined || typeof c[0] !== 'number' || typeof c[1] !== 'number') return null;
  return [c[0], c[1]];
}

function noMatch(text: string, message: string, detail: Record<string, string | number> = {}): ItemFailure {
  return { code: 'NO_MATCH', stage: 'response', message, detail: { query: text.slice(0, 200), ...detail } };
}

export function createAutocompleteJob(
  client: AutocompletePort,
  options: AutocompleteJobOptions,
): Job<Query, GeoEntity[]> {
  const prefix = options.prefix ?? 'ac_';
  const format = options.coordFormat ?? DEFAULT_COORD_FORMAT;
  const queryField = columnOf(options.mapping, 'query') ?? 'query';

  const request = (text: string): AutocompleteRequest => {
    const filter: NonNullable<AutocompleteRequest['filterOptions']> = {};
    if (options.types !== undefined) filter.includedGeoEntities = [...options.types];
    if (options.excludeTypes !== undefined) filter.excludedGeoEntities = [...options.excludeTypes];
    if (options.withZip === true) filter.plzSearch = true;
    return {
      query: text,
      top: options.top ?? 5,
      ...(options.countries === undefined ? {} : { isoCountries: [...options.countries] }),
      ...boostRequest(options),
      ...(Object.keys(filter).length === 0 ? {} : { filterOptions: filter }),
    };
  };

  const columns = (entity: GeoEntity, candidates: number): Fields => {
    const [x, y] = coordCells(pointOf(entity), format);
    const values: Record<(typeof OUTPUT)[number], ReturnType<typeof cell>> = {
      display: cell(entity.displayValue),
      type: cell(entity.geoEntityType),
      street: cell(entity.street),
      house_no: cell(entity.houseNo),
      zip: cell(entity.zip),
      city: cell(entity.city ?? entity.village),
      city_part: cell(entity.cityPart),
      district: cell(entity.district),
      state: cell(entity.state),
      country: cell(entity.country),
      lon: x,
      lat: y,
      score: cell(entity.repositoryScore),
      osmid: cell(entity.osmid),
      candidates,
    };
    return Object.fromEntries(OUTPUT.map((name) => [`${prefix}${name}`, values[name]]));
  };

  return {
    kind: 'autocomplete',
    columns: OUTPUT.map((name) => `${prefix}${name}`),
    plan(row) {
      const raw = readText(row, options.mapping, 'query');
      if (raw === undefined)
        return {
          code: 'FIELD_MISSING',
          field: queryField,
          message: `${columnName(queryField)}: missing; expected an address or place as free text`,
        };
      const text = normalise(raw);
      return [{ key: textKey(text), text }];
    },
    key: (q) => q.key,
    // The first spelling of a key is the one sent; later ones share its answer.
    execute: eachItem(
      (q: Query) => q.key,
      (q, signal) => client.autocomplete(request(q.text), { signal }),
    ),
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return answer.failed;
      const text = normalise(readText(row, options.mapping, 'query') ?? '');
      const chosen = best(answer.value);
      if (chosen === undefined)
        return { ok: false, failure: noMatch(text, `no suggestion for \`${text.slice(0, 80)}\``) };
      const score = chosen.repositoryScore;
      if (
        options.minScore !== undefined &&
        (score === null || score === undefined || score < options.minScore)
      ) {
        const shown = chosen.displayValue ?? chosen.geoEntityType;
        return {
          ok: false,
          failure: noMatch(
            text,
            `the best suggestion \`${shown}\` scored ${score ?? 'nothing'}, below minScore ${options.minScore}`,
            { display: String(shown), score: score ?? '' },
          ),
        };
      }
      const point = pointOf(chosen);
      return {
        ok: true,
        records: [
          {
            columns: columns(chosen, answer.value.length),
            geometry: point === null ? null : { type: 'Point', coordinates: [point[0], point[1]] },
          },
        ],
      };
    },
  };
}

const entityType = z.enum(GEO_ENTITY_TYPES);

/** Without the text every row would fail as FIELD_MISSING: there is no default column. */
function queryIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireEach(mapping, ['query'], 'the free text to complete');
}

/** A type both wanted and excluded leaves the service nothing of it to suggest: every such row finds nothing. */
function typesIssue(options: {
  readonly types?: readonly string[];
  readonly excludeTypes?: readonly string[];
}): FileIssue | undefined {
  const both = (options.types ?? []).filter((type) => options.excludeTypes?.includes(type));
  if (both.length === 0) return undefined;
  return {
    path: 'options.excludeTypes',
    expected: `expected types that options.types does not name, got ${both.join(', ')} in both`,
    received: both.join(', '),
    hint: 'name each type in one of the two lists',
  };
}

export const autocompleteKind = defineJobKind({
  name: 'autocomplete',
  summary: 'free-text addresses -> the best suggestion, normalised, with coordinates and score',
  mappingFields: ['query'],
  mappingRequired: true,
  options: z.strictObject({
    prefix,
    top: positiveInt.max(AUTOCOMPLETE_MAX_TOP).optional(),
    types: z.array(entityType).min(1).optional(),
    excludeTypes: z.array(entityType).min(1).optional(),
    countries,
    withZip: z.boolean().optional(),
    minScore: z.number().nonnegative().optional(),
    coordFormat: coordFormatOption,
    languages,
    boostNear: boostNearOption,
    boostBox: boostBoxOption,
  }),
  services: ['autocomplete', 'token'],
  docs: {
    mapping: '`query` (required: the free text)',
    options: {
      prefix: '`ac_`',
      top: '5, at most 50',
      types: 'all; e.g. [CITY, ZIP, STREET]',
      excludeTypes: 'none',
      countries: 'all; e.g. [DE, AT]',
      withZip: 'false',
      minScore: 'none',
      coordFormat: COORD_FORMAT_DOC,
      languages: 'all; e.g. [de, en]',
      boostNear: 'none; { `lon`, `lat`, `radius` (metres), `weight` }',
      boostBox: 'none; { `west`, `south`, `east`, `north`, `weight` }',
    },
  },
  checkFile: ({ mapping, options }) => firstIssue(queryIssue(mapping), typesIssue(options)),
  coordinates: (options) => ({
    writes: {
      columns: lonLatColumns(options.prefix ?? 'ac_'),
      format: options.coordFormat ?? DEFAULT_COORD_FORMAT,
      option: 'coordFormat',
    },
  }),
  create({ client, mapping, options }) {
    refuse('autocomplete', firstIssue(queryIssue(mapping), typesIssue(options)));
    return createAutocompleteJob(client, { mapping, ...options });
  },
});

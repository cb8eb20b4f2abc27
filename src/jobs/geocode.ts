/**
 * geocode: address columns (or one single-slot column) -> coordinates and the matched components.
 * One request per distinct address: the service takes one address a request, so dedup is the
 * only saving, and it is keyed on the normalised address.
 */

import { z } from 'zod';
import { GEOCODE_LOCATION_FIELDS, type GeocodeLocation } from '../contract/index.js';
import type { Job, PlanIssue } from '../engine/job.js';
import type { Fields, Row } from '../types.js';
import { columnName } from './_column-name.js';
import {
  COORD_FORMAT_DOC,
  type CoordFormat,
  coordCells,
  coordFormatOption,
  DEFAULT_COORD_FORMAT,
  lonLatColumns,
} from './_coord-format.js';
import { readCountry } from './_country.js';
import { cell, columnOf, isPlanIssue, type Mapping, readText } from './_fields.js';
import { refuse, requireOne } from './_file-rules.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { prefix } from './_options.js';
import type { GeocodeMatch, GeocodePort, GeocodeResult } from './_ports.js';
import { prefixedCache } from './_prefixed.js';
import { answerOf, eachItem } from './_single.js';
import { unfilled } from './_unfilled.js';
import { germanOrUnset, restoredZip } from './_zip.js';

export interface GeocodeJobOptions {
  readonly mapping: Mapping;
  /** @default 'geo_' */
  readonly prefix?: string;
  /** The `lon`/`lat` columns' format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormat;
}

const LOCATION_FIELDS = GEOCODE_LOCATION_FIELDS;

const OUTPUT = [
  'lon',
  'lat',
  'street',
  'house_no',
  'zip',
  'city',
  'district',
  'iso_country',
  'description',
  'match_level',
] as const;

/**
 * German postcodes lose their leading zero in spreadsheets (01067 -> 1067). A four-digit code in
 * a German address is restored rather than failed; anything else that is not five digits is invalid.
 */
function normaliseZip(zip: string, country: string | undefined): string | PlanIssue {
  if (!germanOrUnset(country)) return zip;
  const restored = restoredZip(zip);
  if (/^\d{5}$/.test(restored)) return restored;
  return {
    code: 'FIELD_INVALID',
    field: 'zip',
    message: `zip: expected a 5-digit German postcode, got \`${zip}\``,
  };
}

export function planLocation(row: Row, mapping: Mapping): GeocodeLocation | PlanIssue {
  const location: GeocodeLocation = {};
  for (const field of LOCATION_FIELDS) {
    const value = readText(row, mapping, field);
    if (value !== undefined) location[field] = value.replace(/\s+/g, ' ');
  }
  // As its code, as address-search sends it: `Deutschland`, `de` and `DE` are one address (one
  // request), and `GER` fails here naming its column, where the service's "no match" blamed the
  // address.
  if (location.country !== undefined) {
    const country = readCountry(row, mapping);
    if (isPlanIssue(country)) return country;
    if (country !== undefined) location.country = country;
  }
  if (location.zip !== undefined) {
    const zip = normaliseZip(location.zip, location.country);
    if (typeof zip !== 'string')
      return {
        ...zip,
        field: columnOf(mapping, 'zip') ?? 'zip',
        message: zip.message.replace(/^zip/, columnName(columnOf(mapping, 'zip') ?? 'zip')),
      };
    location.zip = zip;
  }
  if (location.zip === undefined && location.city === undefined && location.singleSlot === undefined) {
    const named = ['zip', 'city', 'singleSlot'].flatMap((key) => columnOf(mapping, key) ?? []);
    return {
      code: 'FIELD_MISSING',
      field: named[0] ?? 'zip',
      message: `${unfilled(row, named, 'zip')}; expected a postcode or a city (or a single-slot address)`,
    };
  }
  return location;
}

/** Same address, same request: case, spacing and field order do not matter. */
export function locationKey(location: GeocodeLocation): string {
  return LOCATION_FIELDS.map((field) => (location[field] ?? '').toLowerCase()).join('|');
}

export function createGeocodeJob(
  client: GeocodePort,
  options: GeocodeJobOptions,
): Job<GeocodeLocation, GeocodeResult> {
  const prefix = options.prefix ?? 'geo_';
  return {
    kind: 'geocode',
    columns: matchColumnNames(prefix),
    plan(row) {
      const location = planLocation(row, options.mapping);
      return 'code' in location ? (location as PlanIssue) : [location];
    },
    key: locationKey,
    execute: eachItem(locationKey, (item, signal) => client.geocode(item, { signal })),
    render(_row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return answer.failed;
      const match = answer.value.match;
      if (match === null) return { ok: false, failure: noMatch(answer.value) };
      return {
        ok: true,
        records: [
          {
            columns: matchColumns(prefix, match, options.coordFormat),
            geometry: { type: 'Point', coordinates: [match.lon, match.lat] },
          },
        ],
      };
    },
  };
}

export function noMatch(result: GeocodeResult) {
  const { errCode, publicReport } = result.exception ?? {};
  const detail: Record<string, string> = {};
  if (errCode !== undefined && errCode !== null) detail.errCode = String(errCode);
  if (publicReport) detail.publicReport = publicReport;
  return {
    code: 'NO_MATCH' as const,
    stage: 'response' as const,
    message: publicReport ? `no match: ${publicReport}` : 'no match for this address',
    detail,
  };
}

/** The columns a geocoding match fills, in output order. */
const MATCH_COLUMNS = prefixedCache(OUTPUT);

export function matchColumnNames(prefix: string): string[] {
  return [...MATCH_COLUMNS(prefix).names];
}

export function matchColumns(
  prefix: string,
  match: GeocodeMatch,
  format: CoordFormat = DEFAULT_COORD_FORMAT,
): Fields {
  const [x, y] = coordCells([match.lon, match.lat], format);
  return MATCH_COLUMNS(prefix).fields({
    lon: x,
    lat: y,
    street: cell(match.street),
    house_no: cell(match.houseNo),
    zip: cell(match.zip),
    city: cell(match.city),
    district: cell(match.district),
    iso_country: cell(match.isoCountry),
    description: cell(match.description),
    match_level: cell(match.matchLevel),
  });
}

/** Each address needs a postcode, a city or a single slot: a mapping with none fails every row. */
function placeIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireOne(
    mapping,
    ['zip', 'city', 'singleSlot'],
    'each address needs a postcode, a city or a single-slot address',
  );
}

export const geocodeKind = defineJobKind({
  name: 'geocode',
  summary: 'addresses -> coordinates and the matched address',
  mappingFields: GEOCODE_LOCATION_FIELDS,
  mappingRequired: true,
  options: z.strictObject({ prefix, coordFormat: coordFormatOption }),
  services: ['geojson'],
  docs: {
    mapping:
      '`street`, `houseNo`, `zip`, `city`, `district`, `country`, `cityPart`, `cityAddOn`, `singleSlot`; each row needs a zip, city or single slot',
    options: { prefix: '`geo_`', coordFormat: COORD_FORMAT_DOC },
  },
  checkFile: ({ mapping }) => placeIssue(mapping),
  // A postcode is checked as a German one where the country is Germany or not given: a country
  // column beside a constant postcode decides row by row.
  // A country that is no country fails every row whatever its postcode: checked alone first, as
  // a postcode column beside it kept the pair from being checked at all (rC: `GER` loaded).
  constants: () => [
    { keys: ['country'], read: planLocation },
    { keys: ['zip', 'country'], read: planLocation },
  ],
  coordinates: (options) => ({
    writes: {
      columns: lonLatColumns(options.prefix ?? 'geo_'),
      format: options.coordFormat ?? DEFAULT_COORD_FORMAT,
      option: 'coordFormat',
    },
  }),
  create({ client, mapping, options }) {
    refuse('geocode', placeIssue(mapping));
    return createGeocodeJob(client, { mapping, ...options });
  },
});

/**
 * A country cell as the service's `IsoCountryCode` takes it: an ISO 3166 code (`DE`, or `DEU` as
 * its two letters), the one-letter form the spec allows (`D`), or a country's name in German or
 * English (`Deutschland`, `Germany`, `Österreich`, `UK`) as its two-letter code. A column that the
 * geocoder reads as it is (it takes names) sent a name to the search, which found nothing and wrote
 * the row ok with no hit: anything else (`GER`, `BRD`, a typo) is no country, said so.
 *
 * The codes and names are i18n-iso-countries' (ISO 3166-1, with the names and common aliases of
 * each language): a table kept up to date elsewhere rather than one of ours; ICU's region names
 * alone could not tell `GER` from an alpha-3 code. Loaded on the first country read, not with the
 * registry: its tables cost every run about 2 MB of heap and 15 MB of resident memory.
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import type { PlanIssue } from '../engine/job.js';
import type { Row } from '../types.js';
import { columnName } from './_column-name.js';
import { columnOf, type Mapping, readText } from './_fields.js';

type Countries = typeof import('i18n-iso-countries');

let countries: Countries | undefined;

function loaded(): Countries {
  if (countries !== undefined) return countries;
  const require = createRequire(import.meta.url);
  const library = require('i18n-iso-countries') as Countries;
  library.registerLocale(require('i18n-iso-countries/langs/de.json'));
  library.registerLocale(require('i18n-iso-countries/langs/en.json'));
  countries = library;
  return library;
}

/** One-letter vehicle registration codes of European countries (Austria, Belgium, Germany, Spain, France, Hungary, Italy, Luxembourg, Malta, Norway, Portugal, Sweden, the Vatican). */
const ONE_LETTER = new Set(['A', 'B', 'D', 'E', 'F', 'H', 'I', 'L', 'M', 'N', 'P', 'S', 'V']);

/** The code to send for `text`, or undefined when it is neither a code nor a country's name. */
export function countryCode(text: string): string | undefined {
  const trimmed = text.trim();
  // The spec: "one-letter form (e.g. `D`) also accepted", the letters of the international vehicle
  // registration codes; the European countries' one-letter codes are taken, any other letter (a
  // typo, a placeholder) is no country.
  if (/^[A-Za-z]$/.test(trimmed)) {
    const letter = trimmed.toUpperCase();
    return ONE_LETTER.has(letter) ? letter : undefined;
  }
  const library = loaded();
  const upper = trimmed.toUpperCase();
  if (/^[A-Z]{2}$/.test(upper) && library.isValid(upper)) return upper;
  if (/^[A-Z]{3}$/.test(upper)) {
    const alpha2 = library.alpha3ToAlpha2(upper);
    if (alpha2 !== undefined) return alpha2;
  }
  const name = trimmed.normalize('NFC').replace(/\s+/g, ' ');
  return library.getSimpleAlpha2Code(name, 'de') ?? library.getSimpleAlpha2Code(name, 'en');
}

/**
 * The row's `country` as its code (countryCode), undefined when it gives none, or why its cell is
 * no country, naming the column.
 */
export function readCountry(row: Row, mapping: Mapping): string | undefined | PlanIssue {
  const written = readText(row, mapping, 'country');
  if (written === undefined) return undefined;
  const code = countryCode(written);
  if (code !== undefined) return code;
  const field = columnOf(mapping, 'country') ?? 'country';
  return {
    code: 'FIELD_INVALID',
    field,
    message: `${columnName(field)}: expected ${COUNTRY_EXPECTED}; got ${JSON.stringify(written)}`,
  };
}

const COUNTRY_EXPECTED =
  "an ISO country code such as DE (or D, DEU), or a country's name in German or English";

/**
 * A job-wide country (a kind's `country` option), taken in every form a row's country is and sent
 * as its code; anything else is refused at load, as a row's would be one row at a time.
 */
export const countryOption = z
  .string()
  .refine((text) => countryCode(text) !== undefined, COUNTRY_EXPECTED)
  .transform((text) => countryCode(text) as string)
  .optional();

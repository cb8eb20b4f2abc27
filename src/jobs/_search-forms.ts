/**
 * The three forms of an address search and what a row gives each: a point (ByBranchesAndPosition),
 * address fields (ByBranchesAndAddress) or a rectangle (ByBranchesAndRectangle). Each row becomes
 * the form's location parameters and the key that identical searches share.
 */
import type { AddressSearchParams, CoordFormat } from '../contract/index.js';
import type { PlanIssue } from '../engine/job.js';
import type { Row } from '../types.js';
import { readCountry } from './_country.js';
import { columnOf, isPlanIssue, type Mapping, pointKey, readPoint, readText } from './_fields.js';
import type { FormRule } from './_forms.js';
import { POINT_FIELDS } from './_options.js';
import { RECTANGLE_FIELDS, type Rectangle, readRectangle, rectangleKey } from './_rectangle.js';
import { unfilled } from './_unfilled.js';
import { germanOrUnset, restoredZip } from './_zip.js';

export type SearchForm = 'position' | 'address' | 'rectangle';

export const ADDRESS_FIELDS = ['zip', 'city', 'street', 'houseNo', 'location', 'country'] as const;

/** The mapping keys of each form; the form is `options.form`, else the one whose keys are mapped. */
export const SEARCH_FORMS: FormRule<SearchForm> = {
  keys: { position: POINT_FIELDS, address: ADDRESS_FIELDS, rectangle: RECTANGLE_FIELDS },
  required: { rectangle: RECTANGLE_FIELDS },
  // What addressSearch refuses a row without (ByBranchesAndPosition takes no Street).
  oneOf: {
    address: {
      keys: ['zip', 'city', 'location'],
      why: 'the service searches a street only within a postcode or a city, not near a point',
    },
  },
  fallback: 'position',
  formOption: true,
};

export const ENDPOINT = {
  position: 'ByBranchesAndPosition',
  address: 'ByBranchesAndAddress',
  rectangle: 'ByBranchesAndRectangle',
} as const;

/** One search: the form's location parameters, and the key identical searches share. */
export interface Search {
  readonly key: string;
  readonly params: AddressSearchParams;
  /** The rectangle form's rectangle in degrees (its params may be in another format). */
  readonly rect?: Rectangle;
}

/** `fallback`: the job's `country` option, for a row that gives none. */
function addressSearch(row: Row, mapping: Mapping, fallback: string | undefined): Search | PlanIssue {
  const text = (field: string) => readText(row, mapping, field);
  const [given, city, location] = [text('zip'), text('city'), text('location')];
  const own = readCountry(row, mapping);
  if (isPlanIssue(own)) return own;
  const country = own ?? fallback;
  if (given === undefined && city === undefined && location === undefined) {
    // Every column the address could have come from, as geocode names them (src/jobs/_unfilled.ts).
    const named = ['zip', 'city', 'location'].flatMap((key) => columnOf(mapping, key) ?? []);
    return {
      code: 'FIELD_MISSING',
      field: named[0] ?? 'zip',
      message: `${unfilled(row, named, 'zip')}; expected a postcode, a city or a single-slot location to search around`,
    };
  }
  // The service's Street holds the house number too.
  const street = [text('street'), text('houseNo')].filter((s) => s !== undefined).join(' ') || undefined;
  const alone = city === undefined && street === undefined && location === undefined;
  const zip = given === undefined ? undefined : wholeZip(given, alone, country);
  const params: AddressSearchParams = {
    ...(zip === undefined ? {} : { Zip: zip }),
    ...(city === undefined ? {} : { City: city }),
    ...(street === undefined ? {} : { Street: street }),
    ...(location === undefined ? {} : { Location: location }),
    ...(country === undefined ? {} : { IsoCountryCode: country }),
  };
  // Case and spacing do not make another address.
  const key = [zip, city, street, location, country]
    .map((v) => (v ?? '').toLocaleLowerCase('de-DE').replace(/\s+/g, ' '))
    .join('|');
  return { key: `a:${key}`, params };
}

/**
 * The spec's Zip "may be partial when given alone; several separated by the pipe character, each
 * then complete". A four-digit German code is a postcode that lost its leading zero in a
 * spreadsheet, restored as geocode restores it, alone too: a column of postcodes alone is exactly
 * what a spreadsheet strips, and searched as a prefix `1099` (Dresden's 01099) found Berlin's
 * 10997, written as ok. A shorter code alone is a prefix (`76`); a trailing `*` asks for one of
 * any length (`1099*` searches the postcodes starting with 1099), and is not sent.
 */
function wholeZip(zip: string, alone: boolean, country: string | undefined): string {
  if (alone && /^\d{1,5}\*$/.test(zip)) return zip.slice(0, -1);
  if (!germanOrUnset(country)) return zip;
  if (zip.includes('|'))
    return zip
      .split('|')
      .map((part) => restoredZip(part.trim()))
      .join('|');
  return restoredZip(zip);
}

/**
 * The search a row asks for in `form`, its coordinates read in `format`; or why it cannot.
 * `country`: the job's, which the address form's row may override (the others send it as it is).
 */
export function planSearch(
  form: SearchForm,
  row: Row,
  mapping: Mapping,
  format: CoordFormat,
  country?: string,
): Search | PlanIssue {
  if (form === 'address') return addressSearch(row, mapping, country);
  if (form === 'rectangle') {
    const rect = readRectangle(row, mapping, format);
    if (isPlanIssue(rect)) return rect;
    // Lux/Luy is the upper-left corner, Rlx/Rly the lower-right (service notes). A SUPERKONFORM
    // sheet goes as it is, in its format (CoordFormatIn, which the rectangle form takes): the
    // service searches the sheet, where the box of degrees holding it would answer more.
    const { sheet } = rect;
    const params: AddressSearchParams =
      sheet === undefined
        ? { Lux: rect.west, Luy: rect.north, Rlx: rect.east, Rly: rect.south }
        : {
            Lux: sheet.west,
            Luy: sheet.north,
            Rlx: sheet.east,
            Rly: sheet.south,
            CoordFormatIn: sheet.format,
          };
    return { key: `r:${rectangleKey(rect)}`, params, rect };
  }
  const point = readPoint(row, mapping, { format });
  if (isPlanIssue(point)) return point;
  return { key: pointKey(point), params: { LocX: point[0], LocY: point[1] } };
}

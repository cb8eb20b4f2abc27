/**
 * A compact stored form for answers that are objects of a fixed shape: the values in a fixed
 * order, as a JSON array, without the field names. A geocode answer kept this way is 115
 * characters instead of 265, and JSON.parse reads it in 0.4 µs instead of 1.05 (measured on
 * 100,000 answers): on a fully cached nightly run that is a third of what a hit costs.
 *
 * Both forms are read: a value that starts with `[` is packed, one that starts with `{` is the
 * plain result, as older entries and answers that do not fit the shape (a "not found" with the
 * service's exception) are kept. An older geobatch reads a packed entry as a miss and asks again,
 * never as a wrong answer. Unpacking checks the array's length and every value's type, so that an
 * entry of another shape is a miss too.
 */
import type { GeocodeMatch, GeocodeResult } from '../client/geocoding.js';

export interface Packing {
  /** The answer as an array, or undefined to keep it plain. */
  pack(value: unknown): unknown[] | undefined;
  /** The answer back, or undefined when the array is not of this shape. */
  unpack(packed: unknown[]): unknown;
}

/** GeocodeMatch's fields in stored order; the type below fails to compile when one is missing. */
const MATCH_FIELDS = [
  'lon',
  'lat',
  'street',
  'houseNo',
  'zip',
  'city',
  'cityPart',
  'district',
  'isoCountry',
  'description',
  'matchLevel',
] as const;
const everyField: Exclude<keyof GeocodeMatch, (typeof MATCH_FIELDS)[number]> extends never ? true : never =
  true;
void everyField;

const isText = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** A geocode or reverse-geocode answer with a match: [candidates, ...the match's fields]. */
export const GEOCODE_PACKING: Packing = {
  pack(value) {
    if (typeof value !== 'object' || value === null) return undefined;
    const result = value as GeocodeResult;
    const match = result.match;
    // Only the exact shape: an answer with more (an exception, a field a later client adds) stays
    // plain rather than losing what the array has no place for.
    if (typeof match !== 'object' || match === null || Object.keys(result).length !== 2) return undefined;
    if (Object.keys(match).length !== MATCH_FIELDS.length || !MATCH_FIELDS.every((f) => f in match))
      return undefined;
    return [result.candidates, ...MATCH_FIELDS.map((field) => match[field])];
  },
  unpack(a) {
    if (a.length !== MATCH_FIELDS.length + 1) return undefined;
    const [
      candidates,
      lon,
      lat,
      street,
      houseNo,
      zip,
      city,
      cityPart,
      district,
      isoCountry,
      description,
      level,
    ] = a;
    if (typeof candidates !== 'number' || typeof lon !== 'number' || typeof lat !== 'number')
      return undefined;
    if (!(isText(street) && isText(houseNo) && isText(zip) && isText(city) && isText(cityPart)))
      return undefined;
    if (!(isText(district) && isText(isoCountry) && isText(description) && isText(level))) return undefined;
    // Built as the client builds it (geocoding.ts), so that the keys come in the same order.
    const match: GeocodeMatch = {
      lon,
      lat,
      street,
      houseNo,
      zip,
      city,
      cityPart,
      district,
      isoCountry,
      description,
      matchLevel: level,
    };
    const result: GeocodeResult = { match, candidates };
    return result;
  },
};

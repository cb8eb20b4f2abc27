/**
 * The zod pieces every kind's options and mapping are made of, so that the same key means the same
 * thing and is checked the same way in every kind.
 */
import { z } from 'zod';

export const positiveInt = z.number().int().positive();
export const nonNegativeInt = z.number().int().nonnegative();

/** Output column prefix. */
export const prefix = z
  .string()
  .regex(/^[A-Za-z0-9_]*$/, 'letters, digits and _ only')
  .optional();

/**
 * The language the service answers multilingual content in (address search's IsoLocale, routing's
 * isoLocale): the spec's form is its default, `de-DE`, a language and a country. Checked at load
 * so that `english` or `en_GB` is refused before a night's requests, not answered in German.
 */
export const locale = z
  .string()
  .regex(/^[A-Za-z]{2}[-_][A-Za-z]{2}$/, 'a locale such as de-DE or en-GB (language, hyphen, country)')
  // Taken in any case and with the POSIX underscore (`en_gb`, as the countries and languages are
  // taken in any case), sent as the spec writes it, so that both spellings are one cache entry.
  .transform((text) => `${text.slice(0, 2).toLowerCase()}-${text.slice(3).toUpperCase()}`)
  .optional();

/**
 * A point an option names once for the whole job (`{ lon: 8.4, lat: 49.0 }`), in degrees whatever
 * the rows' coordinate format: the spec's reference keys are a longitude and a latitude.
 */
export const lonLatOption = z
  .strictObject({
    lon: z.number().min(-180).max(180),
    lat: z.number().min(-90).max(90),
  })
  .optional();

/**
 * ISO country codes a request is limited to (autocomplete's and the area's `isoCountries`), sent
 * as the service writes them (DE, not de): what the user types is taken either way.
 */
export const countries = z
  .array(
    z
      .string()
      .regex(/^[A-Za-z]{2,3}$/, 'an ISO country code such as DE')
      .transform((code) => code.toUpperCase()),
  )
  .min(1)
  .optional();

/** ISO 639-1 codes (`isoLanguages`), sent in lower case as the spec writes them (`de`, not `DE`). */
export const languages = z
  .array(
    z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'an ISO 639-1 language code such as de or en')
      .transform((code) => code.toLowerCase()),
  )
  .min(1)
  .optional();

/** Milliseconds a partial batch waits for more items. */
export const lingerMs = nonNegativeInt.optional();

/** A request field comes from a column (`zip: plz` or `{ column: plz }`) or a constant (`{ value: DE }`). */
export const fieldSourceSchema = z.union(
  [
    z.string().min(1),
    z.strictObject({ column: z.string().min(1) }),
    z.strictObject({ value: z.union([z.string(), z.number()]) }),
  ],
  {
    // zod's own words were "Invalid input" for { column, value } together, and "expected string or
    // object" for `minutes: 15`, a constant written without `value:`, which did not say how to write it.
    error: (issue) =>
      typeof issue.input === 'number'
        ? `expected a column name, or a constant written { value: ${String(issue.input)} }`
        : 'expected a column name, { column: <name> } or { value: <constant> }, one of them',
  },
);

/**
 * The decimal mark of the numbers in the input's cells (`input.decimal`); the other mark then
 * separates thousands. Absent: either mark, no thousands separator.
 */
export const decimalMark = z.enum(['.', ',']);

export const INPUT_FORMATS = ['csv', 'ndjson', 'geojson'] as const;
export const DELIMITERS = ['auto', ',', ';', '\t', '|', 'tab'] as const;
export const ENCODINGS = ['utf-8', 'utf8', 'latin1', 'windows-1252', 'iso-8859-1'] as const;

/** How a file is read: the keys an input and a side input (matrix destinations) share. */
export const readingKeys = {
  format: z.enum(INPUT_FORMATS).optional(),
  /** CSV only. */
  delimiter: z.enum(DELIMITERS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  /** A larger record (CSV record, NDJSON line, GeoJSON feature) is skipped and reported. */
  maxRecordBytes: positiveInt.optional(),
  /** CSV: most lines a quoted field may span before its quote is taken for a stray one. */
  maxRecordLines: positiveInt.optional(),
};

/** A mapping block: each of `keys` may name a column or a constant; any other key is an error. */
export function mappingSchema<K extends string>(keys: readonly [K, ...K[]]) {
  return z.strictObject(
    Object.fromEntries(keys.map((k) => [k, fieldSourceSchema.optional()])) as Record<
      K,
      z.ZodOptional<typeof fieldSourceSchema>
    >,
  );
}

/** The lon/lat pair most kinds read. */
export const POINT_FIELDS = ['lon', 'lat'] as const;

/**
 * The docs' words for that pair, whole wherever they stand: a README table row could say "as
 * above", but init copies the words into a job file, where nothing is above.
 */
export const POINT_DOC =
  '`lon`, `lat` (default: a Point geometry, else columns named lon/lng/longitude/x and lat/latitude/y)';

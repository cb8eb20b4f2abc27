/**
 * The service's wire shapes: Geocoding (apiKey; one POST endpoint, GEOCODE or REVERSE_GEOCODE).
 * Shared by the client and the emulator (see index.ts for the conventions).
 */
import { z } from 'zod';
import { anyGeometry, bbox, optNullableString } from './_fields.js';
import type { CoordFormat, Crs, GeocodingType } from './common.js';

export interface GeocodeLocation {
  country?: string;
  /** A sample request uses `isoCountry` in place of `country`; the emulator reads both. */
  isoCountry?: string;
  district?: string;
  zip?: string;
  city?: string;
  cityAddOn?: string;
  cityPart?: string;
  street?: string;
  houseNo?: string;
  /** Free text holding any number of address details. */
  singleSlot?: string;
}

/** The address fields a GEOCODE request can carry, in the order the spec lists them. */
export const GEOCODE_LOCATION_FIELDS = [
  'street',
  'houseNo',
  'zip',
  'city',
  'district',
  'country',
  'cityPart',
  'cityAddOn',
  'singleSlot',
] as const satisfies readonly (keyof GeocodeLocation)[];

export interface GeocodeRequest {
  type: 'Feature';
  properties: Record<string, never>;
  geometry: { type: 'Point'; coordinates: [number, number] };
  crs: Crs;
  searchparams: { geocodingType: GeocodingType; coordFormatOut: CoordFormat };
  authentication: { channel: string };
  /** Address fields for GEOCODE; an empty object for REVERSE_GEOCODE. */
  location: GeocodeLocation;
}

export const geocodeFeaturePropertiesSchema = z.looseObject({
  description: optNullableString,
  city: optNullableString,
  country: optNullableString,
  isoCountry: optNullableString,
  district: optNullableString,
  cityAddon: optNullableString,
  cityPart: optNullableString,
  houseNo: optNullableString,
  street: optNullableString,
  zip: optNullableString,
  /**
   * EMULATOR CHOICE: granularity of the match (`ZIP`, `CITY`, `STREET`...), in the vocabulary of
   * address search's GeoLevel. Optional: the spec does not list it.
   */
  matchLevel: optNullableString,
});
export type GeocodeFeatureProperties = z.infer<typeof geocodeFeaturePropertiesSchema>;

export const geocodeExceptionSchema = z.looseObject({
  errCode: z.union([z.string(), z.number()]).nullish(),
  publicReport: optNullableString,
});

export const geocodeResponseSchema = z.looseObject({
  type: z.string(),
  bbox: bbox.nullish(),
  properties: z.looseObject({ exception: geocodeExceptionSchema.nullish() }).nullish(),
  features: z
    .array(
      z.looseObject({
        type: z.string(),
        geometry: anyGeometry.nullable(),
        bbox: bbox.nullish(),
        properties: geocodeFeaturePropertiesSchema.nullable(),
      }),
    )
    .default([]),
});
export type GeocodeResponse = z.infer<typeof geocodeResponseSchema>;

/** EMULATOR CHOICE: errCode for "no match" (public material shows only that a code is given). */
export const GEOCODE_NO_MATCH_CODE = 'NO_RESULT';

/**
 * EMULATOR CHOICE for the bodies of 400/412/500 on routing, geocoding and autocomplete (not shown):
 * the geocoding exception vocabulary. The client reads `publicReport`, `message` or `error`, and
 * never trusts the body to exist.
 */
export interface ServiceErrorBody {
  errCode: string;
  publicReport: string;
}

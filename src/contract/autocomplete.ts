/**
 * The service's wire shapes: Autocomplete (Bearer token from the token endpoint).
 * Shared by the client and the emulator (see index.ts for the conventions).
 */
import { z } from 'zod';
import { optNullableString, pointGeometry, position } from './_fields.js';
import type { GeoPoint } from './common.js';

/** The entity types an autocomplete filter may name, as the spec lists them. */
export const GEO_ENTITY_TYPES = [
  'AIRPORT',
  'CITY',
  'CITY_WITH_ZIP',
  'CITYPART',
  'CITYPART_WITH_ZIP',
  'COUNTY',
  'COUNTRY',
  'DISTRICT',
  'NEIGHBOURHOOD',
  'STATE',
  'STREET',
  'STREET_WITHOUT_CITY',
  'TRAIN_STATION',
  'ZIP',
  'ISLAND',
  'VILLAGE',
  'ATTRACTION',
] as const;

export type GeoEntityType = (typeof GEO_ENTITY_TYPES)[number];

export interface AutocompleteRequest {
  query: string;
  /** @default false */
  geoJson?: boolean;
  boostOptions?: {
    proximityBoost?: { radius: number; value: number };
    boundingBoxBoost?: { value: number };
  };
  boundingbox?: { leftDown: GeoPoint; rightUp: GeoPoint };
  center?: GeoPoint;
  isoCountries?: string[];
  isoLanguages?: string[];
  filterOptions?: {
    /** @default false */
    plzSearch?: boolean;
    includedGeoEntities?: GeoEntityType[];
    excludedGeoEntities?: GeoEntityType[];
    /** @default false */
    inBoundingBox?: boolean;
  };
  /** @default 5 */
  top?: number;
}

export const geoEntitySchema = z.looseObject({
  geoEntityType: z.string(),
  countryLongName: optNullableString,
  country: optNullableString,
  state: optNullableString,
  neighbourhood: optNullableString,
  district: optNullableString,
  county: optNullableString,
  city: optNullableString,
  cityPart: optNullableString,
  zip: optNullableString,
  street: optNullableString,
  village: optNullableString,
  houseNo: optNullableString,
  geometry: z.looseObject({ type: z.string(), coordinates: position }).nullish(),
  poi: optNullableString,
  osmid: z.number().nullish(),
  repositoryScore: z.number().nullish(),
  displayValue: optNullableString,
});
export type GeoEntity = z.infer<typeof geoEntitySchema>;

/** `geoJson: false` answer. EMULATOR CHOICE: a bare array would also be plausible; the client takes both. */
export const autocompleteListSchema = z.union([
  z.looseObject({ geoEntities: z.array(geoEntitySchema) }),
  z.array(geoEntitySchema),
]);

/** `geoJson: true` answer; property names may be capitalised (GeoEntityType, DisplayValue, `_osmid`). */
export const autocompleteCollectionSchema = z.looseObject({
  type: z.literal('FeatureCollection'),
  features: z.array(
    z.looseObject({
      type: z.literal('Feature'),
      geometry: pointGeometry.nullable(),
      properties: z.record(z.string(), z.unknown()),
    }),
  ),
});

/** The token endpoint answers `application/json` holding a single string. */
export const tokenResponseSchema = z.string().min(1);

/** EMULATOR CHOICE (upper bound not shown): the largest autocomplete `top`. */
export const AUTOCOMPLETE_MAX_TOP = 50;

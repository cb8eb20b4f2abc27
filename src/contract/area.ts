/**
 * The service's wire shapes: Area (apiKey; GET and POST forms).
 * Shared by the client and the emulator (see index.ts for the conventions).
 */
import { z } from 'zod';
import { anyGeometry, bbox } from './_fields.js';
import type { GeoPoint } from './common.js';

export interface AreaCommonBody {
  isoCountries?: string[];
  isoLanguages?: string[];
  /** 0 to 1; 0 keeps full precision. */
  reduceGeometry?: number;
  zoom?: number;
}
export interface AreaPointBody extends AreaCommonBody {
  level: number;
  points: GeoPoint[];
}
export interface AreaRectangleBody extends AreaCommonBody {
  level: number;
  boundingBox: { northEast: GeoPoint; southWest: GeoPoint };
}
export interface AreaOsmidBody extends AreaCommonBody {
  latitude?: number;
  osmids: number[];
}

/** EMULATOR CHOICE (not shown): the most points in one POST point request. */
export const AREA_MAX_POINTS = 1000;

/**
 * EMULATOR CHOICE (the spec: "names in several languages, the ISO code of its country and a postal
 * code", exact names not shown). The emulator sends all of these; the client needs only a name and
 * a key from among the variants (`name`/`Name`/`names.*`, `key`/`ars`/`id`/`osmid`).
 */
export interface AreaProperties {
  osmid: number;
  level: number;
  name: string;
  /** Names by ISO-639-1 language code. */
  names: Record<string, string>;
  /** ISO 3166-1 alpha-2 of the country. */
  isoCountry: string;
  /** ISO 3166-2 of the area where it has one (states). */
  iso3166_2: string | null;
  /** Official key (German ARS) of the area. */
  key: string;
  /** Kind of area as the source names it (`Land`, `Kreis`, `Kreisfreie Stadt`). */
  kind: string | null;
  postalCode: string | null;
}

export const areaFeatureSchema = z.looseObject({
  type: z.literal('Feature'),
  geometry: anyGeometry.nullable(),
  properties: z.record(z.string(), z.unknown()).nullable(),
  bbox: bbox.optional(),
});
export const areaResponseSchema = z.looseObject({
  type: z.literal('FeatureCollection'),
  bbox: bbox.nullish(),
  features: z.array(areaFeatureSchema),
});
export type AreaResponse = z.infer<typeof areaResponseSchema>;

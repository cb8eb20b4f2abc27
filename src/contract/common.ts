/**
 * The service's wire shapes: Shared vocabulary.
 * Shared by the client and the emulator (see index.ts for the conventions).
 */

/** The service interfaces; each has its own throttle, auth scheme and error messages. */
export type InterfaceName =
  | 'addressSearch'
  | 'autocomplete'
  | 'token'
  | 'area'
  | 'routing'
  | 'geocoding'
  | 'elevation';

export const INTERFACE_NAMES: readonly InterfaceName[] = [
  'addressSearch',
  'autocomplete',
  'token',
  'area',
  'routing',
  'geocoding',
  'elevation',
];

/** Output/input coordinate formats (service-notes.md: only GEODECIMAL_POINT is vendor-documented). */
export type CoordFormat = 'GEODECIMAL_POINT' | 'GEODECIMAL' | 'MERCATOR' | 'SUPERKONFORM';
export const COORD_FORMATS: readonly CoordFormat[] = [
  'GEODECIMAL_POINT',
  'GEODECIMAL',
  'MERCATOR',
  'SUPERKONFORM',
];

export type SpeedProfile = 'FAST' | 'SLOW' | 'BICYCLE' | 'PEDESTRIAN';
export const SPEED_PROFILES: readonly SpeedProfile[] = ['FAST', 'SLOW', 'BICYCLE', 'PEDESTRIAN'];

export type RoutingType = 'ROUTE' | 'MATRIX' | 'TRIP' | 'ISOCHRONE' | 'MATCH';
export type GeocodingType = 'GEOCODE' | 'REVERSE_GEOCODE';

/** The reference system both GeoJSON interfaces are sent with. */
export interface Crs {
  type: 'name';
  properties: { name: string };
}
export const CRS84: Crs = { type: 'name', properties: { name: 'urn:ogc:def:crs:OGC:1.3:CRS84' } };

/** A latitude/longitude object as the area, elevation and autocomplete interfaces spell it. */
export interface GeoPoint {
  latitude: number;
  longitude: number;
}

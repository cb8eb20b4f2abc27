/**
 * The service's wire shapes: Elevation (apiKey; GET one point, POST many; at most 500 points a request).
 * Shared by the client and the emulator (see index.ts for the conventions).
 */
import type { GeoPoint } from './common.js';

export const ELEVATION_MAX_POINTS = 500;

export interface ElevationRequest {
  points: GeoPoint[];
}

/**
 * EMULATOR CHOICE (response field names not shown): `{ points: [{ latitude, longitude, elevation }] }`
 * in request order, for GET and POST alike, `elevation: null` where there is no data.
 * The client also accepts `elevations`/`results` arrays, a top-level array, bare numbers, and
 * `height`/`altitude`/`value` per point; -32768 and -9999 read as no data.
 */
export interface ElevationPointResult extends GeoPoint {
  elevation: number | null;
}
export interface ElevationResponse {
  points: ElevationPointResult[];
}

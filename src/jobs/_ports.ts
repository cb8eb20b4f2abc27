/**
 * The slices of the client each job uses. Jobs depend on these narrow ports rather than on the
 * whole client, so a job can be tested against a fake and reads as a statement of what it spends.
 */
import type { MultiPolygon, Polygon } from 'geojson';
import type {
  AddressSearchParams,
  AddressSearchResponse,
  AreaPointBody,
  GeocodeLocation,
  SpeedProfile,
} from '../client/wire.js';
import type { LonLat } from '../types.js';

interface Call {
  readonly signal?: AbortSignal;
}

export interface GeocodeMatch {
  lon: number;
  lat: number;
  street: string | null;
  houseNo: string | null;
  zip: string | null;
  city: string | null;
  district: string | null;
  isoCountry: string | null;
  description: string | null;
  matchLevel: string | null;
}

export interface GeocodeResult {
  match: GeocodeMatch | null;
  exception?: { errCode?: string | number | null; publicReport?: string | null };
}

export interface GeocodePort {
  geocode(location: GeocodeLocation, options?: Call): Promise<GeocodeResult>;
}

export interface ReverseGeocodePort {
  reverseGeocode(point: LonLat, options?: Call): Promise<GeocodeResult>;
}

export interface ElevationPort {
  elevation: { points(points: readonly LonLat[], options?: Call): Promise<(number | null)[]> };
}

export interface CustomerLookupPort {
  addressSearch: {
    byCustomerId(ids: readonly string[], options?: Call): Promise<AddressSearchResponse>;
  };
}

/** One administrative area as the client normalises it, whatever property names the service used. */
export interface AreaFeature {
  key: string;
  name: string;
  level: number;
  osmid?: number;
  geometry: Polygon | MultiPolygon;
}

export interface BoundariesPort {
  area: {
    points(body: AreaPointBody, options?: Call): Promise<{ features: AreaFeature[] }>;
    point(
      query: { level: number; latitude: number; longitude: number },
      options?: Call,
    ): Promise<{ features: AreaFeature[] }>;
  };
}

export interface MatrixCell {
  distance_m: number;
  duration_s: number;
}

export interface MatrixPort {
  routing: {
    matrix(
      origin: LonLat,
      destinations: readonly LonLat[],
      options?: Call & { speedProfile?: SpeedProfile },
    ): Promise<MatrixCell[]>;
  };
}

export interface AddressSearchPort {
  addressSearch: {
    pages(
      endpoint: 'ByBranchesAndPosition',
      params: AddressSearchParams,
      options?: Call & { maxPages?: number },
    ): AsyncIterable<AddressSearchResponse>;
  };
}

/**
 * The slices of the client each job uses. Jobs depend on these narrow ports rather than on the
 * whole client, so a job can be tested against a fake and reads as a statement of what it spends.
 * Result types are the client's own.
 */
import type { GeoClient } from '../client/index.js';

export type {
  AreaFeature,
  AreaResult,
  GeocodeMatch,
  GeocodeResult,
  IsochroneResult,
  Leg,
  Leg as MatrixCell,
  MatchResult,
  RouteResult,
  TripResult,
} from '../client/index.js';

type Area = GeoClient['area'];
type AddressSearch = GeoClient['addressSearch'];

export type GeocodePort = Pick<GeoClient, 'geocode'>;
export type ReverseGeocodePort = Pick<GeoClient, 'reverseGeocode'>;
export interface ElevationPort {
  elevation: Pick<GeoClient['elevation'], 'points'>;
}
export interface CustomerLookupPort {
  addressSearch: Pick<AddressSearch, 'byCustomerId'>;
}
export interface BoundariesPort {
  area: Pick<Area, 'points' | 'point'>;
}
export interface MatrixPort {
  routing: Pick<GeoClient['routing'], 'matrix'>;
}
export interface AddressSearchPort {
  addressSearch: Pick<AddressSearch, 'pages'>;
}
export interface RoutePort {
  routing: Pick<GeoClient['routing'], 'route'>;
}
export interface IsochronePort {
  routing: Pick<GeoClient['routing'], 'isochrone'>;
}
/** TRIP, and ROUTE for the legs when a TRIP answer has none. */
export interface TripPort {
  routing: Pick<GeoClient['routing'], 'trip' | 'route'>;
}
export interface MatchPort {
  routing: Pick<GeoClient['routing'], 'match'>;
}
export type AutocompletePort = Pick<GeoClient, 'autocomplete'>;
export interface IdentifierLookupPort {
  addressSearch: Pick<AddressSearch, 'byIdentifier'>;
}
export interface AreaExportPort {
  area: Pick<Area, 'osmids' | 'rectangle'>;
}

/** Everything any job may call; the real client satisfies it, tests may pass a fake. */
export type JobClient = GeocodePort &
  ReverseGeocodePort &
  ElevationPort &
  CustomerLookupPort &
  BoundariesPort &
  MatrixPort &
  AddressSearchPort &
  RoutePort &
  IsochronePort &
  TripPort &
  MatchPort &
  AutocompletePort &
  IdentifierLookupPort &
  AreaExportPort;

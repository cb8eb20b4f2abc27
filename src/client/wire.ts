/**
 * The service's JSON shapes: what goes over the wire, shared by the client and the emulator.
 *
 * Request bodies are plain TypeScript types (we build them). Responses are zod schemas (we must
 * check them at the boundary) with their inferred types, which the emulator uses to build answers.
 * Fields the client does not need are optional here, so that a real service omitting them is not
 * an error; the emulator still sends them all.
 *
 * Where the spec says "Not shown", the shape chosen for the emulator is marked EMULATOR CHOICE, is
 * documented in the README's emulator section, and the client also accepts the plausible variants
 * (see the `normalize*` helpers in the client's per-interface modules).
 */
import { z } from 'zod';

// ---------------------------------------------------------------------------------------------
// Shared vocabulary

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

const position = z.tuple([z.number(), z.number()]).rest(z.number());
const bbox = z.array(z.number());
const pointGeometry = z.object({ type: z.literal('Point'), coordinates: position });
/** Any GeoJSON geometry; coordinates are checked by whoever reads them. */
const anyGeometry = z.looseObject({ type: z.string(), coordinates: z.unknown().optional() });

// ---------------------------------------------------------------------------------------------
// Address search (HTTP Basic; five GET endpoints, one response object)

export type AddressSearchEndpoint =
  | 'ByBranchesAndAddress'
  | 'ByBranchesAndPosition'
  | 'ByBranchesAndRectangle'
  | 'ByCustomerId'
  | 'ByIdentifier';

export type OrderBy =
  | 'COMPANY_NAME'
  | 'DISTANCE'
  | 'MATRIX_COMPANY_NAME'
  | 'MATRIX_DISTANCE'
  | 'PHONE_BOOK_SEARCH_DISTANCE_NAME'
  | 'PHONE_BOOK_SEARCH_NAME'
  | 'EVENT_START_DATE'
  | 'EVENT_START_DATE_DISTANCE'
  | 'EVENT_DISTANCE'
  | 'NONE';
export const ORDER_BY: readonly OrderBy[] = [
  'COMPANY_NAME',
  'DISTANCE',
  'MATRIX_COMPANY_NAME',
  'MATRIX_DISTANCE',
  'PHONE_BOOK_SEARCH_DISTANCE_NAME',
  'PHONE_BOOK_SEARCH_NAME',
  'EVENT_START_DATE',
  'EVENT_START_DATE_DISTANCE',
  'EVENT_DISTANCE',
  'NONE',
];

/**
 * Query parameters, case-sensitive as the spec names them. All values travel as strings; the
 * client URL-encodes each value exactly once, except `Addition`, whose inner `=`/`&` must arrive
 * as %3D/%26 (see `encodeAddition` in the client).
 */
export interface AddressSearchParams {
  Branches?: string;
  Channel?: string;
  IsoCountryCode?: string;
  IsoLocale?: string;
  Zip?: string;
  City?: string;
  Street?: string;
  LocX?: number;
  LocY?: number;
  Lux?: number;
  Luy?: number;
  Rlx?: number;
  Rly?: number;
  CoordFormatIn?: CoordFormat;
  MaxRadius?: number;
  Top?: number;
  OrderBy?: OrderBy;
  Page?: number;
  FreeFilter?: string;
  Addition?: string;
  CustomerIds?: string;
  Identifier?: string;
}

/**
 * EMULATOR CHOICE: the spec names StatusCode values only as "0 = ok, non-zero = problem".
 * These are the codes the emulator uses; the client treats any non-zero code alike.
 */
export const ADDRESS_SEARCH_STATUS = {
  OK: 0,
  /** Credentials present but unknown: also IsRequestAuthenticated = false. */
  NOT_AUTHENTICATED: 1,
  /** A parameter outside its documented range (MaxRadius > 300 km, Top 0...). */
  INVALID_PARAMETER: 2,
  /** ByIdentifier with an identifier that names no record. */
  NOT_FOUND: 3,
  /** ByBranchesAndAddress: Zip/City/Location name no known place (added by the emulator engineer). */
  LOCATION_NOT_FOUND: 4,
  /** Any other server-side problem. */
  INTERNAL: 9,
} as const;

const nullableString = z.string().nullable();
const optString = z.string().optional();
const optNullableString = nullableString.optional();

export const geoItemSchema = z.looseObject({
  Country: optString,
  District: optString,
  Zip: optString,
  City: optString,
  CityAddOn: optNullableString,
  CityPart: optNullableString,
  Street: optString,
  HouseNo: optNullableString,
  GeoLevel: optNullableString,
  CityLevel: optNullableString,
  DistrictID: optNullableString,
  SeoLink: optNullableString,
  Description: optNullableString,
  LocX: z.string(),
  LocY: z.string(),
  CoordFormat: optString,
});
export type GeoItem = z.infer<typeof geoItemSchema>;

export const pagingSchema = z.looseObject({
  Page: z.number().int(),
  MaxPage: z.number().int(),
  Count: z.number().int(),
  MaxCount: z.number().int(),
});
export type Paging = z.infer<typeof pagingSchema>;

export const identifiersSchema = z.looseObject({
  YMID: z.string(),
  YMID3: optString,
  YMIDUrlEncoded: z.string(),
  YMIDPathEncoded: optString,
  YMIDDecoded: optString,
  ProviderID: optString,
  ProviderForeignKey: z.string(),
  ProviderEnum: optString,
});

export const postalAddressSchema = z.looseObject({
  CompanyName: z.string(),
  CompanyNameAddon1: optNullableString,
  CompanyNameAddon2: optNullableString,
  CompanyNameAddon3: optNullableString,
  FirstName: optNullableString,
  Country: optString,
  Zip: optString,
  City: optString,
  CityPart: optNullableString,
  Street: optString,
  HouseNo: optNullableString,
  Postbox: optNullableString,
});

export const contactSchema = z.looseObject({
  Phone: optNullableString,
  Mobile: optNullableString,
  Fax: optNullableString,
  Email: optNullableString,
  Url: optNullableString,
  Url2: optNullableString,
  Url3: optNullableString,
});

export const basicGeoSchema = z.looseObject({
  XCoord: z.string(),
  YCoord: z.string(),
  GeocodeStatus: optNullableString,
  /**
   * Metres, as a string: to the Addition reference point when its keys were sent, else to the search
   * location of a Position/Address search; empty otherwise (Rectangle, ByCustomerId, ByIdentifier).
   */
  Distance: optString,
  MatrixRouteDistance: optString,
  MatrixRouteTime: optString,
  DistanceToRoute: optNullableString,
});

export const branchListElementSchema = z.looseObject({
  BranchCode: z.string(),
  BranchText: optString,
  Keywords: optNullableString,
  SortNr: z.number().optional(),
  Kategorie: z.number().optional(),
  BranchCodePredecessor: optNullableString,
  NoOfBranchCodeChilds: z.number().optional(),
  Frequency: optNullableString,
  MarketPlace: optNullableString,
  MarketNumber: optNullableString,
  Country: optNullableString,
  Language: optNullableString,
});

/** service-notes.md: MemoItems carry opening hours with 28 `OpeningHours{Day}{Half}{From|Until}` strings. */
export const memoItemSchema = z.looseObject({
  BlockNo: z.number().optional(),
  Type: optString,
  Title: optNullableString,
  Text: optNullableString,
  OpeningHoursMask: optNullableString,
});

export const basicDataSchema = z.looseObject({
  Identifiers: identifiersSchema,
  Address: postalAddressSchema,
  Contact: contactSchema.optional(),
  Geo: basicGeoSchema,
  BranchListElements: z.array(branchListElementSchema).optional(),
  Marketing: z
    .looseObject({
      DisplayType: optString,
      TypeEnumValue: optString,
      TypeValueVisible: optString,
      IsCharged: z.boolean().optional(),
    })
    .optional(),
  BusinessData: z
    .looseObject({
      BusinessID: optString,
      BusinessIDDecoded: optString,
      AddressID: optNullableString,
      IsCompany: z.boolean().optional(),
      HandelsregisterType: optNullableString,
      HandelsregisterNr: optNullableString,
      UStIdNr: optNullableString,
      DateLastChange: optString,
      DateLastCheck: optString,
    })
    .optional(),
  AdditionalInfo: z
    .looseObject({
      Rating: optString,
      RatingCount: optString,
      RatingCategories: z.array(z.unknown()).optional(),
      Turnover: optString,
      CompanySize: optString,
      BusinessImage: z.unknown().optional(),
      BusinessNews: optString,
      CompanyInfo: optString,
    })
    .optional(),
  MemoItems: z.array(memoItemSchema).optional(),
  Images: z.array(z.unknown()).optional(),
  ObjectListItems: z.array(z.looseObject({ Description: optString })).optional(),
  ReleaseManagement: z.unknown().optional(),
  Copyright: z.unknown().optional(),
});
export type BasicData = z.infer<typeof basicDataSchema>;

export const addressItemSchema = z.looseObject({
  BasicData: basicDataSchema,
  Comments: z.array(z.unknown()).optional(),
  AdditionalContacts: z.array(z.unknown()).optional(),
  HotelReservationData: z.unknown().optional(),
  ImmoData: z.array(z.unknown()).optional(),
  History: z
    .looseObject({
      IsHistorical: z.boolean().optional(),
      ChangeDate: optString,
      ChangeType: optString,
      ReasonType: optString,
    })
    .optional(),
  Similarity: z.unknown().optional(),
});
export type AddressItem = z.infer<typeof addressItemSchema>;

export const addressSearchResponseSchema = z.looseObject({
  GeoItems: z.array(geoItemSchema).optional(),
  Paging: pagingSchema,
  AddressItems: z.array(addressItemSchema),
  AddressShadowItems: z.array(z.unknown()).optional(),
  AddressesNearby: z.array(z.unknown()).optional(),
  AddressTiles: z.array(z.unknown()).optional(),
  RegioAdItems: z.array(z.unknown()).optional(),
  RelatedBranches: z.array(z.unknown()).optional(),
  SeparatedBranches: z.array(z.unknown()).optional(),
  SearchData: z
    .looseObject({
      Branches: z.unknown().optional(),
      Catchwords: z.unknown().optional(),
      Location: z.looseObject({ XCoord: z.unknown().optional(), YCoord: z.unknown().optional() }).nullish(),
      NewSearchOnRectChange: z.boolean().optional(),
    })
    .optional(),
  AddressItemsCopyright: z
    .looseObject({ Text: optString, BrandingList: z.array(z.unknown()).optional() })
    .optional(),
  IsRequestAuthenticated: z.boolean().optional(),
  IsAccessApproved: z.boolean().optional(),
  StatusCode: z.number().int(),
  Exceptions: z.array(z.unknown()).optional(),
  PublicReport: z.string().nullable().optional(),
  InternalError: z.unknown().optional(),
});
export type AddressSearchResponse = z.infer<typeof addressSearchResponseSchema>;

/** The two documented 400 messages (German, as the service sends them, as a JSON string body). */
export const BRANCHES_REQUIRED_MESSAGE = 'Eine oder mehrere Branchen sind erforderlich.';
export const BAD_LOCATION_MESSAGE_PREFIX =
  'Die Angabe des X-Wertes der Standortkoordinate ist nicht korrekt.';

/** EMULATOR CHOICE (upper bound not shown): the largest `Top`; beyond it, or 0, is INVALID_PARAMETER. */
export const ADDRESS_SEARCH_MAX_TOP = 100;
/** EMULATOR CHOICE (not shown): the most supplier keys in one ByCustomerId request. */
export const CUSTOMER_IDS_MAX = 100;

/** Keys inside `Addition` that switch on BasicData.Geo.Distance. */
export const ADDITION_DISTANCE_KEYS = {
  lon: 'LocXForDistanceCalculation',
  lat: 'LocYForDistanceCalculation',
} as const;

// ---------------------------------------------------------------------------------------------
// Autocomplete (Bearer token from the token endpoint)

export type GeoEntityType =
  | 'AIRPORT'
  | 'CITY'
  | 'CITY_WITH_ZIP'
  | 'CITYPART'
  | 'CITYPART_WITH_ZIP'
  | 'COUNTY'
  | 'COUNTRY'
  | 'DISTRICT'
  | 'NEIGHBOURHOOD'
  | 'STATE'
  | 'STREET'
  | 'STREET_WITHOUT_CITY'
  | 'TRAIN_STATION'
  | 'ZIP'
  | 'ISLAND'
  | 'VILLAGE'
  | 'ATTRACTION';

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

// ---------------------------------------------------------------------------------------------
// Area (apiKey; GET and POST forms)

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

// ---------------------------------------------------------------------------------------------
// Routing (apiKey; one POST endpoint, `routingparams.type` picks the computation)

export interface RoutingParams {
  type: RoutingType;
  isoLocale?: string;
  coordFormatOut?: CoordFormat;
  speedProfile?: SpeedProfile;
  routingTimeMode?: 'ARRIVAL' | 'DEPARTURE';
  routingRoundTrip?: boolean;
  timeInMinutes?: number | null;
  distanceInMeters?: number | null;
  /** A string holding an integer 35..150. */
  isochroneGrid?: string;
  channel?: string;
}

export interface RoutingFeature {
  type: 'Feature';
  geometry: { type: 'Point'; coordinates: number[] } | { type: 'MultiPoint'; coordinates: number[][] };
  properties: Record<string, unknown>;
}

export interface RoutingRequest {
  type: 'FeatureCollection';
  routingparams: RoutingParams;
  authentication?: { channel?: string };
  crs?: Crs;
  features: RoutingFeature[];
}

/** EMULATOR CHOICE (not shown): the most points in one routing request (MATRIX: end points). */
export const ROUTING_MAX_POINTS = 1000;

/**
 * EMULATOR CHOICE for the feature properties the spec does not show:
 * - ROUTE: one LineString feature, properties `{ distance, duration }`.
 * - MATRIX: one Point feature per end point, in request order, properties
 *   `{ index, distance, duration }` (metres, seconds). The client also accepts a single feature
 *   with `distances`/`durations` arrays.
 * - TRIP: one LineString feature, properties `{ distance, duration, order }` (`order` = input
 *   indices in visiting order).
 * - ISOCHRONE: a Polygon feature `{ type: 'isochrone', timeInMinutes | distanceInMeters }` and the
 *   origin Point feature `{ type: 'origin' }`.
 * - MATCH: as the spec shows (`properties.matchDestinations`).
 * Every answer carries collection-level `properties: { distance, duration }` where they make sense.
 */
export const routingResponseSchema = z.looseObject({
  type: z.literal('FeatureCollection'),
  bbox: bbox.nullish(),
  properties: z.record(z.string(), z.unknown()).nullish(),
  features: z.array(
    z.looseObject({
      type: z.literal('Feature'),
      geometry: anyGeometry.nullable(),
      properties: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
});
export type RoutingResponse = z.infer<typeof routingResponseSchema>;

export interface MatchDestination {
  isMatched: boolean;
  distance: number;
  inPoint: { type: 'Point'; coordinates: number[] };
  matchedPoint: { type: 'Point'; coordinates: number[] };
}

// ---------------------------------------------------------------------------------------------
// Geocoding (apiKey; one POST endpoint, GEOCODE or REVERSE_GEOCODE)

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

// ---------------------------------------------------------------------------------------------
// Elevation (apiKey; GET one point, POST many; at most 500 points a request)

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

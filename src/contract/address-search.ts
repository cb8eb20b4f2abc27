/**
 * The service's wire shapes: Address search (HTTP Basic; five GET endpoints, one response object).
 * Shared by the client and the emulator (see index.ts for the conventions).
 */
import { z } from 'zod';
import { optNullableString, optString } from './_fields.js';
import type { CoordFormat } from './common.js';

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
  /** Extra free-text terms, separated by spaces; a filter on a search, not a search of its own. */
  Catchwords?: string;
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
 * These are the codes the emulator uses. The client treats any non-zero code alike (the request
 * fails as SERVICE_REPORTED); only `IsRequestAuthenticated: false` stops a run. Jobs may read a
 * code for a better row message (3 -> NOT_FOUND, 4 -> NO_MATCH), never as the only way they see
 * what the spec defines: an empty result set.
 */
export const ADDRESS_SEARCH_STATUS = {
  OK: 0,
  /** Credentials present but unknown: sent with IsRequestAuthenticated = false, which is what counts. */
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
   * Metres, as a string, to the Addition reference point when both its keys were sent; empty
   * without them (the spec's Addition keys: "without them the field stays empty").
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

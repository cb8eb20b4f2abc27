/**
 * The job file, as zod schemas. Objects are strict: a misspelt key is an error that names it,
 * not a setting silently ignored at 3 a.m.
 */
import { z } from 'zod';
import {
  GEOCODE_LOCATION_FIELDS,
  ORDER_BY,
  type OrderBy,
  SPEED_PROFILES,
  type SpeedProfile,
} from '../client/wire.js';
import { CUSTOMER_FIELDS } from '../jobs/customers.js';
import { cacheSchema } from './cache.js';

export const JOB_KINDS = [
  'geocode',
  'reverse-geocode',
  'elevation',
  'customer-lookup',
  'boundaries',
  'matrix',
  'address-search',
] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const INPUT_FORMATS = ['csv', 'ndjson', 'geojson'] as const;
export type InputFormat = (typeof INPUT_FORMATS)[number];
export const REPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const positiveInt = z.number().int().positive();
const nonNegativeInt = z.number().int().nonnegative();
const url = z.url({ protocol: /^https?$/ });

/** A request field comes from a column (`zip: plz` or `{ column: plz }`) or a constant (`{ value: DE }`). */
export const fieldSourceSchema = z.union([
  z.string().min(1),
  z.strictObject({ column: z.string().min(1) }),
  z.strictObject({ value: z.union([z.string(), z.number()]) }),
]);

const inputSchema = z.union([
  z.string().min(1),
  z.strictObject({
    path: z.string().min(1),
    format: z.enum(INPUT_FORMATS).optional(),
    delimiter: z.enum(['auto', ',', ';', '\t', '|', 'tab']).optional(),
    encoding: z.enum(['utf-8', 'utf8', 'latin1', 'windows-1252', 'iso-8859-1']).optional(),
  }),
]);

const outputSchema = z.union([
  z.string().min(1),
  z.strictObject({
    path: z.string().min(1),
    format: z.enum(INPUT_FORMATS).optional(),
    formulaGuard: z.boolean().optional(),
  }),
]);

const errorsSchema = z.union([
  z.string().min(1),
  z.strictObject({ path: z.string().min(1).optional(), format: z.enum(REPORT_FORMATS).optional() }),
]);

const limitSchema = z.strictObject({
  concurrency: positiveInt.optional(),
  rate: z.number().positive().nullable().optional(),
  burst: positiveInt.optional(),
});

const serviceSchema = z.strictObject({
  endpoints: z
    .strictObject({
      addressSearch: url.optional(),
      geojson: url.optional(),
      autocomplete: url.optional(),
      token: url.optional(),
      area: url.optional(),
      elevation: url.optional(),
    })
    .optional(),
  credentials: z
    .strictObject({
      apiKey: z.string().optional(),
      systemPartner: z.string().optional(),
      securityID: z.string().optional(),
      partner: z.string().optional(),
      partnerKey: z.string().optional(),
    })
    .optional(),
  channel: z.string().optional(),
  timeoutMs: positiveInt.optional(),
  retry: z
    .strictObject({
      maxAttempts: positiveInt.optional(),
      baseDelayMs: nonNegativeInt.optional(),
      maxDelayMs: nonNegativeInt.optional(),
      maxRetryAfterMs: nonNegativeInt.optional(),
    })
    .optional(),
  throttle: limitSchema
    .extend({
      interfaces: z
        .strictObject({
          addressSearch: limitSchema.optional(),
          autocomplete: limitSchema.optional(),
          token: limitSchema.optional(),
          area: limitSchema.optional(),
          routing: limitSchema.optional(),
          geocoding: limitSchema.optional(),
          elevation: limitSchema.optional(),
        })
        .optional(),
    })
    .optional(),
});

const runSchema = z.strictObject({
  window: positiveInt.optional(),
  dedupCacheSize: nonNegativeInt.optional(),
  checkpointSeconds: z.number().positive().optional(),
});

const mapping = <K extends string>(keys: readonly [K, ...K[]]) =>
  z.strictObject(
    Object.fromEntries(keys.map((k) => [k, fieldSourceSchema.optional()])) as Record<
      K,
      z.ZodOptional<typeof fieldSourceSchema>
    >,
  );

const POINT_FIELDS = ['lon', 'lat'] as const;

const common = {
  version: z.literal(1).optional(),
  description: z.string().optional(),
  input: inputSchema,
  output: outputSchema,
  errors: errorsSchema.optional(),
  service: serviceSchema.optional(),
  run: runSchema.optional(),
  cache: cacheSchema.optional(),
};

const prefix = z
  .string()
  .regex(/^[A-Za-z0-9_]*$/, 'letters, digits and _ only')
  .optional();

const geocodeJob = z.strictObject({
  ...common,
  job: z.literal('geocode'),
  mapping: mapping(GEOCODE_LOCATION_FIELDS),
  options: z.strictObject({ prefix }).optional(),
});

const reverseGeocodeJob = z.strictObject({
  ...common,
  job: z.literal('reverse-geocode'),
  mapping: mapping(POINT_FIELDS).optional(),
  options: z.strictObject({ prefix }).optional(),
});

const elevationJob = z.strictObject({
  ...common,
  job: z.literal('elevation'),
  mapping: mapping(POINT_FIELDS).optional(),
  options: z
    .strictObject({
      prefix,
      batchSize: positiveInt.max(500, 'the service takes at most 500 points a request').optional(),
      lingerMs: nonNegativeInt.optional(),
    })
    .optional(),
});

const customerLookupJob = z.strictObject({
  ...common,
  job: z.literal('customer-lookup'),
  mapping: mapping(['key'] as const),
  options: z
    .strictObject({
      prefix,
      batchSize: positiveInt.max(100).optional(),
      maxUrlLength: positiveInt.min(256).optional(),
      fields: z.array(z.enum(CUSTOMER_FIELDS)).min(1).optional(),
      onMultiple: z.enum(['first', 'fail', 'all']).optional(),
      lingerMs: nonNegativeInt.optional(),
    })
    .optional(),
});

const boundariesJob = z.strictObject({
  ...common,
  job: z.literal('boundaries'),
  mapping: mapping(POINT_FIELDS).optional(),
  options: z
    .strictObject({
      prefix,
      levels: z.array(z.number().int().min(0).max(11)).min(1).optional(),
      batchSize: positiveInt.max(1000).optional(),
      /** false: one GET per row and level, for comparison and for services without the POST form. */
      spatialIndex: z.boolean().optional(),
      lingerMs: nonNegativeInt.optional(),
    })
    .optional(),
});

const destinationsSchema = z.strictObject({
  path: z.string().min(1),
  format: z.enum(INPUT_FORMATS).optional(),
  delimiter: z.enum(['auto', ',', ';', '\t', '|', 'tab']).optional(),
  encoding: z.enum(['utf-8', 'utf8', 'latin1', 'windows-1252', 'iso-8859-1']).optional(),
  mapping: mapping(['lon', 'lat', 'id'] as const).optional(),
  /** Refuse destination files bigger than this many rows: they are held in memory. */
  maxRows: positiveInt.optional(),
});

const matrixJob = z.strictObject({
  ...common,
  job: z.literal('matrix'),
  /** Pairs mode: origin and destination columns; cross mode: the origin's lon/lat. */
  mapping: mapping([
    'originLon',
    'originLat',
    'destinationLon',
    'destinationLat',
    'lon',
    'lat',
  ] as const).optional(),
  options: z
    .strictObject({
      prefix,
      /** Origins file x destinations file, instead of one origin/destination pair per row. */
      destinations: destinationsSchema.optional(),
      tileSize: positiveInt.max(1000).optional(),
      speedProfile: z
        .enum(SPEED_PROFILES as readonly SpeedProfile[] as [SpeedProfile, ...SpeedProfile[]])
        .optional(),
      lingerMs: nonNegativeInt.optional(),
    })
    .optional(),
});

const addressSearchJob = z.strictObject({
  ...common,
  job: z.literal('address-search'),
  mapping: mapping(POINT_FIELDS).optional(),
  options: z.strictObject({
    prefix,
    /** Category codes in the service's syntax: `a|b` = a or b, `a&b` = a and b. */
    branches: z.string().min(1),
    radiusMeters: positiveInt.max(300_000, 'the service searches at most 300 km').optional(),
    nearest: positiveInt.max(1000).optional(),
    pageSize: positiveInt.max(100).optional(),
    orderBy: z.enum(ORDER_BY as readonly OrderBy[] as [OrderBy, ...OrderBy[]]).optional(),
    /** `nearest`: columns for the nearest hit and a count; `explode`: one output row per hit. */
    mode: z.enum(['nearest', 'explode']).optional(),
  }),
});

export const jobFileSchema = z.discriminatedUnion('job', [
  geocodeJob,
  reverseGeocodeJob,
  elevationJob,
  customerLookupJob,
  boundariesJob,
  matrixJob,
  addressSearchJob,
]);
export type JobFile = z.infer<typeof jobFileSchema>;

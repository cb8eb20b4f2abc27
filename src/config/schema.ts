/**
 * The job file, as zod schemas. Objects are strict: a misspelt key is an error that names it,
 * not a setting silently ignored at 3 a.m.
 */
import { z } from 'zod';
import {
  decimalMark,
  type INPUT_FORMATS,
  mappingSchema,
  nonNegativeInt,
  positiveInt,
  readingKeys,
} from '../jobs/_options.js';
import { JOB_KINDS, type JobKind } from '../jobs/index.js';
import type { OutputFormat } from '../output/writer.js';
import { cacheSchema } from './cache.js';

export { fieldSourceSchema, INPUT_FORMATS } from '../jobs/_options.js';
export type InputFormat = (typeof INPUT_FORMATS)[number];
/** What geobatch writes: the input formats, and GeoPackage. */
export const OUTPUT_FORMATS = ['csv', 'ndjson', 'geojson', 'gpkg'] as const satisfies readonly OutputFormat[];
export type { OutputFormat };
export const REPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const url = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });
const OUTPUT_DELIMITERS = [',', ';', '\t', '|', 'tab'] as const;

const inputSchema = z.union([
  z.string().min(1),
  z.strictObject({
    path: z.string().min(1),
    ...readingKeys,
    /** The decimal mark of the numbers in the input's cells (coordinates, metres...). */
    decimal: decimalMark.optional(),
  }),
]);

const outputSchema = z.union([
  z.string().min(1),
  z.strictObject({
    path: z.string().min(1),
    format: z.enum(OUTPUT_FORMATS).optional(),
    formulaGuard: z.boolean().optional(),
    /** CSV output only; the CSV error report takes it too (`,` for TAB: the report is a `.csv`). */
    delimiter: z.enum(OUTPUT_DELIMITERS).optional(),
    /** CSV output only: a UTF-8 byte order mark first, by which Excel knows the file is UTF-8. */
    bom: z.boolean().optional(),
    /** CSV output only: the decimal mark of the numbers geobatch writes (German Excel reads `,`). */
    decimal: z.enum(['.', ',']).optional(),
  }),
]);

/** One output as a job file gives it: a path alone, or a path with its settings. */
export type OutputEntry = z.infer<typeof outputSchema>;

const errorsSchema = z.union([
  z.string().min(1),
  z.strictObject({ path: z.string().min(1).optional(), format: z.enum(REPORT_FORMATS).optional() }),
]);

const limitSchema = z.strictObject({
  concurrency: positiveInt.optional(),
  // A union, not .nullable(): its refusal of text says null was taken, so that `${RATE:-null}` reads.
  rate: z.union([z.number().positive(), z.null()]).optional(),
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
      /** `null`: no Retry-After stops the run. */
      stopOnRetryAfterMs: z.union([nonNegativeInt, z.null()]).optional(),
      /** The silence of an interface that answered before which stops the run. */
      outageMs: nonNegativeInt.optional(),
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
  windowBytes: positiveInt.optional(),
  dedupCacheBytes: nonNegativeInt.optional(),
  checkpointSeconds: z.number().positive().optional(),
});

/** The keys every job file has, whether it names one `job` or a list of `steps`. */
export const common = {
  version: z.literal(1).optional(),
  description: z.string().optional(),
  input: inputSchema,
  /** One output; `outputs` for several (exactly one of the two, checked when the file is loaded). */
  output: outputSchema.optional(),
  outputs: z.array(outputSchema).min(1).optional(),
  errors: errorsSchema.optional(),
  /** The HTML run report: `false` for none, or where to write it. @default `<first output>.report.html` */
  report: z.union([z.literal(false), z.string().min(1)]).optional(),
  service: serviceSchema.optional(),
  run: runSchema.optional(),
  cache: cacheSchema.optional(),
};

/** One strict object per job kind, from its record: `job`, its mapping and its options. */
function kindSchema(kind: JobKind) {
  return z.strictObject({
    ...common,
    job: z.literal(kind.name),
    // Both optional for every kind: a missing block is read as {}, and the kind's file rules
    // (src/jobs/_kind.ts: requireOptions, its own, requireMapping) name the key it lacks and what
    // it is, in a one-job file and a step alike, where the schema could say only "expected object".
    mapping: mappingSchema(kind.mappingFields).optional(),
    options: kind.options.optional(),
  });
}

const kindSchemas = JOB_KINDS.map(kindSchema);

export const jobFileSchema = z.discriminatedUnion(
  'job',
  kindSchemas as unknown as [ReturnType<typeof kindSchema>, ...ReturnType<typeof kindSchema>[]],
);

/** A validated job file; `options` is checked by the kind's own schema, and read through it. */
export type JobFile = z.infer<typeof jobFileSchema>;

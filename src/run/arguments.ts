/**
 * The library's entries checked at run time: a caller's arguments are not typed there, and what
 * is wrong is refused before anything is built, naming the argument, what it must be and what came
 * ("Expected `spec.output.format` to be one of ..."), not met later as a TypeError deep inside.
 */
import { refuseMappingKeys } from '../config/mapping.js';
import { OUTPUT_FORMATS, REPORT_FORMATS } from '../config/schema.js';
import type { AnyJob } from '../engine/job.js';
import { UsageError } from '../errors.js';
import { INPUT_FORMATS } from '../jobs/_options.js';
import { createJob as buildJob, type KindContext } from '../jobs/index.js';
import { nearest } from '../nearest-word.js';
import type { RunSpec } from './spec.js';

/** What came, in words: a string is quoted as one, so `8` and "8" read differently. */
function described(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'function' ? 'a function' : 'an object';
}

function refuse(entry: string, at: string, expected: string, value: unknown): never {
  const received = described(value);
  throw new UsageError(`${entry}: expected \`${at}\` to be ${expected}, got ${received}`, {
    path: at,
    expected,
    received,
  });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isText = (value: unknown): value is string => typeof value === 'string' && value !== '';
const isFunction = (value: unknown): boolean => typeof value === 'function';

/** One part of an argument: where it is, what it must be, and the test of it. */
type Part = readonly [at: string, value: unknown, expected: string, ok: (value: unknown) => boolean];

function checkParts(entry: string, parts: readonly Part[]): void {
  for (const [at, value, expected, ok] of parts) if (!ok(value)) refuse(entry, at, expected, value);
}

const oneOf = (words: readonly string[]) => (value: unknown) =>
  typeof value === 'string' && words.includes(value);

/** A file a run reads or writes: `{ path, format }`, the format one of `formats`. */
function fileParts(at: string, file: unknown, formats: readonly string[]): Part[] {
  const given = isObject(file) ? file : {};
  return [
    [at, file, '{ path, format }', isObject],
    [`${at}.path`, given.path, 'a file path (or `-`)', isText],
    [`${at}.format`, given.format, `one of ${formats.join(', ')}`, oneOf(formats)],
  ];
}

const LOGGER_METHODS = ['error', 'warn', 'info', 'debug'] as const;

/**
 * Every part a RunSpec has: a key not among them is a misspelt one (`concurency: 3` ran at the
 * default, without a word). The two type checks below keep the list and the type together.
 */
const RUN_SPEC_KEYS = [
  'job',
  'steps',
  'jobFingerprint',
  'earlierFingerprints',
  'jobParts',
  'points',
  'mapped',
  'sideInputs',
  'input',
  'rows',
  'output',
  'moreOutputs',
  'report',
  'summaryPath',
  'runReport',
  'engine',
  'checkpoint',
  'resume',
  'restartIfChanged',
  'dryRun',
  'requestsPerSecond',
  'signal',
  'drain',
  'logger',
  'metrics',
  'progress',
  'cache',
  'process',
  'workKept',
  'distributed',
  'resumeFlags',
  'stdin',
] as const satisfies readonly (keyof RunSpec)[];
type Unlisted = Exclude<keyof RunSpec, (typeof RUN_SPEC_KEYS)[number]>;
const everyKeyListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyKeyListed;

/** runJob's spec: the parts it cannot run without, and the formats it writes. */
export function checkRunSpec(spec: unknown): asserts spec is RunSpec {
  if (!isObject(spec)) refuse('runJob', 'spec', 'an object (a RunSpec)', spec);
  const parts: Part[] = [
    ['spec.job', spec.job, 'a job (createJob)', (job) => isObject(job) && isFunction(job.plan)],
    ['spec.jobFingerprint', spec.jobFingerprint, 'a string', (value) => typeof value === 'string'],
    ...fileParts('spec.input', spec.input, INPUT_FORMATS),
    ...fileParts('spec.output', spec.output, OUTPUT_FORMATS),
    ['spec.moreOutputs', spec.moreOutputs, 'a list of outputs', (v) => v === undefined || Array.isArray(v)],
    ...(Array.isArray(spec.moreOutputs)
      ? spec.moreOutputs.flatMap((more, i) => fileParts(`spec.moreOutputs[${i}]`, more, OUTPUT_FORMATS))
      : []),
    ...(spec.report === null
      ? []
      : fileParts('spec.report', spec.report, REPORT_FORMATS).map(
          ([at, value, expected, ok], i): Part =>
            i === 0
              ? [at, value, '{ path, format }, or null for no error report', ok]
              : [at, value, expected, ok],
        )),
    [
      'spec.runReport',
      spec.runReport,
      'the run report file to write (a path), or null for none',
      (v) => v === undefined || v === null || isText(v),
    ],
    [
      'spec.signal',
      spec.signal,
      'an AbortSignal (AbortController.signal)',
      (v) => v === undefined || v instanceof AbortSignal,
    ],
    [
      'spec.logger',
      spec.logger,
      'a pino logger (createLogger)',
      (logger) => isObject(logger) && LOGGER_METHODS.every((method) => isFunction(logger[method])),
    ],
  ];
  checkParts('runJob', parts);
  const known: readonly string[] = RUN_SPEC_KEYS;
  const unknown = Object.keys(spec).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    const near = nearest(unknown, known);
    throw new UsageError(
      `runJob: unknown part \`spec.${unknown}\`${near === undefined ? '' : ` (did you mean \`${near}\`?)`}`,
      { path: `spec.${unknown}`, expected: `one of ${known.join(', ')}`, received: unknown },
    );
  }
}

/** A mapping as resolveMapping gives it: each field `{ column }` or `{ value }`, both text. */
function isResolvedSource(source: unknown): boolean {
  if (!isObject(source)) return false;
  const keys = Object.keys(source);
  return keys.length === 1 && (isText(source.column) || typeof source.value === 'string');
}

/** createJob's arguments: a kind's name and a context with what every kind may use. */
function checkJobArguments(name: unknown, context: unknown): asserts context is JobContext {
  checkParts('createJob', [['name', name, 'a job kind (JOB_KIND_NAMES)', isText]]);
  if (!isObject(context))
    refuse('createJob', 'context', 'an object ({ client, mapping, options, ... })', context);
  const mapping = isObject(context.mapping) ? context.mapping : {};
  checkParts('createJob', [
    ['context.client', context.client, 'a client (createClient)', (c) => isObject(c) || isFunction(c)],
    ['context.mapping', context.mapping, 'a mapping (resolveMapping)', isObject],
    ...Object.entries(mapping).map(
      ([field, source]): Part => [
        `context.mapping.${field}`,
        source,
        '{ column } or { value }, as resolveMapping gives it',
        isResolvedSource,
      ],
    ),
    ['context.options', context.options, 'an object', (v) => v === undefined || isObject(v)],
    ['context.endpoints', context.endpoints, 'an object of base URLs', isObject],
    ['context.readRows', context.readRows, 'a function', (v) => v === undefined || isFunction(v)],
    ['context.resolvePath', context.resolvePath, 'a function', (v) => v === undefined || isFunction(v)],
  ]);
}

/**
 * What createJob takes: a kind's context, where `readRows` and `resolvePath` may be left out by a
 * caller whose kind reads no side input (the README says such a kind never calls them).
 */
export type JobContext = Omit<KindContext<unknown>, 'readRows' | 'resolvePath'> &
  Partial<Pick<KindContext<unknown>, 'readRows' | 'resolvePath'>>;

/** The defaults of a context's optional parts: a side input read without `readRows` is refused. */
function withDefaults(name: string, context: JobContext): KindContext<unknown> {
  return {
    ...context,
    readRows:
      context.readRows ??
      ((input) => {
        refuse('createJob', 'context.readRows', `a function: a ${name} job reads ${input.path}`, undefined);
      }),
    resolvePath: context.resolvePath ?? ((path) => path),
  };
}

/**
 * The job of kind `name` (createJob in src/jobs), its arguments checked, and its mapping's fields
 * against the kind's as a job file's are: `street` in an elevation job's mapping is refused.
 */
export async function createJob(name: string, context: JobContext): Promise<AnyJob> {
  checkJobArguments(name, context);
  refuseMappingKeys(name, context.mapping);
  return buildJob(name, withDefaults(name, context));
}

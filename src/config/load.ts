/**
 * Loading a job file: parse (YAML or JSON), refuse literal secrets, interpolate the environment,
 * refuse endpoint URLs that carry a credential (from the file or the environment), validate
 * (reading substituted text as the numbers and booleans the schema wants), then resolve paths
 * (relative to the job file), formats and defaults into a JobConfig that the rest of the run can
 * trust without checking again.
 */
import { createHash } from 'node:crypto';
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from '../errors.js';
import type { InputEncoding } from '../input/reader.js';
import { type DecimalMark, type Mapping, resolveMapping } from '../jobs/_fields.js';
import { type JobKind, jobKind, type SideInput } from '../jobs/index.js';
import { REPORT_EXTENSIONS } from '../output/report.js';
import { scrub, urlCredentials } from '../secrets.js';
import { toConfigError } from './_issues.js';
import { readJobText } from './_job-text.js';
import {
  formatOfFile,
  givenOutputs,
  type OutputConfig,
  resolveOutput,
  resolveRunReport,
} from './_outputs.js';
import {
  type Delimiter,
  defaultErrorsPath,
  type FileKey,
  formatOf,
  normaliseDelimiter,
  normaliseEncoding,
  resolvePath,
} from './_paths.js';
import { namingVariables } from './_substituted.js';
import { keysAt, schemaKeys } from './_suggest.js';
import { refuseCredentialsInUrls } from './_url-credentials.js';
import {
  type KeptConstant,
  keepWrittenConstants,
  keepWrittenText,
  stepsAsRead,
  type WrittenNumbers,
  writtenNumbers,
  writtenPath,
} from './_written.js';
import { coerceSubstituted, type Env, fromVariables, type Interpolated, interpolate } from './env.js';
import type { InputFormat, JobFile, ReportFormat } from './schema.js';
import { jobFileSchema } from './schema.js';
import {
  refuseCredentialsElsewhere,
  refuseLiteralCredentials,
  registerCredentials,
  resolveService,
  type ServiceSettings,
} from './service.js';
import { type StepSource, type StepsFile, stepSources, stepsFileSchema } from './steps.js';

export type { FieldSource } from '../jobs/_fields.js';
export type { OutputConfig } from './_outputs.js';
export type { Delimiter } from './_paths.js';
export { defaultErrorsPath, formatOf } from './_paths.js';
export type { CredentialName, EndpointName, ServiceSettings } from './service.js';
export { emulatorEndpoints } from './service.js';

export interface InputSpec {
  /** Absolute path, or `-` for standard input. */
  readonly path: string;
  readonly format: InputFormat;
  /** Undefined: detect. */
  readonly delimiter?: Delimiter;
  /** Undefined: UTF-8. */
  readonly encoding?: InputEncoding;
  /** Undefined: the reader's defaults. */
  readonly maxRecordBytes?: number;
  readonly maxRecordLines?: number;
  /** The main input only: the decimal mark of its cells' numbers (the mappings carry it). */
  readonly decimal?: DecimalMark;
}

/** One step of the job: a kind with its mapping and options (a one-job file has one step). */
export interface StepConfig {
  /** How the report and the summary name it: the file's `name:`, else the kind. */
  readonly name: string;
  /** The job kind's name, as the file's `job:` gives it. */
  readonly kind: string;
  /** The kind's record: its options schema, services and how to build the job. */
  readonly record: JobKind;
  /** Where each request field reads from; it carries input.decimal (INPUT_DECIMAL) when the file sets one. */
  readonly mapping: Mapping;
  /** The kind's options as validated by its schema (`{}` when the file gives none). */
  readonly options: Readonly<Record<string, unknown>>;
  /** Further files the kind reads whole (matrix destinations), by name, paths resolved. */
  readonly sideInputs: Readonly<Record<string, InputSpec>>;
  /**
   * Where the step is in the job file, put in front of the paths of messages about it: `steps[1]`
   * in a `steps:` file (also one of a single step), '' in a one-job file.
   */
  readonly path: string;
}

export interface JobConfig {
  /** Absolute path of the job file. */
  readonly file: string;
  /**
   * The directory its relative paths are read from: the file's own, or the working directory for
   * a job file handed over by a pipe (`<(envsubst < job.yaml)`, `/dev/stdin`).
   */
  readonly dir: string;
  /**
   * The job's name, as log records give it: its file name without extension, or the path of a
   * descriptor it came through (`/dev/fd/63`). Its last part names the default error report of a
   * run writing to `-`.
   */
  readonly name: string;
  /** What the run is called in summaries: the kind, or the steps' names joined by `+`. */
  readonly kind: string;
  /** The steps in order: one for a `job:` file, the list of a `steps:` file. */
  readonly steps: readonly StepConfig[];
  /** The validated document. */
  readonly document: JobFile | StepsFile;
  readonly input: InputSpec;
  /** The first output (`output:`, or the first of `outputs:`): it names the lock, the summary and the reports. */
  readonly output: OutputConfig;
  /** The outputs after the first (`outputs:`), written from the same pass. */
  readonly moreOutputs: readonly OutputConfig[];
  readonly errors: { readonly path: string; readonly format: ReportFormat };
  /** The HTML run report: `false` for none, a path, or undefined for `<first output>.report.html`. */
  readonly runReport: string | false | undefined;
  readonly service: ServiceSettings;
  /** Engine and checkpoint tuning as the file gives it; unset values take the engine's defaults. */
  readonly run: {
    readonly window?: number;
    readonly dedupCacheSize?: number;
    readonly windowBytes?: number;
    readonly dedupCacheBytes?: number;
    readonly checkpointSeconds?: number;
  };
  /**
   * The steps as versions before c287dbb read them, where they differ: a constant written as a
   * number (`{ value: 52.50 }`) was the number YAML read (52.5), now it is its text. Only for the
   * fingerprint a checkpoint of such a version holds (earlierFingerprintsOf).
   */
  readonly stepsAsRead?: readonly StepConfig[];
}

/** Reads, validates and resolves a job file. Every problem is a ConfigError naming file and path. */
export async function loadJobFile(file: string, env: Env = process.env): Promise<JobConfig> {
  // An empty path resolves to the working directory, refused as "a directory, not a job file".
  if (file.trim() === '')
    throw new ConfigError('no job file named: the path is empty', {
      file,
      hint: 'name the job file (a .yaml or .json file); `geobatch init <input>` writes one',
    });
  const lexical = path.resolve(file);
  // Read at the path as written, as the system reads it: resolving drops a trailing slash and `.`,
  // and `job.yaml/`, which names a directory, ran the file job.yaml.
  const written = path.isAbsolute(file) ? file : `${process.cwd()}${path.sep}${file}`;
  let text: string;
  try {
    text = await readJobText(written, file);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    // The commonest mistake of all gets words and a next step, not an errno.
    const [what, hint] =
      code === 'ENOENT'
        ? [
            'no such job file',
            `check the path (relative paths are read from ${process.cwd()}); \`geobatch init <input>\` writes a job file for an input`,
          ]
        : code === 'EISDIR'
          ? ['a directory, not a job file', 'name the job file in it (a .yaml or .json file)']
          : code === 'EACCES' || code === 'EPERM'
            ? ['the job file cannot be read (no permission)', 'check its permissions']
            : [`cannot read the job file (${code ?? 'error'})`, undefined];
    throw new ConfigError(`${file}: ${what}`, {
      file,
      cause: error,
      ...(hint === undefined ? {} : { hint }),
    });
  }
  // A job file from a pipe or a descriptor (`<(envsubst < job.yaml)` is /dev/fd/63, `/dev/stdin <
  // job.yaml`) has no directory of its own: its relative paths are read from the working
  // directory, as the shell that handed it over reads them, not from /dev/fd.
  const absolute = await pathRead(written, lexical);
  const handedOver = DESCRIPTOR.test(absolute) || !(await isRegularFile(absolute));
  return parseJobFile(text, absolute, env, file, handedOver ? process.cwd() : undefined);
}

/** A descriptor of this process by path: what the shell names a pipe or a redirection by. */
const DESCRIPTOR = /^\/(?:dev\/stdin|dev\/fd\/\d+|proc\/self\/fd\/\d+)$/;

/**
 * The job's name: its file name without extension, or a descriptor's whole path (`/dev/fd/63`, as
 * the closing line names it): log records named `<(cat job.yaml)` "63", which no user knew.
 */
function jobName(absolute: string): string {
  if (DESCRIPTOR.test(absolute)) return absolute;
  return path.basename(absolute).replace(/\.(ya?ml|json)$/i, '');
}

/**
 * Where the file read is: `lexical`, the path resolved as text, unless that names another file
 * than the system read. `link/../job.yaml` with `link` a symbolic link to `real/sub` is
 * `real/job.yaml` to the system and `job.yaml` to the text: its relative paths are then read from
 * `real`, beside the file that was read, not from a directory where no such file is.
 */
async function pathRead(written: string, lexical: string): Promise<string> {
  try {
    const [read, named] = await Promise.all([stat(written), stat(lexical).catch(() => undefined)]);
    if (!read.isFile() || (named !== undefined && named.dev === read.dev && named.ino === read.ino))
      return lexical;
    return path.join(await realpath(path.dirname(written)), path.basename(written));
  } catch {
    return lexical;
  }
}

async function isRegularFile(absolute: string): Promise<boolean> {
  try {
    return (await stat(absolute)).isFile();
  } catch {
    return false;
  }
}

/** Like loadJobFile, for a document already in memory; `shown` is how messages name the file. */
export function parseJobFile(
  text: string,
  absolute: string,
  env: Env,
  shown = absolute,
  /** The directory its relative paths are read from. @default the file's own */
  base = path.dirname(absolute),
): JobConfig {
  // The environment's credentials first: a syntax error's excerpt may quote one (maskedExcerpt).
  registerCredentials({}, env);
  const { value: raw, written } = parseText(text, shown);
  refuseLiteralCredentials(raw, shown);
  registerCredentials(raw, env);
  refuseCredentialsElsewhere(raw, env, shown, written);
  const interpolated = interpolate(raw, env, shown);
  try {
    return validated(interpolated, written, env, shown, { absolute, base });
  } catch (error) {
    throw namingVariables(error, interpolated, shown);
  }
}

/** The interpolated document checked, validated and resolved. */
function validated(
  interpolated: Interpolated,
  written: WrittenNumbers,
  env: Env,
  shown: string,
  where: { readonly absolute: string; readonly base: string },
): JobConfig {
  const { document } = interpolated;
  refuseCredentialsInUrls(document, env, shown, interpolated.substitutionAt);
  const kept = keepWrittenConstants(document, written, shown);
  refuseBadConstants(document, shown, written);
  const steps = 'steps' in (document as object);
  const schema = steps ? stepsFileSchema : jobFileSchema;
  let parsed = schema.safeParse(document);
  // Each round reads at least one substituted string as a number or boolean, or one number as the
  // text written, so it ends.
  while (
    !parsed.success &&
    (coerceSubstituted(interpolated, parsed.error.issues, shown) ||
      keepWrittenText(document, written, parsed.error.issues))
  )
    parsed = schema.safeParse(document);
  if (!parsed.success) {
    const keysHere = (path: readonly PropertyKey[]) => keysAt(schema, document, path);
    // Each line names the variables that gave its value; a mapping field's, those of its `value`.
    const from = (at: readonly PropertyKey[]) =>
      fromVariables(interpolated.substitutionAt(at) ?? interpolated.substitutionAt([...at, 'value']));
    throw toConfigError(shown, document, parsed.error.issues, schemaKeys(schema), keysHere, written, from);
  }
  const sources = steps ? stepSources(parsed.data as StepsFile, shown) : [oneStep(parsed.data as JobFile)];
  for (const source of sources) checkAcrossKeys(source, shown);
  const config = resolve(parsed.data as JobFile | StepsFile, sources, where, env, shown, interpolated);
  return withStepsAsRead(config, kept, steps);
}

function withStepsAsRead(config: JobConfig, kept: readonly KeptConstant[], steps: boolean): JobConfig {
  const asRead = stepsAsRead(config.steps, kept, steps);
  return asRead === undefined ? config : { ...config, stepsAsRead: asRead };
}

function oneStep(doc: JobFile): StepSource {
  return {
    name: doc.job,
    record: jobKind(doc.job) as JobKind,
    mapping: (doc.mapping ?? {}) as Record<string, unknown>,
    options: (doc.options ?? {}) as Record<string, unknown>,
    path: '',
  };
}

/** The kind's rules across mapping and options, reported like a schema error. */
function checkAcrossKeys(step: StepSource, shown: string): void {
  const issue = step.record.checkFile?.({ mapping: step.mapping, options: step.options });
  if (issue === undefined) return;
  const at = step.path === '' ? issue.path : `${step.path}.${issue.path}`;
  throw new ConfigError(`${shown}: ${at}: ${issue.expected}`, { file: shown, ...issue, path: at });
}

/**
 * A mapping constant (`{ value: ... }`) that is neither a string nor a number, named at its own
 * path: the schema's union would otherwise report the `{ column }` form's missing key.
 */
export function refuseBadConstants(document: unknown, shown: string, written?: WrittenNumbers): void {
  const doc = document as { mapping?: unknown; steps?: unknown };
  const mappings: [(string | number)[], unknown][] = [[['mapping'], doc.mapping]];
  if (Array.isArray(doc.steps))
    doc.steps.forEach((step, i) => {
      mappings.push([['steps', i, 'mapping'], (step as { mapping?: unknown } | null)?.mapping]);
    });
  for (const [at, mapping] of mappings) {
    if (mapping === null || typeof mapping !== 'object') continue;
    for (const [field, source] of Object.entries(mapping)) {
      if (source === null || typeof source !== 'object' || !('value' in source)) continue;
      const { value } = source;
      if (typeof value === 'string' || typeof value === 'number') continue;
      const path = writtenPath([...at, field, 'value'], written);
      const received = JSON.stringify(value) ?? String(value);
      throw new ConfigError(`${shown}: ${path}: expected a string or a number, got ${received}`, {
        file: shown,
        path,
        expected: 'a string or a number',
        received,
      });
    }
  }
}

/** Keys whose values are secrets, or account names scrubbed as such, wherever they stand. */
const SECRET_KEYS =
  'apiKey|securityID|systemPartner|partner|partnerKey|authToken|password|passwd|token|secret';
/** Such a key in flow style, and its value: quoted, or plain up to the next `,` `}` `]` or ` #`. */
const FLOW_SECRET = new RegExp(
  `[{,]\\s*["']?(?:${SECRET_KEYS})["']?\\s*:[ \\t]*("(?:[^"\\\\]|\\\\.)*"?|'(?:[^']|'')*'?|[^,}\\]\\s#](?:[^,}\\]#]*[^,}\\]\\s#])?)`,
  'gi',
);
/** Such a key in block style, and its value: the rest of the line, but a comment. */
const BLOCK_SECRET = new RegExp(
  `^(\\s*)(?:-\\s+)?["']?(?:${SECRET_KEYS})["']?\\s*:[ \\t]*(.*?)(?:\\s+#.*)?$`,
  'i',
);
/** A block scalar's indicator (`|`, `>-`...): the value is on the lines below. */
const BLOCK = /^[|>][+-]?\d*$/;

/**
 * The values the file gives keys that hold secrets (or account names, scrubbed as such): in block
 * style, in flow style, and a block scalar's lines below its key. Read off the text, as the file
 * does not parse.
 */
function secretsWritten(text: string): string[] {
  const found: string[] = [];
  const indent = (line: string) => line.length - line.trimStart().length;
  let blockUnder: number | undefined;
  for (const line of text.split(/\r?\n/)) {
    if (blockUnder !== undefined && (line.trim() === '' || indent(line) > blockUnder)) {
      if (line.trim() !== '') found.push(line.trim());
      continue;
    }
    blockUnder = undefined;
    const block = BLOCK_SECRET.exec(line);
    if (block !== null) {
      const value = block[2] as string;
      if (BLOCK.test(value)) blockUnder = (block[1] as string).length;
      else if (!value.startsWith('{') && !value.startsWith('[')) found.push(value);
    }
    for (const [, value] of line.matchAll(FLOW_SECRET)) found.push(value as string);
  }
  // No key is a few characters long, and masking every `x` of the excerpt would hide the mistake.
  return found.filter((value) => value.length >= 4);
}

/**
 * A syntax error's excerpt with what may be a secret masked, character for character so the caret
 * stays under its column: a value the file gives a credential's key (secretsWritten), a credential
 * in a URL, and what the environment's credentials hold. The file could not be read, so the keys
 * written in it were not yet known as secrets, and `apiKey: <the key>` beside a misaligned line
 * reached the terminal and the cron log as it was. Everything else stays, for the mistake to be
 * seen.
 */
function maskedExcerpt(lines: readonly string[], text: string): string[] {
  const stars = (value: string) => '*'.repeat(value.length);
  // The longest first: a value inside a longer one is masked with it.
  const secrets = secretsWritten(text).sort((a, b) => b.length - a.length);
  return lines.map((line) => {
    let masked = line;
    for (const value of secrets) masked = masked.split(value).join(stars(value));
    // Each token on its own too: the whole line parses as a URL whose scheme is a key (`cache:`),
    // and its user info went unseen.
    for (const token of [masked, ...masked.split(/[\s"'{},[\]]+/)])
      for (const { value } of urlCredentials(token))
        if (value !== '') masked = masked.split(value).join(stars(value));
    return scrub(masked);
  });
}

function parseText(text: string, shown: string): { value: unknown; written: WrittenNumbers } {
  // logLevel 'error': yaml otherwise prints its warnings (a key that is a list, stringified) as
  // Node process warnings below the message that already names that key as unknown.
  // merge: YAML's merge key (`<<: *defaults`), which job files with several similar steps use to
  // share keys; without it `<<` was an unknown key, or a step lost its `job:` in silence.
  const doc = parseDocument(text, { logLevel: 'error', merge: true });
  const error = doc.errors[0];
  if (error !== undefined) {
    const at = error.linePos?.[0];
    // yaml's message ends "at line 2, column 8:" and the line with a caret under the column: the
    // place goes where file places go, the excerpt on the lines below.
    const [first = '', ...excerpt] = error.message.split('\n');
    const reason = first.replace(/ at line \d+, column \d+:?$/, '');
    const shownExcerpt = maskedExcerpt(
      excerpt.filter((l) => l.trim() !== ''),
      text,
    ).map((l) => `  ${l}`);
    throw new ConfigError(
      [
        `${shown}${at === undefined ? '' : `:${at.line}:${at.col}`}: not valid YAML or JSON: ${reason}`,
        ...shownExcerpt,
      ].join('\n'),
      {
        file: shown,
        expected: 'a YAML or JSON job file',
        ...(at === undefined ? {} : { detail: { line: at.line, column: at.col } }),
      },
    );
  }
  const value: unknown = doc.toJS();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(`${shown}: expected a mapping with at least \`job\`, \`input\` and \`output\``, {
      file: shown,
      expected: 'a mapping',
    });
  }
  return { value, written: writtenNumbers(doc) };
}

function resolve(
  doc: JobFile | StepsFile,
  sources: readonly StepSource[],
  { absolute, base }: { readonly absolute: string; readonly base: string },
  env: Env,
  shown: string,
  interpolated: Interpolated,
): JobConfig {
  const input = typeof doc.input === 'string' ? { path: doc.input } : doc.input;
  const decimal = 'decimal' in input ? input.decimal : undefined;
  const steps = sources.map((source) => resolveStep(source, base, decimal, shown));
  const name = jobName(absolute);
  const errors = typeof doc.errors === 'string' ? { path: doc.errors } : (doc.errors ?? {});
  const errorsFormat =
    errors.format ??
    formatOfFile(shown, 'errors', errors.path ?? '', REPORT_EXTENSIONS, 'csv' as ReportFormat);
  const inputFormat = formatOf(input.path, input.format, 'csv');
  const [output, ...moreOutputs] = givenOutputs(doc, shown).map((given) =>
    resolveOutput(given, base, inputFormat, shown),
  ) as [OutputConfig, ...OutputConfig[]];
  const outputPath = output.path;
  return {
    file: absolute,
    dir: base,
    name,
    kind: steps.map((step) => step.name).join('+'),
    steps,
    document: doc,
    input: {
      ...inputSpec(input, base, 'csv', {
        shown,
        key: typeof doc.input === 'string' ? 'input' : 'input.path',
      }),
      ...(decimal === undefined ? {} : { decimal }),
    },
    output,
    moreOutputs,
    errors: {
      path:
        errors.path === undefined
          ? defaultErrorsPath(outputPath, name, errorsFormat)
          : resolvePath(base, errors.path, {
              shown,
              key: typeof doc.errors === 'string' ? 'errors' : 'errors.path',
              suggest: `errors.${errorsFormat}`,
            }),
      format: errorsFormat,
    },
    runReport: resolveRunReport(doc.report, base, shown),
    service: resolveService(doc, env, shown, interpolated.substitutionAt),
    run: doc.run ?? {},
  };
}

/** A step; `decimal` (input.decimal) goes into its mapping, by which its job reads the input's cells. */
function resolveStep(
  source: StepSource,
  base: string,
  decimal: DecimalMark | undefined,
  shown: string,
): StepConfig {
  return {
    name: source.name,
    kind: source.record.name,
    record: source.record,
    mapping: resolveMapping(source.mapping, decimal),
    options: source.options,
    sideInputs: resolveSideInputs(source, base, shown),
    path: source.path,
  };
}

/** A kind's second input files (matrix's `options.destinations`), each at `options.<name>`. */
function resolveSideInputs(source: StepSource, base: string, shown: string): Record<string, InputSpec> {
  const out: Record<string, InputSpec> = {};
  const at = source.path === '' ? 'options' : `${source.path}.options`;
  for (const [name, file] of Object.entries(source.record.sideInputs?.(source.options) ?? {}))
    out[name] = inputSpec(file, base, 'csv', { shown, key: `${at}.${name}.path` });
  return out;
}

/** An input or side input as the file gives it (a bare path gives only the path), resolved. */
function inputSpec(file: SideInput, base: string, fallback: InputFormat, at: FileKey): InputSpec {
  return {
    path: resolvePath(base, file.path, at),
    format: formatOf(file.path, file.format, fallback),
    delimiter: normaliseDelimiter(file.delimiter as Parameters<typeof normaliseDelimiter>[0]),
    encoding: normaliseEncoding(file.encoding as Parameters<typeof normaliseEncoding>[0]),
    ...(file.maxRecordBytes === undefined ? {} : { maxRecordBytes: file.maxRecordBytes }),
    ...(file.maxRecordLines === undefined ? {} : { maxRecordLines: file.maxRecordLines }),
  };
}

/**
 * What a checkpoint must match to be resumed: the job's meaning (kind, mapping, options, files),
 * not its tuning (rate, concurrency, endpoints) and never its secrets.
 */
export function fingerprintOf(config: JobConfig): string {
  const meaning = {
    // A one-step file keeps the shape it always had, so its checkpoints stay valid.
    ...(config.steps.length === 1
      ? stepMeaning(config.steps[0] as StepConfig)
      : { steps: config.steps.map((step) => ({ name: step.name, ...stepMeaning(step) })) }),
    input: config.input,
    output: config.output,
    // Only when there are several, so that a one-output job's checkpoints stay valid.
    ...(config.moreOutputs.length === 0 ? {} : { moreOutputs: config.moreOutputs }),
    errors: config.errors,
  };
  return createHash('sha256').update(JSON.stringify(meaning)).digest('hex').slice(0, 16);
}

/**
 * The fingerprints a checkpoint of an earlier version holds for this job where they are not
 * fingerprintOf's: before c287dbb a constant written as a number (`{ value: 52.50 }`) was the
 * number YAML read, 52.5, where it is now the text 52.50. A nightly job's checkpoint from the day
 * before an upgrade resumes with the job it was made with.
 */
export function earlierFingerprintsOf(config: JobConfig): string[] {
  if (config.stepsAsRead === undefined) return [];
  const earlier = fingerprintOf({ ...config, steps: config.stepsAsRead });
  return earlier === fingerprintOf(config) ? [] : [earlier];
}

/**
 * The fingerprint's parts, each hashed apart, so that a refused checkpoint can say which part
 * changed (fingerprintOf stays the one value checkpoints are matched by).
 */
export function fingerprintParts(config: JobConfig): Readonly<Record<string, string>> {
  const hash = (value: unknown) =>
    createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
  return {
    job: hash(config.steps.map((step) => ({ name: step.name, ...stepMeaning(step) }))),
    input: hash(config.input),
    outputs: hash([config.output, ...config.moreOutputs]),
    errors: hash(config.errors),
  };
}

function stepMeaning(step: StepConfig) {
  return { kind: step.kind, mapping: step.mapping, options: step.options, sideInputs: step.sideInputs };
}

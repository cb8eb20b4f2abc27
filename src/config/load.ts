/**
 * Loading a job file: parse (YAML or JSON), refuse literal secrets, interpolate the environment,
 * validate, then resolve paths (relative to the job file), formats and defaults into a JobConfig
 * that the rest of the run can trust without checking again.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { ConfigError } from '../errors.js';
import type { InputEncoding } from '../input/reader.js';
import { toConfigError } from './_issues.js';
import {
  type Delimiter,
  defaultErrorsPath,
  formatOf,
  normaliseDelimiter,
  normaliseEncoding,
  resolvePath,
} from './_paths.js';
import { CREDENTIAL_ENV } from './defaults.js';
import { type Env, interpolate, isEnvReference } from './env.js';
import type { InputFormat, JobFile, JobKind, ReportFormat } from './schema.js';
import { jobFileSchema } from './schema.js';
import { type CredentialName, resolveService, type ServiceSettings } from './service.js';

export type FieldSource = { readonly column: string } | { readonly value: string };
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
}

export interface JobConfig {
  /** Absolute path of the job file. */
  readonly file: string;
  /** The job's name: its file name without extension. Names the lock and the default report. */
  readonly name: string;
  readonly kind: JobKind;
  /** The validated document, for the kind-specific `options`. */
  readonly document: JobFile;
  readonly input: InputSpec;
  readonly output: { readonly path: string; readonly format: InputFormat; readonly formulaGuard?: boolean };
  readonly errors: { readonly path: string; readonly format: ReportFormat };
  readonly mapping: Readonly<Record<string, FieldSource>>;
  readonly service: ServiceSettings;
  /** Matrix cross mode: the destinations file, its mapping and its size limit. */
  readonly destinations?: {
    readonly input: InputSpec;
    readonly mapping: Readonly<Record<string, FieldSource>>;
    readonly maxRows?: number;
  };
  /** Engine and checkpoint tuning as the file gives it; unset values take the engine's defaults. */
  readonly run: {
    readonly window?: number;
    readonly dedupCacheSize?: number;
    readonly checkpointSeconds?: number;
  };
}

/** Reads, validates and resolves a job file. Every problem is a ConfigError naming file and path. */
export async function loadJobFile(file: string, env: Env = process.env): Promise<JobConfig> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${file}: cannot read the job file (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      {
        file,
        cause: error,
      },
    );
  }
  return parseJobFile(text, absolute, env, file);
}

/** Like loadJobFile, for a document already in memory; `shown` is how messages name the file. */
export function parseJobFile(text: string, absolute: string, env: Env, shown = absolute): JobConfig {
  const raw = parseText(text, shown);
  refuseLiteralSecrets(raw, shown);
  const document = interpolate(raw, env, shown);
  const parsed = jobFileSchema.safeParse(document);
  if (!parsed.success) throw toConfigError(shown, document, parsed.error.issues);
  return resolve(parsed.data, absolute, env);
}

function parseText(text: string, shown: string): unknown {
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error !== undefined) {
    const line = error.linePos?.[0]?.line;
    throw new ConfigError(
      `${shown}${line === undefined ? '' : `:${line}`}: not valid YAML or JSON: ${error.message.split('\n')[0]}`,
      {
        file: shown,
        expected: 'a YAML or JSON job file',
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
  return value;
}

function refuseLiteralSecrets(raw: unknown, shown: string): void {
  const credentials = (raw as { service?: { credentials?: Record<string, unknown> } }).service?.credentials;
  if (credentials === undefined || credentials === null || typeof credentials !== 'object') return;
  for (const [name, value] of Object.entries(credentials)) {
    if (typeof value === 'string' && !isEnvReference(value)) {
      const variable = CREDENTIAL_ENV[name as CredentialName] ?? 'GEOBATCH_...';
      // The value itself is never echoed: it is a secret sitting in a file.
      throw new ConfigError(`${shown}: service.credentials.${name}: secrets must come from the environment`, {
        file: shown,
        path: `service.credentials.${name}`,
        expected: `a reference such as \${${variable}}`,
        hint: `write \`${name}: \${${variable}}\` (or leave it out: ${variable} is read anyway) and export the value`,
      });
    }
  }
}

function resolve(doc: JobFile, absolute: string, env: Env): JobConfig {
  const base = path.dirname(absolute);
  const name = path.basename(absolute).replace(/\.(ya?ml|json)$/i, '');
  const input = typeof doc.input === 'string' ? { path: doc.input } : doc.input;
  const output = typeof doc.output === 'string' ? { path: doc.output } : doc.output;
  const errors = typeof doc.errors === 'string' ? { path: doc.errors } : (doc.errors ?? {});
  const outputPath = resolvePath(base, output.path);
  const errorsFormat = errors.format ?? (errors.path?.toLowerCase().endsWith('.ndjson') ? 'ndjson' : 'csv');
  const inputFormat = formatOf(input.path, input.format, 'csv');
  return {
    file: absolute,
    name,
    kind: doc.job,
    document: doc,
    input: {
      path: resolvePath(base, input.path),
      format: inputFormat,
      delimiter: normaliseDelimiter('delimiter' in input ? input.delimiter : undefined),
      encoding: normaliseEncoding('encoding' in input ? input.encoding : undefined),
      ...('maxRecordBytes' in input && input.maxRecordBytes !== undefined
        ? { maxRecordBytes: input.maxRecordBytes }
        : {}),
      ...('maxRecordLines' in input && input.maxRecordLines !== undefined
        ? { maxRecordLines: input.maxRecordLines }
        : {}),
    },
    output: {
      path: outputPath,
      format: formatOf(output.path, output.format, inputFormat),
      formulaGuard: 'formulaGuard' in output ? output.formulaGuard : undefined,
    },
    errors: {
      path:
        errors.path === undefined
          ? defaultErrorsPath(outputPath, name, errorsFormat)
          : resolvePath(base, errors.path),
      format: errorsFormat,
    },
    mapping: resolveMapping(doc.mapping),
    ...resolveDestinations(doc, base),
    service: resolveService(doc, env),
    run: doc.run ?? {},
  };
}

function resolveDestinations(doc: JobFile, base: string): Pick<JobConfig, 'destinations'> {
  const file = doc.job === 'matrix' ? doc.options?.destinations : undefined;
  if (file === undefined) return {};
  return {
    destinations: {
      input: {
        path: resolvePath(base, file.path),
        format: formatOf(file.path, file.format, 'csv'),
        delimiter: normaliseDelimiter(file.delimiter),
        encoding: normaliseEncoding(file.encoding),
      },
      mapping: resolveMapping(file.mapping),
      maxRows: file.maxRows,
    },
  };
}

function resolveMapping(mapping: Record<string, unknown> | undefined): Record<string, FieldSource> {
  const out: Record<string, FieldSource> = {};
  for (const [field, source] of Object.entries(mapping ?? {})) {
    if (source === undefined) continue;
    if (typeof source === 'string') out[field] = { column: source };
    else if (typeof source === 'object' && source !== null && 'column' in source)
      out[field] = { column: String(source.column) };
    else if (typeof source === 'object' && source !== null && 'value' in source)
      out[field] = { value: String(source.value) };
  }
  return out;
}

/**
 * What a checkpoint must match to be resumed: the job's meaning (kind, mapping, options, files),
 * not its tuning (rate, concurrency, endpoints) and never its secrets.
 */
export function fingerprintOf(config: JobConfig): string {
  const meaning = {
    kind: config.kind,
    mapping: config.mapping,
    options: 'options' in config.document ? config.document.options : undefined,
    input: config.input,
    destinations: config.destinations,
    output: config.output,
    errors: config.errors,
  };
  return createHash('sha256').update(JSON.stringify(meaning)).digest('hex').slice(0, 16);
}

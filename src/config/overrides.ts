/**
 * Command-line overrides on top of a loaded job file. Paths given on the command line are
 * relative to the working directory, not to the job file.
 *
 * A file named on the command line is written in the format its extension says: `-o x.ndjson`
 * writes NDJSON, `-e x.csv` a CSV report, whatever the job file says. An extension geobatch does
 * not write (`-o x.gpkg`) is a usage error, and so is a `--format` that contradicts the
 * extension; `--format` is for `-` and for paths without an extension.
 */
import path from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { REPORT_EXTENSIONS } from '../output/report.js';
import { OUTPUT_EXTENSIONS } from '../output/writer.js';
import type { JobConfig, ServiceSettings } from './load.js';
import { defaultErrorsPath, formatOf } from './load.js';
import { INPUT_FORMATS, type InputFormat, type ReportFormat } from './schema.js';

export interface Overrides {
  input?: string;
  output?: string;
  errors?: string;
  /** Output format. */
  format?: string;
  concurrency?: number;
  /** Requests per second across all interfaces; 0 = no client-side limit. */
  rate?: number;
  /** False writes CSV cells exactly as they are (`--no-formula-guard`). */
  formulaGuard?: boolean;
  /** Endpoints and credentials of an embedded emulator (`--emulator`). */
  service?: Pick<ServiceSettings, 'endpoints' | 'credentials'>;
}

function cliPath(file: string): string {
  return file === '-' ? '-' : path.resolve(file);
}

function checkFormat(format: string | undefined): InputFormat | undefined {
  if (format === undefined) return undefined;
  if ((INPUT_FORMATS as readonly string[]).includes(format)) return format as InputFormat;
  throw new UsageError(`--format: expected one of ${INPUT_FORMATS.join(', ')}, got \`${format}\``, {
    field: 'format',
    expected: INPUT_FORMATS.join(' | '),
    received: format,
  });
}

/**
 * The format a file named by `flag` is written in: its extension's; `fallback` when it has none
 * (or is `-`). An unknown extension is refused, listing the known ones.
 */
function formatOfTarget<F extends string>(
  flag: string,
  file: string,
  table: Readonly<Record<string, F>>,
  fallback: F,
): F {
  const extension = file === '-' ? '' : path.extname(file).toLowerCase();
  if (extension === '') return fallback;
  const format = table[extension];
  if (format !== undefined) return format;
  const known = Object.keys(table).join(' ');
  throw new UsageError(
    `${flag}: geobatch does not write ${extension} files (${file}); known extensions: ${known}`,
    {
      field: flag.slice(flag.lastIndexOf('-') + 1),
      expected: `a path ending in one of ${known}`,
      received: file,
      hint: `Use one of ${known}, or a path without extension and --format.`,
    },
  );
}

function outputFormat(config: JobConfig, overrides: Overrides, outputPath: string): InputFormat {
  const format = checkFormat(overrides.format);
  if (overrides.output !== undefined) {
    const fallback = format ?? config.output.format;
    const byExtension = formatOfTarget('-o/--output', outputPath, OUTPUT_EXTENSIONS, fallback);
    return agree(format, byExtension, outputPath);
  }
  // The job file's own path: its `format:` may name any path, but an extension alone must be one
  // geobatch writes; a --format its extension contradicts is refused.
  if (format === undefined) return jobFileTarget(config, 'output', OUTPUT_EXTENSIONS, config.output.format);
  const implied = OUTPUT_EXTENSIONS[path.extname(outputPath).toLowerCase()];
  return implied === undefined ? format : agree(format, implied, outputPath);
}

/** A --format that contradicts the output's extension would write a file its name mislabels. */
function agree(format: InputFormat | undefined, byExtension: InputFormat, outputPath: string): InputFormat {
  if (format === undefined || format === byExtension) return byExtension;
  throw new UsageError(
    `--format ${format} contradicts the output's extension: ${outputPath} is a ${byExtension} file name`,
    {
      field: 'format',
      expected: byExtension,
      received: format,
      hint: `Drop --format, or name the output (-o) with an extension of ${format}.`,
    },
  );
}

/**
 * A target the job file names by path alone: its extension's format, as for the command line
 * (an unknown extension is a ConfigError naming the file and key). With `format:`, as given.
 */
function jobFileTarget<F extends string>(
  config: JobConfig,
  key: 'output' | 'errors',
  table: Readonly<Record<string, F>>,
  resolved: F,
): F {
  const given = config.document[key];
  const file = typeof given === 'string' ? given : given?.format === undefined ? given?.path : undefined;
  const extension = file === undefined || file === '-' ? '' : path.extname(file).toLowerCase();
  if (extension === '') return resolved;
  const format = table[extension];
  if (format !== undefined) return format;
  const known = Object.keys(table).join(' ');
  throw new ConfigError(
    `${config.file}: ${key}: geobatch does not write ${extension} files (${file}); known extensions: ${known}`,
    {
      file: config.file,
      path: key,
      expected: `a path ending in one of ${known}, or \`format:\``,
      received: file,
    },
  );
}

function checkPositive(flag: string, value: number | undefined, allowZero: boolean): number | undefined {
  if (value === undefined) return undefined;
  const ok = Number.isFinite(value) && (allowZero ? value >= 0 : value > 0);
  if (!ok || (flag === '--concurrency' && !Number.isInteger(value))) {
    throw new UsageError(
      `${flag}: expected a ${allowZero ? 'non-negative number' : 'positive integer'}, got \`${value}\``,
      {
        field: flag.slice(2),
        received: String(value),
      },
    );
  }
  return value;
}

function errorsOf(config: JobConfig, overrides: Overrides, outputPath: string): JobConfig['errors'] {
  if (overrides.errors !== undefined) {
    const file = cliPath(overrides.errors);
    const format: ReportFormat = formatOfTarget('-e/--errors', file, REPORT_EXTENSIONS, config.errors.format);
    return { path: file, format };
  }
  const fromFile = {
    ...config.errors,
    format: jobFileTarget(config, 'errors', REPORT_EXTENSIONS, config.errors.format),
  };
  if (overrides.output === undefined) return fromFile;
  // A report the job file names stays for `-o -`, which has no "beside" (and otherwise writes none).
  if (outputPath === '-' && config.document.errors !== undefined) return fromFile;
  return { ...config.errors, path: defaultErrorsPath(outputPath, config.name, config.errors.format) };
}

export function applyOverrides(config: JobConfig, overrides: Overrides): JobConfig {
  const concurrency = checkPositive('--concurrency', overrides.concurrency, false);
  const rate = checkPositive('--rate', overrides.rate, true);
  const input =
    overrides.input === undefined
      ? config.input
      : {
          ...config.input,
          path: cliPath(overrides.input),
          format: formatOf(overrides.input, undefined, config.input.format),
        };
  const outputPath = overrides.output === undefined ? config.output.path : cliPath(overrides.output);
  const output = {
    ...config.output,
    path: outputPath,
    format: outputFormat(config, overrides, outputPath),
    ...(overrides.formulaGuard === undefined ? {} : { formulaGuard: overrides.formulaGuard }),
  };
  const global = config.service.throttle?.global ?? {};
  return {
    ...config,
    input,
    output,
    errors: errorsOf(config, overrides, outputPath),
    service: {
      ...config.service,
      endpoints: { ...config.service.endpoints, ...overrides.service?.endpoints },
      credentials: { ...config.service.credentials, ...overrides.service?.credentials },
      throttle: {
        ...config.service.throttle,
        global: {
          ...global,
          ...(concurrency === undefined ? {} : { concurrency }),
          ...(rate === undefined ? {} : { rate: rate === 0 ? null : rate }),
        },
      },
    },
  };
}

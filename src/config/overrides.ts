/**
 * Command-line overrides on top of a loaded job file. Paths given on the command line are
 * relative to the working directory, not to the job file.
 */
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { JobConfig, ServiceSettings } from './load.js';
import { defaultErrorsPath, formatOf } from './load.js';
import { INPUT_FORMATS, type InputFormat } from './schema.js';

export interface Overrides {
  input?: string;
  output?: string;
  errors?: string;
  /** Output format. */
  format?: string;
  concurrency?: number;
  /** Requests per second across all interfaces; 0 = no client-side limit. */
  rate?: number;
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

export function applyOverrides(config: JobConfig, overrides: Overrides): JobConfig {
  const format = checkFormat(overrides.format);
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
    format:
      format ??
      (overrides.output === undefined
        ? config.output.format
        : formatOf(outputPath, undefined, config.output.format)),
  };
  const errorsPath =
    overrides.errors !== undefined
      ? cliPath(overrides.errors)
      : overrides.output !== undefined
        ? defaultErrorsPath(outputPath, config.name, config.errors.format)
        : config.errors.path;
  const global = config.service.throttle?.global ?? {};
  return {
    ...config,
    input,
    output,
    errors: { ...config.errors, path: errorsPath },
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

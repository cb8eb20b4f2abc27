/**
 * Command-line overrides on top of a loaded job file. Paths given on the command line are
 * relative to the working directory, not to the job file.
 *
 * A file named on the command line is written in the format its extension says: `-o x.ndjson`
 * writes NDJSON, `-o x.gpkg` a GeoPackage, `-e x.csv` a CSV report, whatever the job file says.
 * Several `-o` write several outputs from the same pass, replacing the job file's. An extension
 * geobatch does not write (`-o x.xlsx`) is a usage error, and so is a `--format` that contradicts
 * an extension; `--format` is for `-` and for paths without an extension. Applying overrides
 * twice (the CLI's, then an emulator's service) gives what applying them once does.
 */
import path from 'node:path';
import { UsageError } from '../errors.js';
import { checkStandardOutput } from '../output/_standard-output.js';
import { REPORT_EXTENSIONS } from '../output/report.js';
import { OUTPUT_EXTENSIONS } from '../output/writer.js';
import { formatByExtension, isHtml, type OutputConfig, workbookHint } from './_outputs.js';
import { directoryName } from './_paths.js';
import type { JobConfig, ServiceSettings } from './load.js';
import { defaultErrorsPath, formatOf } from './load.js';
import {
  INPUT_FORMATS,
  type InputFormat,
  OUTPUT_FORMATS,
  type OutputFormat,
  type ReportFormat,
} from './schema.js';

export interface Overrides {
  input?: string;
  /** The input's format (`--input-format`), over its extension and the job file's: for `-`, say. */
  inputFormat?: string;
  /** One output, or several written from the same pass (`-o` given more than once): replace the job file's. */
  output?: string | readonly string[];
  errors?: string;
  /** Output format, for `-` and paths without extension. */
  format?: string;
  /** The HTML run report: false for none (`--no-report`), a path to write it there. */
  report?: boolean | string;
  concurrency?: number;
  /** Requests per second across all interfaces; 0 = no client-side limit. */
  rate?: number;
  /** False writes CSV cells exactly as they are (`--no-formula-guard`). */
  formulaGuard?: boolean;
  /** Endpoints and credentials of an embedded emulator (`--emulator`). */
  service?: Pick<ServiceSettings, 'endpoints' | 'credentials'>;
}

/**
 * A file named by `flag`, absolute (relative to the working directory); one that names a
 * directory (`-o out/`) is refused, offering `suggest` in it (directoryName).
 */
function cliPath(file: string, flag: string, suggest?: string): string {
  const problem = directoryName(file, suggest);
  if (problem !== undefined)
    throw new UsageError(`${flag}: ${problem}`, {
      field: flag.slice(flag.lastIndexOf('-') + 1),
      file,
      expected: 'the path of a file',
      received: file,
    });
  return file === '-' ? '-' : path.resolve(file);
}

/** `value` if it is one of `choices`; a USAGE error naming the flag and the choices if not. */
function checkChoice<C extends string>(
  flag: string,
  field: string,
  choices: readonly C[],
  value: string | undefined,
): C | undefined {
  if (value === undefined) return undefined;
  if ((choices as readonly string[]).includes(value)) return value as C;
  throw new UsageError(`${flag}: expected one of ${choices.join(', ')}, got \`${value}\``, {
    field,
    expected: choices.join(' | '),
    received: value,
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
  /** What a path without extension is written as: --format for outputs, the job file's for the report. */
  bare: string,
): F {
  const found = formatByExtension(file, table, fallback);
  if (typeof found === 'string') return found;
  const { extension, known } = found;
  throw new UsageError(
    `${flag}: geobatch does not write ${extension} files (${file}); known extensions: ${known}`,
    {
      field: flag.slice(flag.lastIndexOf('-') + 1),
      expected: `a path ending in one of ${known}`,
      received: file,
      hint: workbookHint(extension) ?? `Use one of ${known}, or a path without extension (${bare}).`,
    },
  );
}

/**
 * The outputs: those named on the command line, each in its extension's format and with the job
 * file's first output's settings; else the job file's, where --format may only name the format
 * of `-` or of a path without extension.
 */
function outputsOf(config: JobConfig, overrides: Overrides): OutputConfig[] {
  const format = checkChoice<OutputFormat>('--format', 'format', OUTPUT_FORMATS, overrides.format);
  const guard = overrides.formulaGuard === undefined ? {} : { formulaGuard: overrides.formulaGuard };
  if (overrides.output === undefined) {
    return [config.output, ...config.moreOutputs].map((output) => {
      const implied = OUTPUT_EXTENSIONS[path.extname(output.path).toLowerCase()];
      const chosen =
        format === undefined
          ? output.format
          : implied === undefined
            ? format
            : agree(format, implied, output.path);
      return { ...output, format: chosen, ...guard };
    });
  }
  const files = typeof overrides.output === 'string' ? [overrides.output] : overrides.output;
  if (files.length === 0)
    throw new UsageError('-o/--output: expected at least one path', { field: 'output' });
  const outputs = files.map((given) => {
    const fallback = format ?? config.output.format;
    const file = cliPath(given, '-o/--output', `result.${format ?? config.output.format}`);
    const byExtension = formatOfTarget(
      '-o/--output',
      file,
      OUTPUT_EXTENSIONS,
      fallback,
      "written in the format --format names, else in the job file's",
    );
    return {
      ...settingsFor(file, config.output),
      path: file,
      format: agree(format, byExtension, file),
      ...guard,
    };
  });
  checkStandardOutput(outputs);
  return outputs;
}

/**
 * The job file's first output's settings for an output named on the command line (its BOM,
 * decimal mark, formula guard: the same readers), but not its delimiter across `.tsv` and other
 * names: `-o x.tsv` is tab-separated, as its name says, where the job file writes `;`, and
 * `-o x.csv` is not tab-separated where the job file writes a `.tsv`.
 */
function settingsFor(file: string, first: OutputConfig): OutputConfig {
  const tsv = (name: string) => path.extname(name).toLowerCase() === '.tsv';
  if (tsv(file) === tsv(first.path)) return first;
  const { delimiter: _delimiter, ...rest } = first;
  return rest;
}

/** A --format that contradicts an output's extension would write a file its name mislabels. */
function agree(
  format: OutputFormat | undefined,
  byExtension: OutputFormat,
  outputPath: string,
): OutputFormat {
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

/** The run report: off (`false`), moved (a path, which must be an HTML file name), or as the job file says. */
function runReportOf(config: JobConfig, overrides: Overrides): JobConfig['runReport'] {
  const given = overrides.report;
  if (given === undefined) return config.runReport;
  if (given === false) return false;
  if (given === true) return config.runReport === false ? undefined : config.runReport;
  if (isHtml(given)) return cliPath(given, '--report', 'report.html');
  throw new UsageError(`--report: the run report is an HTML page, got ${given}`, {
    field: 'report',
    expected: 'a path ending in .html',
    received: given,
    hint: 'Name it e.g. run.report.html, or leave it out with --no-report.',
  });
}

/**
 * A flag's value as a message quotes it: the command line's are numbers by now, but a library
 * caller's `concurrency: '8'` is a string, and "got `8`" read as if 8 were refused.
 */
function quoted(value: unknown): string {
  if (typeof value === 'number') return `\`${value}\``;
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  return `${JSON.stringify(value) ?? String(value)} (${typeof value === 'object' ? 'an object' : `a ${typeof value}`})`;
}

function checkPositive(flag: string, value: number | undefined, allowZero: boolean): number | undefined {
  if (value === undefined) return undefined;
  const ok = typeof value === 'number' && Number.isFinite(value) && (allowZero ? value >= 0 : value > 0);
  if (!ok || (flag === '--concurrency' && !Number.isInteger(value))) {
    throw new UsageError(
      `${flag}: expected a ${allowZero ? 'non-negative number' : 'positive integer'}, got ${quoted(value)}`,
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
    const file = cliPath(overrides.errors, '-e/--errors', `errors.${config.errors.format}`);
    const format: ReportFormat = formatOfTarget(
      '-e/--errors',
      file,
      REPORT_EXTENSIONS,
      config.errors.format,
      `written as ${config.errors.format}, the job file's error report format; --format does not apply to it`,
    );
    return { path: file, format };
  }
  if (overrides.output === undefined) return config.errors;
  // A report the job file names stays for `-o -`, which has no "beside" (and otherwise writes none).
  if (outputPath === '-' && config.document.errors !== undefined) return config.errors;
  return { ...config.errors, path: defaultErrorsPath(outputPath, config.name, config.errors.format) };
}

export function applyOverrides(config: JobConfig, overrides: Overrides): JobConfig {
  const concurrency = checkPositive('--concurrency', overrides.concurrency, false);
  const rate = checkPositive('--rate', overrides.rate, true);
  const inputFormat = checkChoice<InputFormat>(
    '--input-format',
    'inputFormat',
    INPUT_FORMATS,
    overrides.inputFormat,
  );
  const input =
    overrides.input === undefined
      ? inputFormat === undefined
        ? config.input
        : { ...config.input, format: inputFormat }
      : {
          ...config.input,
          path: cliPath(overrides.input, '-i/--input'),
          format: formatOf(overrides.input, inputFormat, config.input.format),
        };
  const [output, ...moreOutputs] = outputsOf(config, overrides) as [OutputConfig, ...OutputConfig[]];
  const global = config.service.throttle?.global ?? {};
  return {
    ...config,
    input,
    output,
    moreOutputs,
    errors: errorsOf(config, overrides, output.path),
    runReport: runReportOf(config, overrides),
    service: {
      ...config.service,
      endpoints: { ...config.service.endpoints, ...overrides.service?.endpoints },
      endpointSources: overriddenSources(config.service, overrides.service),
      credentials: { ...config.service.credentials, ...overrides.service?.credentials },
      // The embedded emulator's credentials are its own, read from no variable.
      ...(overrides.service?.credentials === undefined ? {} : { credentialSources: {} }),
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

/**
 * The addresses an embedded emulator set (the only service override) are its, not the job file's
 * or a variable's: a message about one names the emulator, never a place the user did not set it.
 */
function overriddenSources(
  service: ServiceSettings,
  override: Pick<ServiceSettings, 'endpoints'> | undefined,
): ServiceSettings['endpointSources'] {
  const sources = { ...service.endpointSources };
  for (const name of Object.keys(override?.endpoints ?? {}) as (keyof typeof sources)[])
    sources[name] = 'the embedded emulator (--emulator)';
  return sources;
}

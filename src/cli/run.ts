/**
 * `geobatch run <job>`: the command line turned into runJobFile's options, the summary printed,
 * and its exit status left in `process.exitCode` (the table is EXIT_BY_CODE in errors.ts; usage
 * and config errors are thrown to main).
 */
import { Command, Option } from 'commander';
import type { Level } from 'pino';
import { UsageError } from '../errors.js';
import { createLogger } from '../log.js';
import { runJobFile } from '../run/job-file.js';
import type { RunSummary } from '../run/run.js';
import { stopOnSignals } from './_signals.js';
import { describeSummary } from './_summary.js';

interface RunFlags {
  input?: string;
  /** Every `-o`, in order. */
  output?: string[];
  errors?: string;
  /** `--report PATH` a string, `--no-report` false. */
  report?: string | false;
  format?: string;
  concurrency?: string;
  rate?: string;
  resume?: boolean;
  dryRun?: boolean;
  emulator?: boolean;
  logLevel: Level | 'silent';
  logFile?: string;
  progress: boolean;
  formulaGuard: boolean;
  /** `--cache PATH` a string, `--no-cache` false. */
  cache?: string | false;
  cacheMode?: string;
}

function number(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) {
    throw new UsageError(`${flag}: expected a number, got \`${value}\``, {
      field: flag.slice(2),
      received: value,
    });
  }
  return parsed;
}

async function runFromFlags(file: string, flags: RunFlags): Promise<RunSummary> {
  const logger = createLogger({ level: flags.logLevel, destination: flags.logFile ?? 2 });
  // Signals are caught before anything starts, so that no moment of the run ignores them.
  const { signal, dispose } = stopOnSignals();
  try {
    return await runJobFile(file, {
      input: flags.input,
      output: flags.output?.length === 1 ? flags.output[0] : flags.output,
      errors: flags.errors,
      ...(flags.report === undefined ? {} : { report: flags.report }),
      format: flags.format,
      concurrency: number('--concurrency', flags.concurrency),
      rate: number('--rate', flags.rate),
      ...(flags.formulaGuard === false ? { formulaGuard: false } : {}),
      logger,
      emulator: flags.emulator === true,
      resume: flags.resume,
      dryRun: flags.dryRun,
      progress: flags.progress,
      // On by default for the command line: a nightly run pays only for what changed.
      cache: { location: flags.cache, mode: flags.cacheMode },
      signal,
    });
  } finally {
    dispose();
  }
}

export function runCommand(): Command {
  return new Command('run')
    .description('run a job file: read, enrich through the service, write output and error report')
    .argument('<job>', 'job file (YAML or JSON)')
    .option('-i, --input <path>', "input file instead of the job file's (`-` = standard input)")
    .option(
      '-o, --output <path>',
      "output file instead of the job file's; its extension sets the format: .csv .tsv .ndjson .geojson .gpkg (`-` = standard output); repeat for several outputs from one run",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option(
      '-e, --errors <path>',
      'error report file, .csv or .ndjson (default: beside the (first) output; none for `-o -`)',
    )
    .addOption(
      new Option('-f, --format <format>', 'output format, for `-` or a path without extension').choices([
        'csv',
        'ndjson',
        'geojson',
        'gpkg',
      ]),
    )
    .option('--report <path>', 'the HTML run report (default: <first output>.report.html)')
    .option('--no-report', 'write no HTML run report')
    .option('-c, --concurrency <n>', 'requests in flight at once')
    .option('-r, --rate <rps>', 'requests per second across all services (0 = no client-side limit)')
    .option('--resume', 'continue an interrupted run from its checkpoint (starts fresh if there is none)')
    .option(
      '--dry-run',
      'read and plan only: rows, row issues, requests after dedup and batching, time estimate',
    )
    .option('--emulator', 'start the embedded emulator and run against it (no key needed)')
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
        .default('info'),
    )
    .option('--log-file <path>', 'write logs to this file instead of standard error')
    .option('--no-progress', 'no progress bar or progress log lines')
    .option(
      '--cache <path>',
      'request cache: an SQLite file or a postgres:// URL (default: GEOBATCH_CACHE, the job file, ~/.cache/geobatch/cache.sqlite)',
    )
    .option('--no-cache', 'send every request; neither read nor write the request cache')
    .addOption(
      new Option(
        '--cache-mode <mode>',
        'use: read and write; refresh: ask the service again and update; read-only: never write',
      ).choices(['use', 'refresh', 'read-only']),
    )
    .option('--no-formula-guard', "CSV: write cells exactly as they are (no ' before formulas)")
    .action(async (file: string, flags: RunFlags) => {
      const summary = await runFromFlags(file, flags);
      process.stderr.write(`${describeSummary(summary)}\n`);
      process.exitCode = summary.exitCode;
    });
}

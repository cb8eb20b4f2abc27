/**
 * `geobatch run <job>`: load the job file, apply the command line, optionally start the embedded
 * emulator, run, and leave the summary's exit status in `process.exitCode` (the table is
 * EXIT_BY_CODE in errors.ts; usage and config errors are thrown to main).
 */
import { Command, Option } from 'commander';
import type { Level } from 'pino';
import { emulatorEndpoints, loadJobFile } from '../config/load.js';
import { applyOverrides, type Overrides } from '../config/overrides.js';
import { type EmulatorHandle, startEmulator } from '../emulator/index.js';
import { UsageError } from '../errors.js';
import { createLogger } from '../log.js';
import { type RunSummary, runJob } from '../run.js';
import { assemble } from './_assemble.js';
import { stopOnSignals } from './_signals.js';
import { describeSummary } from './_summary.js';

interface RunFlags {
  input?: string;
  output?: string;
  errors?: string;
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

export async function runJobFile(file: string, flags: RunFlags): Promise<RunSummary> {
  const logger = createLogger({ level: flags.logLevel, destination: flags.logFile ?? 2 });
  const overrides: Overrides = {
    input: flags.input,
    output: flags.output,
    errors: flags.errors,
    format: flags.format,
    concurrency: number('--concurrency', flags.concurrency),
    rate: number('--rate', flags.rate),
    ...(flags.formulaGuard === false ? { formulaGuard: false } : {}),
  };
  // Signals are caught before anything starts, so that no moment of the run ignores them.
  const { signal, dispose } = stopOnSignals();
  let emulator: EmulatorHandle | undefined;
  try {
    // Flags are checked before an emulator is started for nothing.
    let config = applyOverrides(await loadJobFile(file), overrides);
    if (flags.emulator === true) {
      emulator = await startEmulator({ preload: true });
      const service = {
        endpoints: emulatorEndpoints(emulator.urls.origin),
        credentials: emulator.credentials,
      };
      config = applyOverrides(config, { service });
      logger.info({ origin: emulator.urls.origin }, 'Running against the embedded emulator');
    }
    const { spec, client } = await assemble(config, {
      logger,
      resume: flags.resume,
      dryRun: flags.dryRun,
      progress: flags.progress,
      reportNamed: flags.errors !== undefined,
      signal,
    });
    try {
      return await runJob(spec);
    } finally {
      await client.close();
    }
  } finally {
    try {
      await emulator?.close();
    } finally {
      dispose();
    }
  }
}

export function runCommand(): Command {
  return new Command('run')
    .description('run a job file: read, enrich through the service, write output and error report')
    .argument('<job>', 'job file (YAML or JSON)')
    .option('-i, --input <path>', "input file instead of the job file's (`-` = standard input)")
    .option(
      '-o, --output <path>',
      "output file instead of the job file's; its extension sets the format (`-` = standard output)",
    )
    .option(
      '-e, --errors <path>',
      'error report file, .csv or .ndjson (default: beside the output; none for `-o -`)',
    )
    .addOption(
      new Option('-f, --format <format>', 'output format, for `-` or a path without extension').choices([
        'csv',
        'ndjson',
        'geojson',
      ]),
    )
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
    .option('--no-formula-guard', "CSV: write cells exactly as they are (no ' before formulas)")
    .action(async (file: string, flags: RunFlags) => {
      const summary = await runJobFile(file, flags);
      process.stderr.write(`${describeSummary(summary)}\n`);
      process.exitCode = summary.exitCode;
    });
}

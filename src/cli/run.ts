/**
 * `geobatch run <job>`: load the job file, apply the command line, optionally start the embedded
 * emulator, run, and leave the exit code in `process.exitCode` (0 all ok, 3 rows failed, 1
 * stopped with the checkpoint kept; 2 is thrown as a usage/config error to main).
 */
import { Command, Option } from 'commander';
import type { Level } from 'pino';
import { emulatorEndpoints, loadJobFile } from '../config/load.js';
import { applyOverrides, type Overrides } from '../config/overrides.js';
import { startEmulator } from '../emulator/index.js';
import { UsageError } from '../errors.js';
import { createLogger } from '../log.js';
import { type RunSummary, runJob } from '../run.js';
import { assemble } from './_assemble.js';
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

/** First SIGINT/SIGTERM: stop pulling rows, commit what is done, keep the checkpoint. Second: exit now. */
function abortOnSignals(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onSignal = (name: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130);
    process.stderr.write(
      `\ngeobatch: ${name}: finishing what is in flight, then stopping (again to quit at once)\n`,
    );
    controller.abort(new UsageError(`stopped by ${name}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
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
  };
  const emulator = flags.emulator === true ? await startEmulator({ preload: true }) : undefined;
  const { signal, dispose } = abortOnSignals();
  try {
    if (emulator !== undefined) {
      overrides.service = {
        endpoints: emulatorEndpoints(emulator.urls.origin),
        credentials: emulator.credentials,
      };
      logger.info({ origin: emulator.urls.origin }, 'Running against the embedded emulator');
    }
    const config = applyOverrides(await loadJobFile(file), overrides);
    const { spec, client, cache } = await assemble(config, {
      logger,
      resume: flags.resume,
      dryRun: flags.dryRun,
      progress: flags.progress,
      signal,
      cache: { location: flags.cache, mode: flags.cacheMode, embeddedEmulator: emulator !== undefined },
    });
    try {
      return await runJob(spec);
    } finally {
      await cache?.close();
      await client.close();
    }
  } finally {
    dispose();
    await emulator?.close();
  }
}

export function runCommand(): Command {
  return new Command('run')
    .description('run a job file: read, enrich through the service, write output and error report')
    .argument('<job>', 'job file (YAML or JSON)')
    .option('-i, --input <path>', "input file instead of the job file's (`-` = standard input)")
    .option('-o, --output <path>', "output file instead of the job file's (`-` = standard output)")
    .option('-e, --errors <path>', 'error report file (default: beside the output)')
    .addOption(new Option('-f, --format <format>', 'output format').choices(['csv', 'ndjson', 'geojson']))
    .option('-c, --concurrency <n>', 'requests in flight at once')
    .option('-r, --rate <rps>', 'requests per second across all services (0 = no client-side limit)')
    .option('--resume', 'continue an interrupted run from its checkpoint (starts fresh if there is none)')
    .option(
      '--dry-run',
      'read and plan only: rows, row issues, requests after dedup and batching, time estimate',
    )
    .option('--emulator', 'start the embedded emulator and run against it (no key needed)')
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
    .addOption(
      new Option('--log-level <level>', 'log level')
        .choices(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'])
        .default('info'),
    )
    .option('--log-file <path>', 'write logs to this file instead of standard error')
    .option('--no-progress', 'no progress bar or progress log lines')
    .action(async (file: string, flags: RunFlags) => {
      const summary = await runJobFile(file, flags);
      process.stderr.write(`${describeSummary(summary)}\n`);
      process.exitCode = summary.exitCode;
    });
}

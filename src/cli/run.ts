/**
 * `geobatch run <job>`: the command line turned into runJobFile's options, the summary printed,
 * and its exit status left in `process.exitCode` (the table is EXIT_BY_CODE in errors.ts; usage
 * and config errors are thrown to main).
 */
import { existsSync, statSync, unlinkSync } from 'node:fs';
import { Command, Option } from 'commander';
import type { Level } from 'pino';
import { type IoError, isGeobatchError, UsageError } from '../errors.js';
import type { RowSelection } from '../input/sample.js';
import type { QueueChoice } from '../queue/queued-run.js';
import { refuseRestartAlone } from '../run/_checks.js';
import { withQueueCommand } from '../run/checkpoint.js';
import { runJobFile } from '../run/job-file.js';
import type { RunSummary } from '../run/run.js';
import { scrub } from '../secrets.js';
import { shellWord } from '../shell-word.js';
import { type Display, type LogFormat, openDisplay, withLogOptions } from './_display.js';
import { painted } from './_display-summary.js';
import { RUN_HELP } from './_help.js';
import { queueUrl } from './_queue-url.js';
import { stopOnSignals } from './_signals.js';

interface RunFlags {
  input?: string;
  inputFormat?: string;
  /** Every `-o`, in order. */
  output?: string[];
  errors?: string;
  /** `--report PATH` a string, `--no-report` false. */
  report?: string | false;
  format?: string;
  concurrency?: string;
  rate?: string;
  resume?: boolean;
  restartIfChanged?: boolean;
  dryRun?: boolean;
  emulator?: boolean;
  limit?: string;
  sample?: string;
  seed?: string;
  logLevel: Level | 'silent';
  logFile?: string;
  logFormat: LogFormat;
  progress: boolean;
  progressInterval?: string;
  /** `--quiet`: no closing lines when every row is ok. */
  quiet?: boolean;
  formulaGuard: boolean;
  /** `--cache PATH` a string, `--no-cache` false. */
  cache?: string | false;
  cacheMode?: string;
  /** `--queue URL` a string; `--queue` alone true (the URL from GEOBATCH_QUEUE). */
  queue?: string | true;
  /** `--no-work` false. */
  work: boolean;
  chunkRows?: string;
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

function rowCount(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(parsed) || parsed < 1) {
    throw new UsageError(`${flag}: expected a positive whole number of rows, got \`${value}\``, {
      field: flag.slice(2),
      expected: 'a whole number of rows, 1 or more',
      received: value,
      hint: `For example ${flag} 50.`,
    });
  }
  return parsed;
}

function selection(flags: RunFlags): RowSelection | undefined {
  const limit = rowCount('--limit', flags.limit);
  const sample = rowCount('--sample', flags.sample);
  if (flags.seed !== undefined && sample === undefined) {
    throw new UsageError('--seed: only applies with --sample', {
      field: 'seed',
      hint: 'Add --sample N to draw N rows with this seed, or drop --seed.',
    });
  }
  if (limit === undefined && sample === undefined) return undefined;
  return { limit, sample, seed: flags.seed };
}

function progressInterval(flags: RunFlags): number | undefined {
  const seconds = number('--progress-interval', flags.progressInterval);
  if (seconds !== undefined && !(seconds > 0)) {
    throw new UsageError(`--progress-interval: expected a positive number of seconds, got \`${seconds}\``, {
      field: 'progress-interval',
      received: String(seconds),
    });
  }
  return seconds === undefined ? undefined : seconds * 1000;
}

/**
 * How long a first Ctrl-C lets the requests in flight come back: each was paid for, and dropping
 * it paid for it again on --resume, up to `concurrency` requests (16 by default) per stop.
 * A service answering in well under a second needs far less; a request asleep out a long
 * Retry-After is not worth waiting for.
 */
const STOP_DRAIN_MS = 5000;

async function runFromFlags(
  file: string,
  flags: RunFlags,
  display: Display,
  logFailed: AbortSignal,
): Promise<RunSummary> {
  refuseRestartAlone(flags);
  // Signals are caught before anything starts, so that no moment of the run ignores them.
  const {
    signal: interrupted,
    drain,
    dispose,
  } = stopOnSignals({
    write: display.write,
    // A distributed run's chunks go back whole (queued-run.ts): nothing to wait for.
    drainMs: flags.queue === undefined ? STOP_DRAIN_MS : 0,
  });
  // A log file that fails a write stops the run as a signal does, with the IO_ERROR as the reason.
  const signal = AbortSignal.any([interrupted, logFailed]);
  // Rows written to this very terminal would run through the bar.
  const dataOnTerminal = flags.output?.includes('-') === true && process.stdout.isTTY === true;
  try {
    return await runJobFile(file, {
      input: flags.input,
      ...(flags.inputFormat === undefined ? {} : { inputFormat: flags.inputFormat }),
      output: flags.output?.length === 1 ? flags.output[0] : flags.output,
      errors: flags.errors,
      ...(flags.report === undefined ? {} : { report: flags.report }),
      format: flags.format,
      concurrency: number('--concurrency', flags.concurrency),
      rate: number('--rate', flags.rate),
      ...(flags.formulaGuard === false ? { formulaGuard: false } : {}),
      logger: display.logger,
      ...(flags.logFile === undefined ? {} : { logFile: flags.logFile }),
      emulator: flags.emulator === true,
      resume: flags.resume,
      ...(flags.restartIfChanged === true ? { restartIfChanged: true } : {}),
      dryRun: flags.dryRun,
      rows: selection(flags),
      progress: {
        enabled: flags.progress && !dataOnTerminal,
        statusLine: display.statusLine,
        intervalMs: progressInterval(flags),
      },
      // On by default for the command line: a nightly run pays only for what changed.
      cache: { location: flags.cache, mode: flags.cacheMode },
      ...queueOf(flags),
      signal,
      ...(drain === undefined ? {} : { drain }),
    });
  } catch (error) {
    // Stopped before its first row ("interrupted before it started"): the log file is why.
    if (logFailed.aborted && isGeobatchError(error) && error.code === 'ABORTED') throw logFailed.reason;
    // A distributed run's checkpoint resumed without --queue: the command to run is this one with it.
    throw withQueueCommand(error, (queue) =>
      scrub(['geobatch', ...process.argv.slice(2)].map(shellWord).concat('--queue', queue).join(' ')),
    );
  } finally {
    dispose();
  }
}

/**
 * Whether the summary already tells of the log file's failure. It does not when the failure came
 * after the last row, or after the run had stopped for another reason: the command still ends with
 * it, as IO_ERROR, unless the run was complete.
 */
function tells(summary: RunSummary, failure: IoError): boolean {
  return summary.error?.code === failure.code && summary.error.message === failure.message;
}

/** A log file's failure once the run had ended, as the warning that follows the summary says it. */
function afterTheEnd(failure: IoError): string {
  const code = (failure.cause as NodeJS.ErrnoException | undefined)?.code;
  return `--log-file: writing the log to ${failure.context.file ?? 'its file'} failed after the last row${code === undefined ? '' : ` (${code})`}: the outputs are complete; the log lacks its last lines`;
}

function queueOf(flags: RunFlags): { queue?: QueueChoice } {
  const url = flags.queue;
  if (url === undefined) {
    if (flags.work === false || flags.chunkRows !== undefined)
      throw new UsageError(
        `${flags.work === false ? '--no-work' : '--chunk-rows'}: only applies with --queue`,
        {
          field: flags.work === false ? 'work' : 'chunk-rows',
          hint: 'Add --queue postgres://... to run the job across workers.',
        },
      );
    return {};
  }
  return {
    queue: {
      // Alone, the URL comes from GEOBATCH_QUEUE: a password in it stays out of process listings.
      url: queueUrl(url === true ? undefined : url, '--queue'),
      work: flags.work,
      ...(flags.chunkRows === undefined ? {} : { chunkRows: rowCount('--chunk-rows', flags.chunkRows) }),
    },
  };
}

/**
 * Flags that cannot both hold, each pair with why. A wrapper's `--no-cache` must not be undone by
 * a later `--cache`; a setting for what another flag turns off would be dropped without a word.
 */
const LAST_WINS = 'the run would otherwise follow whichever came last';
const CONFLICTS: readonly { flags: readonly [string, string]; why: string }[] = [
  { flags: ['cache', 'no-cache'], why: LAST_WINS },
  { flags: ['report', 'no-report'], why: LAST_WINS },
  { flags: ['cache-mode', 'no-cache'], why: '--no-cache uses no cache, so --cache-mode would be ignored' },
  {
    flags: ['progress-interval', 'no-progress'],
    why: '--no-progress writes no progress records, so --progress-interval would be ignored',
  },
];

function refuseConflicts(given: ReadonlySet<string>): void {
  for (const { flags, why } of CONFLICTS) {
    const [one, other] = flags;
    if (given.has(one) && given.has(other))
      throw new UsageError(`--${one} and --${other} contradict each other`, {
        field: one,
        received: `--${one} with --${other}`,
        hint: `Give one of them: ${why}.`,
      });
  }
}

export function runCommand(): Command {
  const given = new Set<string>();
  const command = withLogOptions(
    new Command('run')
      .description('run a job file: read, enrich through the service, write output and error report')
      .argument('<job>', 'job file (YAML or JSON)')
      .option('-i, --input <path>', "input file instead of the job file's (`-` = standard input)")
      .addOption(
        new Option(
          '--input-format <format>',
          "the input's format, for `-` or a file whose extension does not say it (default: the extension's, else the job file's)",
        ).choices(['csv', 'ndjson', 'geojson']),
      )
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
      .option(
        '-c, --concurrency <n>',
        "requests in flight at once, all services together (default: the job file's service.throttle.concurrency, else 16)",
      )
      .option(
        '-r, --rate <rps>',
        "requests per second across all services; 0 = no client-side limit (default: the job file's service.throttle.rate, else none)",
      )
      .option('--resume', 'continue an interrupted run from its checkpoint (starts fresh if there is none)')
      .option(
        '--restart-if-changed',
        'with --resume: a checkpoint of other input or another job is deleted, and the run starts from row 1',
      )
      .option(
        '--dry-run',
        'read and plan only: rows, row issues, requests after dedup and batching, time estimate',
      )
      .option('--emulator', 'start the embedded emulator and run against it (no key needed)')
      .option('--limit <n>', 'only the first N rows (to try a job; stops reading there)')
      .option('--sample <n>', 'N rows drawn at random from the whole input (reads it all, holds N rows)')
      .option('--seed <s>', 'seed of --sample: the same seed draws the same rows (default 0)')
      .option('--no-progress', 'no progress bar or progress records')
      .option('--quiet', 'no closing lines when every row is ok (exit 0); any other end prints them')
      .option(
        '--progress-interval <seconds>',
        'seconds between progress records where no bar is drawn: not a terminal, or TERM=dumb (default 5)',
      )
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
      .option(
        '--queue [url]',
        'run across workers: postgres:// URL of the queue database, or GEOBATCH_QUEUE without one (see `geobatch worker`)',
      )
      .option('--no-work', 'with --queue: only coordinate; workers elsewhere answer every row')
      .option('--chunk-rows <n>', 'with --queue: rows per chunk (default 2000)')
      .option('--no-formula-guard', "CSV: write cells exactly as they are (no ' before formulas)")
      .addHelpText('after', RUN_HELP)
      .action(async (file: string, flags: RunFlags) => {
        refuseConflicts(given);
        // A log file refused as one of the run's files is left as it was: not even created.
        const logIsNew = flags.logFile !== undefined && !existsSync(flags.logFile);
        const logFailure = new AbortController();
        const display = openDisplay({
          logLevel: flags.logLevel,
          logFile: flags.logFile,
          logFormat: flags.logFormat,
          onLogFailure: (error) => logFailure.abort(error),
        });
        try {
          const summary = await runFromFlags(file, flags, display, logFailure.signal);
          // A cron job mails whatever is printed: with --quiet a good night prints nothing.
          if (flags.quiet !== true || summary.exitCode !== 0)
            display.write(`${painted(display, summary, file)}\n`);
          process.exitCode = summary.exitCode;
          const failure = logFailure.signal.reason as IoError | undefined;
          if (failure === undefined || tells(summary, failure)) return;
          // The last rows were written when the log failed: the run is whole, its log is not.
          // Saying so keeps the run's exit status; stopping would send the user to redo it.
          if (summary.ended === 'complete') display.write(`geobatch: warning: ${afterTheEnd(failure)}\n`);
          else throw failure;
        } catch (error) {
          if (logIsNew && isGeobatchError(error) && error.context.field === 'log-file')
            removeEmpty(flags.logFile as string);
          throw error;
        } finally {
          display.close();
        }
      }),
  );
  for (const name of new Set(CONFLICTS.flatMap((conflict) => conflict.flags)))
    command.on(`option:${name}`, () => given.add(name));
  return command;
}

/** Removes `path` when it is an empty file (one this command created and wrote nothing to). */
function removeEmpty(path: string): void {
  try {
    if (statSync(path).size === 0) unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove: the refusal is what the user needs to see.
  }
}

/**
 * `geobatch worker`: works on the chunks of distributed runs (`geobatch run --queue`) until
 * SIGTERM, SIGINT or SIGHUP (chunks in hand are handed back; it ends within seconds), or with
 * `--exit-when-idle` once no live run has a chunk left.
 */
import { Command } from 'commander';
import type { Level } from 'pino';
import type { EmulatorHandle } from '../emulator/index.js';
import { UsageError } from '../errors.js';
import { type LogFormat, openDisplay, withLogOptions } from './_display.js';
import { WORKER_HELP } from './_help.js';
import { queueUrl } from './_queue-url.js';
import { stopOnSignals } from './_signals.js';
import { forWorker } from './_worker-hint.js';

interface Flags {
  queue?: string;
  concurrency?: string;
  exitWhenIdle?: boolean;
  cache: boolean;
  emulator?: boolean;
  logLevel: Level | 'silent';
  logFile?: string;
  logFormat: LogFormat;
}

function chunksAtOnce(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || parsed < 1) {
    throw new UsageError(`--concurrency: expected a whole number of chunks, 1 or more, got \`${value}\``, {
      field: 'concurrency',
      expected: 'a whole number, 1 or more',
      received: value,
    });
  }
  return parsed;
}

export function workerCommand(): Command {
  return withLogOptions(
    new Command('worker')
      .description('work on the chunks of distributed runs (`geobatch run JOB --queue URL`)')
      .option('--queue <url>', 'postgres:// URL of the queue database (default: GEOBATCH_QUEUE)')
      .option('-c, --concurrency <n>', 'chunks worked on at once, per run (default 2)')
      .option('--exit-when-idle', 'exit once no live run has a chunk left to do')
      .option('--no-cache', "neither read nor write the run's shared request cache")
      .option('--emulator', 'for runs started with --emulator: answer them from an embedded emulator')
      .addHelpText('after', WORKER_HELP)
      .action(async (flags: Flags) => {
        const url = queueUrl(flags.queue);
        const concurrency = chunksAtOnce(flags.concurrency);
        const logFailure = new AbortController();
        const display = openDisplay({
          logLevel: flags.logLevel,
          logFile: flags.logFile,
          logFormat: flags.logFormat,
          onLogFailure: (error) => logFailure.abort(error),
        });
        const { signal: interrupted, dispose } = stopOnSignals({
          write: display.write,
          graceMs: 8000,
          leaves: 'chunks in hand go to another worker once its heartbeat is missed (about 15 s)',
        });
        // A log file that fails a write stops the worker as SIGTERM does (its chunks handed back),
        // and then ends it with that IO_ERROR: a worker without its log would work unrecorded.
        const signal = AbortSignal.any([interrupted, logFailure.signal]);
        let emulator: EmulatorHandle | undefined;
        try {
          if (flags.emulator === true)
            emulator = await (await import('../emulator/index.js')).startEmulator({ preload: true });
          const { runWorker } = await import('../queue/worker.js');
          const end = await runWorker({
            url,
            logger: display.logger,
            signal,
            exitWhenIdle: flags.exitWhenIdle === true,
            ...(concurrency === undefined ? {} : { concurrency }),
            ...(flags.cache === false ? { cache: false } : {}),
            ...(emulator === undefined ? {} : { emulator }),
          });
          display.write(
            `worker: ${end.chunksDone} chunks done, ${end.chunksFailed} failed, ${end.chunksHandedBack} handed back\n`,
          );
          if (logFailure.signal.aborted) throw logFailure.signal.reason;
        } catch (error) {
          // Its hint said for a run, whose way on is --resume: a worker is started again.
          throw forWorker(error);
        } finally {
          dispose();
          await emulator?.close();
          display.close();
        }
      }),
  );
}

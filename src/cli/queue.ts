/**
 * `geobatch status` (where the distributed runs of a queue database stand, or given a job file,
 * where its plain run stands: _local-status.ts) and `geobatch queue prune` (removing finished
 * runs' data). Both take `--queue`, else GEOBATCH_QUEUE; a job file's status opens no database.
 */
import { statSync } from 'node:fs';
import { Command } from 'commander';
import { parseAge } from '../cache/lifetimes.js';
import { UsageError } from '../errors.js';
import { durationText } from '../log.js';
import type { RunStatus } from '../queue/status.js';
import { QUEUE_HELP, STATUS_HELP } from './_help.js';
import { jobStatus, localStatusJson, localStatusText, namesJobFile } from './_local-status.js';
import { queueUrl } from './_queue-url.js';

function out(text: string): void {
  process.stdout.write(`${text}\n`);
}

/** A run as `geobatch status` shows it. */
export function statusText(status: RunStatus): string {
  const { run, chunks, rows, coordinator } = status;
  // A run no coordinator carries on (stopped, or its coordinator gone) has no pace and no ETA:
  // shown from its last minutes, they read as a live run's.
  const live = run.state === 'running' && !status.abandoned;
  const unread = live ? 'input still being read' : 'the input was not read to its end';
  const total = chunks.total === null ? `${chunks.stored}+ (${unread})` : String(chunks.total);
  const rate = !live || status.rowsPerSecond === null ? '-' : `${status.rowsPerSecond.toFixed(1)} rows/s`;
  const eta = !live || status.etaSeconds === null ? '-' : durationText(status.etaSeconds);
  const seen = `last seen ${durationText(coordinator.seenSecondsAgo)} ago`;
  // Another machine's coordinator is known only by its heartbeat: how old that is says how alive.
  const where = run.state === 'running' && !coordinator.here ? `, ${seen}` : '';
  const lines = [
    `run ${run.id}  ${run.job} (${run.kind})  ${stateText(status, seen)}`,
    `  chunks: ${chunks.done} done, ${chunks.inFlight} in flight, ${chunks.queued} queued, ${chunks.failed} failed, of ${total}`,
    `  rows:   ${rows.done} done of ${rows.total ?? `${rows.stored}+`}`,
    `  requests: ${status.requests}  rate: ${rate}  ETA: ${eta}${live || run.state !== 'running' ? '' : ' (no coordinator carries it on)'}`,
    `  started ${run.createdAt.toISOString()}${run.endedAt === null ? '' : `, ended ${run.endedAt.toISOString()}`}; coordinator ${run.coordinator}${where}`,
  ];
  // With when each last took or ended a chunk: a worker killed stays listed, and its time says so.
  if (status.workers.length > 0)
    lines.push(
      `  workers: ${status.workers.map((w) => `${w.worker} (last seen ${durationText(w.seenSecondsAgo)} ago)`).join(', ')}`,
    );
  if (run.error?.message !== undefined) lines.push(`  stopped by: ${run.error.message}`);
  return lines.join('\n');
}

function stateText(status: RunStatus, seen: string): string {
  if (!status.abandoned) return status.run.state;
  // Its process gone from this machine (kill -9, a crash): said at once, not after the timeout.
  return status.coordinator.gone
    ? 'running (coordinator gone: its process on this machine has exited; --resume takes over)'
    : `running (coordinator gone: ${seen}; --resume takes over)`;
}

interface StatusFlags {
  queue?: string;
  /** Every `-o`, in order. */
  output?: string[];
  json?: boolean;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/** A job file's plain run: its files alone are read; no queue database, whatever GEOBATCH_QUEUE says. */
async function statusOfJob(job: string, flags: StatusFlags): Promise<void> {
  if (flags.queue !== undefined)
    throw new UsageError(
      '--queue: a job file names a plain run, whose state is in the files beside its output',
      {
        field: 'queue',
        received: job,
        hint: '`geobatch status --queue URL` lists the distributed runs; `geobatch status job.yaml` needs no database.',
      },
    );
  const status = await jobStatus(job, flags.output);
  out(
    flags.json === true
      ? localStatusJson(job, flags.output, status)
      : localStatusText(job, flags.output, status),
  );
}

export function statusCommand(): Command {
  return new Command('status')
    .description(
      "where runs stand: a job file's plain run (running, stopped, finished), or distributed runs in a queue database (chunks, rows, rate, ETA)",
    )
    .argument('[run]', 'one run (its id or the start of it), or a job file: where its plain run stands')
    .option('--queue <url>', 'postgres:// URL of the queue database (default: GEOBATCH_QUEUE)')
    .option(
      '-o, --output <path>',
      "with a job file: its run's output, as `geobatch run -o` names it (several: the first is the one)",
      (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
    )
    .option('--json', 'the statuses as JSON')
    .addHelpText('after', STATUS_HELP)
    .action(async (run: string | undefined, flags: StatusFlags) => {
      if (run !== undefined && namesJobFile(run, isFile)) return statusOfJob(run, flags);
      if (flags.output !== undefined)
        throw new UsageError('-o/--output: only applies with a job file', {
          field: 'output',
          hint: 'Give the job file first (`geobatch status job.yaml -o out.csv`); a queue run is named by its id.',
        });
      const { openQueueDatabase } = await import('../queue/database.js');
      const { runStatuses } = await import('../queue/status.js');
      const db = await openQueueDatabase(queueUrl(flags.queue));
      try {
        const statuses = await runStatuses(db.pool, run);
        // A script asking after one run must not take "no such run" for a run with nothing to show.
        if (run !== undefined && statuses.length === 0)
          throw new UsageError(`no run ${run} in ${db.shown}`, {
            field: 'run',
            received: run,
            hint: '`geobatch status` without a run lists the runs and their ids',
          });
        if (flags.json === true) out(JSON.stringify(statuses, null, 2));
        else if (statuses.length === 0) out(`no runs in ${db.shown}`);
        else out(statuses.map(statusText).join('\n\n'));
      } finally {
        await db.close();
      }
    });
}

export function queueCommand(): Command {
  const queue = new Command('queue')
    .description('look after the queue database of distributed runs')
    .addHelpText('after', QUEUE_HELP);
  queue
    .command('prune')
    .description("remove finished runs' data: input rows, outcomes, files, pg-boss queue, shared rate")
    .option('--queue <url>', 'postgres:// URL of the queue database (default: GEOBATCH_QUEUE)')
    .option(
      '--older-than <age>',
      'only runs that ended this long ago, e.g. 7d, 12h (default: every ended run)',
    )
    .option(
      '--include-resumable',
      'also stopped or abandoned runs holding finished chunks, which --resume would take up (it then pays for them again)',
    )
    .addHelpText('after', QUEUE_HELP)
    .action(async (flags: { queue?: string; olderThan?: string; includeResumable?: boolean }) => {
      const age = flags.olderThan === undefined ? 0 : parseAge(flags.olderThan);
      if (age === undefined) {
        throw new UsageError(
          `--older-than: expected an age such as 7d, 12h or 30m, got \`${flags.olderThan}\``,
          {
            field: 'older-than',
            expected: 'a number with d, h, m or s',
            received: flags.olderThan,
          },
        );
      }
      const { openQueueDatabase } = await import('../queue/database.js');
      const { pruneRuns } = await import('../queue/status.js');
      const db = await openQueueDatabase(queueUrl(flags.queue));
      try {
        const { removed, resumable } = await pruneRuns(db, age, {
          resumable: flags.includeResumable === true,
        });
        out(
          removed.length === 0
            ? 'no finished run to remove'
            : `removed ${removed.length} run(s): ${removed.join(', ')}`,
        );
        if (resumable.length > 0)
          out(
            `kept ${resumable.length} stopped run(s) holding finished chunks, which --resume takes up: ` +
              `${resumable.join(', ')} (--include-resumable removes them, and a resume then pays for those chunks again)`,
          );
      } finally {
        await db.close();
      }
    });
  return queue;
}

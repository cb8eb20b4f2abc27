/**
 * `geobatch status <job>`: where a plain run of a job file stands, from the files beside its
 * (first) output (run/local-status.ts). The output is resolved as `geobatch run` resolves it: the
 * job file loaded and `-o` applied by the same code, so that both name the same files.
 */

import { existsSync } from 'node:fs';
import { loadJobFile } from '../config/load.js';
import { applyOverrides } from '../config/overrides.js';
import { UsageError } from '../errors.js';
import { selectionFlags } from '../input/sample.js';
import { durationText } from '../log.js';
import { requestsMade } from '../report/index.js';
import { resumeRefusal } from '../run/_found-checkpoint.js';
import { resumeFactsOf } from '../run/assemble.js';
import { type Journal, outputMarks } from '../run/checkpoint.js';
import { type LocalStatus, localStatus } from '../run/local-status.js';
import { scrub } from '../secrets.js';
import { shellWord } from '../shell-word.js';
import { checkpointKeptLine, plural, where } from './_summary.js';

/** Whether `status`'s argument names a job file rather than a queue run's id. */
export function namesJobFile(argument: string, isFile: (path: string) => boolean): boolean {
  return /\.ya?ml$/i.test(argument) || isFile(argument);
}

/** The state of `job`'s run, its output named by `outputs` (every `-o`) as `geobatch run` names it. */
export async function jobStatus(
  job: string,
  outputs: readonly string[] | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<LocalStatus> {
  const output =
    outputs === undefined || outputs.length === 0 ? undefined : outputs.length === 1 ? outputs[0] : outputs;
  const loaded = await loadJobFile(job, env);
  const config = applyOverrides(loaded, { output });
  if (config.output.path === '-')
    throw new UsageError('status: a run writing to standard output leaves no files to tell its state by', {
      field: 'output',
      received: '-',
      hint: 'Name the output file the run writes (-o out.csv) to see where that run stands.',
    });
  // Whether the command status gives goes on: judged as that resume judges it, with what the
  // checkpoint records of the command line the run was given and status is not (its input, every
  // output, its error report, its row selection), which that command gives again. Judged with the
  // -o given here alone, a run of two outputs, one from standard input or one with --limit was
  // sent to --restart-if-changed, throwing away rows a plain --resume would have kept.
  const judge = (journal: Journal, path: string) => {
    const targets = outputMarks(journal).map((mark) => mark.target);
    const resumed = applyOverrides(loaded, {
      output: targets.length === 1 ? targets[0] : targets,
      input: journal.input.path,
      ...(journal.report === null ? {} : { errors: journal.report.target }),
    });
    const facts = resumeFactsOf(resumed, {});
    const selection = journal.jobParts?.selection ?? '';
    return resumeRefusal(
      selection === ''
        ? facts
        : {
            ...facts,
            jobFingerprint: `${facts.jobFingerprint}${selection}`,
            jobParts: { ...facts.jobParts, selection },
          },
      journal,
      path,
    );
  };
  const status = await localStatus(config.output.path, Date.now(), config.input.path, judge);
  // -e only where the run's report is not the one the job file gives beside its outputs.
  const errors = status.resume?.errors;
  if (status.resume === null || errors === undefined) return status;
  const targets = status.resume.outputs ?? [];
  const given = applyOverrides(loaded, { output: targets.length === 1 ? targets[0] : [...targets] });
  if (given.errors.path !== errors) return status;
  const { errors: _, ...resume } = status.resume;
  return { ...status, resume };
}

/** The command that goes on from a stopped run's checkpoint, as the user would type it. */
export function resumeCommand(
  job: string,
  outputs: readonly string[] | undefined,
  status: LocalStatus,
): string | null {
  if (status.resume === null) return null;
  const { resume } = status;
  // The input the checkpoint was made from, where the job file names another (the run had -i).
  const input = resume.input === undefined ? [] : ['-i', where(resume.input)];
  // Every output the run wrote, where fewer were given here (several: the first names the run).
  const written = resume.outputs ?? [];
  const all =
    written.length > 1 && written.length > (outputs ?? []).length ? written.map(where) : (outputs ?? []);
  const words = [
    'geobatch',
    'run',
    job,
    ...input,
    ...all.flatMap((output) => ['-o', output]),
    ...(resume.errors === undefined ? [] : ['-e', where(resume.errors)]),
    ...selectionFlags(resume.selection),
    ...(resume.flags ?? []),
    '--resume',
  ];
  if (status.resume.next === 'start-over') words.push('--restart-if-changed');
  // A distributed run's checkpoint goes on only with its queue: --resume alone is refused.
  if (status.resume.queue !== undefined) words.push('--queue', status.resume.queue);
  return words.map(shellWord).join(' ');
}

/**
 * Why `--resume` would be refused, as a clause of the `checkpoint kept` line, which names the
 * checkpoint: "it" for it, other paths as typed here (`o.csv.partial is gone, ...`).
 */
function refusedClause(message: string, checkpoint: string): string {
  return message.replace(`Checkpoint ${checkpoint} `, 'it ').replace(/\/[^\s,;:()]+/g, (path) => where(path));
}

function ago(iso: string, now: number): string {
  return `${durationText((now - Date.parse(iso)) / 1000)} ago`;
}

function progressLine(status: LocalStatus, now: number): string {
  const p = status.progress;
  if (p === null)
    return '  progress: no checkpoint yet (the first is written within seconds of the first rows)';
  return `  progress: ${plural(p.committedRows, 'row')} committed (${p.ok} ok, ${p.failed} failed), ${plural(p.requests, 'request')} so far; last checkpoint ${ago(p.checkpointAt, now)} (${p.checkpointAt})`;
}

function headline(job: string, status: LocalStatus, now: number): string {
  const lock = status.lock;
  const owner = `pid ${lock?.pid ?? '?'}, started ${lock?.startedAt ?? '?'}, on host ${lock?.hostname ?? '?'}`;
  switch (status.state) {
    case 'running':
      return `${job}: running (${owner})`;
    case 'stopped': {
      const error = status.stop?.error;
      if (lock !== null)
        return `${job}: stopped: killed or crashed (its lock names ${owner}; that process is gone)`;
      if (status.stop?.crashed !== false || error === null || error === undefined)
        return `${job}: stopped: killed or crashed (it wrote no summary as it ended)`;
      const endedAt = status.summary?.timing.endedAt ?? '';
      return `${job}: stopped (exit ${status.summary?.exitCode}), ended ${endedAt} (${ago(endedAt, now)})`;
    }
    case 'finished': {
      const summary = status.summary;
      const endedAt = `ended ${summary?.timing.endedAt} (${ago(summary?.timing.endedAt ?? '', now)})`;
      // Stopped keeping no checkpoint (INPUT_ENCODING keeps nothing): over, but not "finished".
      if (summary?.ended === 'stopped')
        return `${job}: stopped (exit ${summary.exitCode}), ${endedAt}; nothing was kept to resume from`;
      // Exit 4 with rows done: said why, as the closing line says INPUT CUT SHORT.
      const cut =
        summary?.input.truncated === true ? '; its input was cut short, the rows after the cut not read' : '';
      return `${job}: finished: ${summary?.ended} (exit ${summary?.exitCode}), ${endedAt}${cut}`;
    }
    default:
      return `${job}: never run: no lock, checkpoint or summary beside ${where(status.output)}`;
  }
}

/** The lines `geobatch status <job>` prints. */
export function localStatusText(
  job: string,
  outputs: readonly string[] | undefined,
  status: LocalStatus,
  now = Date.now(),
): string {
  const lines = [headline(job, status, now)];
  const summary = status.summary;
  if (summary?.error != null) lines.push(`  ${summary.error.code}: ${summary.error.message}`);
  if (status.state === 'running' || status.state === 'stopped') lines.push(progressLine(status, now));
  if (status.resume !== null) {
    const { checkpoint, next, refused, queue, run } = status.resume;
    const why = refused === undefined ? undefined : refusedClause(refused, checkpoint);
    lines.push(checkpointKeptLine(checkpoint, next, false, why, queue));
    lines.push(`  to go on: ${resumeCommand(job, outputs, status)}`);
    if (queue !== undefined)
      lines.push(
        `  distributed: run ${run} on the queue ${queue}; its chunks: geobatch status --queue ${shellWord(queue)} ${run}`,
      );
  } else if (status.state === 'stopped') {
    lines.push('  no row was committed, so nothing is kept: run again (no --resume needed)');
  }
  if (status.state === 'finished' && summary !== null) {
    const { rows } = summary;
    lines.push(
      `  rows: ${rows.read} read, ${rows.ok} ok, ${rows.failed} failed; ${plural(requestsMade(summary), 'request')}`,
    );
    // A file the run wrote may have been moved or deleted since: said, rather than named as there.
    const gone = (path: string) => (existsSync(path) ? '' : ' (not there now)');
    for (const output of summary.outputs)
      if (output.path !== '-')
        lines.push(
          `  output   ${where(output.path)}${output.written ? gone(output.path) : ' (not written)'}`,
        );
    if (summary.report?.written === true)
      lines.push(
        `  errors   ${where(summary.report.path)} (${plural(summary.report.rows, 'row')})${gone(summary.report.path)}`,
      );
    if (status.summaryPath !== null) lines.push(`  summary  ${where(status.summaryPath)}`);
    // Written after the summary: a run killed between the two names one it never wrote, which is
    // as absent as one deleted since; the summary cannot tell which.
    if (summary.runReport !== null)
      lines.push(`  report   ${where(summary.runReport)}${status.runReportThere ? '' : ' (not there)'}`);
  } else if (status.state !== 'never-run') {
    // A stopped run's output is in its .partial file, or nowhere (nothing was kept): a path alone
    // read as a file there to open.
    const state =
      status.partial !== null
        ? ` (not finished: the rows so far are in ${where(status.partial)})`
        : status.outputThere
          ? ''
          : ' (not written)';
    lines.push(`  output   ${where(status.output)}${state}`);
  }
  // Scrubbed whole: a key can reach a path (an output named from ${VAR}), and messages are shown.
  return scrub(lines.join('\n'));
}

/** The same facts as one JSON object (README: "geobatch status <job>"). */
export function localStatusJson(
  job: string,
  outputs: readonly string[] | undefined,
  status: LocalStatus,
  now = Date.now(),
): string {
  const summary = status.summary;
  const document = {
    job,
    state: status.state,
    output: status.output,
    lock: status.lock,
    progress: status.progress,
    resume:
      status.resume === null ? null : { ...status.resume, command: resumeCommand(job, outputs, status) },
    stop: status.stop,
    summary:
      summary === null
        ? null
        : {
            path: status.summaryPath,
            ended: summary.ended,
            exitCode: summary.exitCode,
            error: summary.error,
            endedAt: summary.timing.endedAt,
            endedSecondsAgo: Math.max(0, Math.round((now - Date.parse(summary.timing.endedAt)) / 1000)),
            rows: {
              read: summary.rows.read,
              written: summary.rows.written,
              ok: summary.rows.ok,
              failed: summary.rows.failed,
            },
            requests: requestsMade(summary),
            outputs: summary.outputs.map((output) => output.path),
            errors: summary.report?.written === true ? summary.report.path : null,
            // Only a report that is there (a run killed after its summary wrote none).
            report: status.runReportThere ? summary.runReport : null,
          },
    partial: status.partial,
  };
  return scrub(JSON.stringify(document, null, 2));
}

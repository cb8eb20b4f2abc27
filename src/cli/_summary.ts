/**
 * The few lines a person reads when a run ends (the full account is the summary JSON). They name
 * only files this run wrote: a report or summary left by an earlier run is never pointed at.
 */
import { relative } from 'node:path';
import { INPUT_CHANGED } from '../input/_source.js';
import type { ResumeNext } from '../output/summary.js';
import { attemptsBeyond, requestsMade, selectedBy, unknownKeysText } from '../report/index.js';
import type { RunSummary } from '../run/run.js';
import { scrub } from '../secrets.js';
import { shellWord } from '../shell-word.js';

/** A path as a person at this prompt would type it: relative to here, unless that climbs out. */
export function where(path: string): string {
  const shown = relative(process.cwd(), path);
  return shown.startsWith('..') ? path : shown;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The cache's part of the closing line; empty without a cache. It names the requests the cache
 * answered in the service's place (`requestsSaved`) and the items it answered wholly (`hits`): a
 * boundaries run whose cache answered some of its level calls, but never every call of a request,
 * said "0 items from the cache (4 requests saved)", which read as a contradiction.
 */
function cacheWords(summary: RunSummary): string {
  const cache = summary.cache;
  if (cache === null) return '';
  const verb = summary.dryRun ? 'the cache would answer' : 'the cache answered';
  const all = summary.steps === undefined || cache.uncached.length === summary.steps.length;
  if (cache.uncached.length > 0 && all) return `; ${cache.uncached.join(', ')}: not kept in the cache`;
  const not = cache.uncached.length === 0 ? '' : `; ${cache.uncached.join(', ')}: not kept in the cache`;
  return `; ${verb} ${plural(cache.requestsSaved, 'request')} (${plural(cache.hits, 'item')} wholly)${not}`;
}

/** `1 item`, `2 items`. */
/** ` selected by --limit 3`: the rows answered are not the whole input. */
function selected(summary: RunSummary): string {
  const flags = selectedBy(summary);
  return flags === undefined ? '' : ` selected by ${flags}`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Requests only the answers can tell: further pages of hits, which the count above leaves out. */
function morePages(estimate: RunSummary['estimate']): string[] {
  if (estimate === null || estimate.requestsAtMost === estimate.requests) return [];
  // The count is the fewest: the job's rule says what the answers decide.
  if (estimate.requestsRule !== undefined) return [`  ${estimate.requestsRule}`];
  if (estimate.requestsAtMost === null)
    return [
      '  and one more for every further page of hits the service has (nearest: all): only the answers tell',
    ];
  const rate = estimate.requestsPerSecond;
  const time = rate === null ? '' : ` (about ${Math.ceil(estimate.requestsAtMost / rate)} s)`;
  return [
    `  up to ${plural(estimate.requestsAtMost, 'request')}${time} with further pages of hits, as the answers need them`,
  ];
}

function dryRun(summary: RunSummary, saved: number, name: string): string[] {
  const { rows, requests, estimate } = summary;
  // A count that depends on the answers is the fewest: "at least", the time too.
  const least = estimate?.requestsRule === undefined ? '' : 'at least ';
  const time =
    estimate?.seconds === null || estimate === null
      ? 'no rate set, so no time estimate (--rate)'
      : `${least === '' ? 'about' : 'at least'} ${estimate.seconds} s at ${estimate.requestsPerSecond} requests/s`;
  // Batches the job answers without a request (a trip of one stop) are among `sent`, not needed;
  // nor were they saved: `saved` counts as the run's closing line does, so that both agree.
  const needed = estimate?.requests ?? requests.sent;
  // A pipeline's later steps are not planned: the line must not read as the whole run's cost.
  const first = estimate?.firstStepOf;
  const whose = first === undefined ? '' : ` for the first of ${first.steps} steps (${first.step})`;
  return [
    `${name} (dry run): ${plural(rows.read, 'row')}, ${rows.failed} would fail before any request${first === undefined ? '' : ` of ${first.step}`}`,
    `  ${least}${plural(needed, 'request')}${whose} after dedup and batching (${saved} saved)${cacheWords(summary)}; ${time}`,
    ...(first === undefined
      ? []
      : ["  the later steps' requests depend on its answers: not counted, nor the rows they would fail"]),
    ...morePages(estimate),
  ];
}

function headline(summary: RunSummary, saved: number, name: string): string {
  const { rows } = summary;
  const time = seconds(summary.timing.durationMs);
  const counts = `${rows.ok} ok, ${rows.failed} failed`;
  const requests = `${plural(requestsMade(summary), 'request')} (${saved} saved by dedup, batching and local answers${attempts(summary)})`;
  switch (summary.ended) {
    case 'stopped':
      // With what it paid for: a stop's requests include those of rows it read and did not write
      // (a distributed run's chunks workers had done), which the next session does not pay again.
      return `${name}: STOPPED after ${plural(rows.ok + rows.failed, 'row')} (${counts}), ${time}; ${requests}${cacheWords(summary)}`;
    case 'empty':
      return `${name}: NO DATA ROWS, nothing to do (exit ${summary.exitCode})`;
    case 'output_closed':
      return `${name}: output closed by its reader after ${plural(rows.written, 'row')} (${counts}), ${time}; ${requests}`;
    default:
      // "done" alone read as the whole input done: the rows after a cut were never read.
      return summary.input.truncated
        ? `${name}: INPUT CUT SHORT, done in ${time} with the rows before the cut: ${plural(rows.read, 'row')}, ${counts}; ${requests}${cacheWords(summary)}`
        : `${name}: done in ${time}: ${plural(rows.read, 'row')}${selected(summary)}, ${counts}; ${requests}${cacheWords(summary)}`;
  }
}

/**
 * The HTTP attempts, when they are not the requests: the requests are counted as the run report
 * counts them (one per batch, and those a job asks within one), never retries, token requests or
 * the cache's answers. The line gave the HTTP count as the requests: a geocode run of 151 requests
 * that met 83 retries said "234 requests" where its report said 151.
 */
function attempts(summary: RunSummary): string {
  const { http } = summary.requests;
  const made = requestsMade(summary);
  if (http === made) return '';
  if (http < made) return `; ${http} of them reached the service, the others failed to connect`;
  const sessions = summary.resume?.resumed === true ? ' over its sessions' : '';
  return `; ${plural(http, 'HTTP attempt')}${sessions}, ${listed(attemptsBeyond(summary))} included`;
}

/**
 * The line that names a checkpoint kept and what takes it up, as `next` says: never --resume alone
 * where it cannot continue it (a finished file changed, other data on standard input). The run's
 * closing line, and `geobatch status <job>`'s for a run that stopped or was killed.
 */
export function checkpointKeptLine(
  checkpoint: string,
  next: ResumeNext | null | undefined,
  mismatch = false,
  refused?: string,
  queue?: string,
): string {
  return `  checkpoint kept: ${where(checkpoint)}${wayOnFrom(next, mismatch, refused, queue)}`;
}

/**
 * The rows written that the checkpoint does not commit, when there are any: a full disk stopped a
 * run "after 1494 rows" while its checkpoint, the last good one, held 1002, and `status` then said
 * 1002 with nothing to tell the two apart. A resume answers those rows again (the request cache,
 * if any, has their answers).
 */
function behindLine(summary: RunSummary): string | undefined {
  const kept = summary.resume.checkpointRows;
  const written = summary.rows.written;
  if (kept === undefined || kept === null || kept >= written) return undefined;
  const why =
    summary.error?.code === 'IO_ERROR'
      ? 'a write failed after its last commit'
      : 'only whole groups of rows, such as a trip or a track, are kept';
  const from = kept === 0 ? 'no row' : `rows 1-${kept}`;
  return `  it commits ${from} (${why}): --resume goes on from row ${kept + 1} and answers the rows after it again`;
}

/**
 * `refused`: why --resume would be refused, where it is known (`geobatch status`). `queue`: a
 * distributed run's, without its password, which the resume must be given (--resume alone is
 * refused): the password, if any, comes from PGPASSWORD or ~/.pgpass.
 */
function wayOnFrom(
  next: ResumeNext | null | undefined,
  mismatch: boolean,
  refused?: string,
  queue?: string,
): string {
  const on = queue === undefined ? '' : ` --queue ${shellWord(queue)}`;
  const password = queue === undefined ? '' : ' (the password, if any, from PGPASSWORD or ~/.pgpass)';
  switch (next) {
    case 'start-over':
      return `, but --resume cannot finish it (${refused ?? 'a finished file was changed or removed'}): run with --resume --restart-if-changed${on} to start over from the first row${password}`;
    case 'resume-same-input':
      return mismatch
        ? `; it goes on only from the rows it was made from: rerun with --resume${on} giving them on standard input again${password}, or delete it and the .partial files to start over`
        : `; rerun with --resume${on}, giving the same data on standard input again, to continue${password}`;
    default:
      return `; rerun with --resume${on} to continue${password}`;
  }
}

/**
 * The closing lines. `jobFile`, the job file as the user wrote it, names the run: two job files
 * of one kind (in a cron log of nightly runs) are told apart by it, and not by the job's kind,
 * `summary.job`, which names it without one (a library caller's run).
 */
export function describeSummary(summary: RunSummary, jobFile?: string): string {
  // Scrubbed whole: paths are shown, and a key can reach one (an output named from ${VAR}).
  return scrub(closingLines(summary, jobFile ?? summary.job));
}

/**
 * The run's warnings (its points look swapped), one line each, after what an input cut short
 * means: its rows after the cut are in no output, no error report and no count (as the run report
 * says it).
 */
function warningLines(summary: RunSummary): string[] {
  const cut = summary.input.truncated
    ? [
        summary.input.format === 'geojson'
          ? `  input cut short: reading stopped at a syntax error in row ${summary.rows.read} (the file cut short, or broken there); the rows after it were not read: repair the file or fetch it whole, then run again`
          : `  input cut short: it ends inside row ${summary.rows.read}, which is not whole (the file cut short); the rows that followed it are not in the file: fetch it whole, then run again`,
      ]
    : [];
  const unknown =
    summary.rows.unknownKeyRows > 0 ? [`  warning: ${unknownKeysText(summary.rows.unknownKeyRows)}`] : [];
  return [...cut, ...(summary.warnings ?? []).map((warning) => `  warning: ${warning.message}`), ...unknown];
}

function closingLines(summary: RunSummary, name: string): string {
  const { requests } = summary;
  const saved = requests.savedByDedup + requests.savedByBatching + requests.savedByLocalAnswers;
  if (summary.dryRun) {
    const lines = dryRun(summary, saved, name);
    if (summary.error !== null) lines.push(`  ${summary.error.code}: ${scrub(summary.error.message)}`);
    lines.push(...warningLines(summary));
    return lines.join('\n');
  }
  const lines = [headline(summary, saved, name)];
  if (summary.error !== null && summary.ended !== 'output_closed') {
    lines.push(`  ${summary.error.code}: ${scrub(summary.error.message)}`);
    // A distributed run goes on only with --queue, which the `checkpoint kept` line gives: a hint
    // that says --resume alone (a Ctrl-C's, a worker's stop) gets it too, not contradicts it.
    const { hint } = summary.error;
    const queue = summary.resume.queue;
    if (hint)
      lines.push(
        `  hint: ${queue == null ? hint : hint.replace(/--resume(?! --queue)/g, `--resume --queue ${shellWord(queue)}`)}`,
      );
  }
  if (summary.cache?.problem) lines.push(`  cache: ${scrub(summary.cache.problem)}`);
  lines.push(...warningLines(summary));
  if (summary.resume.checkpoint !== null) {
    lines.push(
      checkpointKeptLine(
        summary.resume.checkpoint,
        summary.resume.next,
        summary.error?.code === 'CHECKPOINT_MISMATCH',
        undefined,
        summary.resume.queue,
      ),
    );
    const behind = behindLine(summary);
    if (behind !== undefined) lines.push(behind);
  } else if (summary.ended === 'stopped') {
    // A stop asked for (Ctrl-C, SIGTERM) broke nothing: there is nothing to fix first.
    const fixed = summary.error?.code === 'ABORTED' ? '' : 'once fixed, ';
    lines.push(
      summary.output?.path === '-'
        ? `  output to standard output cannot be resumed: ${fixed}run again from the start`
        : summary.error?.code === 'INPUT_ENCODING'
          ? '  nothing is kept: a run cannot go on in another encoding; once fixed, run again (no --resume needed)'
          : summary.error?.code === 'IO_ERROR' && summary.error.message.includes(INPUT_CHANGED)
            ? '  nothing is kept: a resume could not go on from a changed input; once it is complete, run again (no --resume needed)'
            : summary.rows.written > 0
              ? // Rows were written, and no checkpoint commits them: the stop came inside the first
                // group of rows (a track being matched, a trip: only whole groups are kept), or the
                // write failed. "No row was committed" beside "STOPPED after 1230 rows" read as a contradiction.
                `  nothing is kept: no checkpoint commits the ${plural(summary.rows.written, 'row')} written (${summary.error?.code === 'IO_ERROR' ? 'writing failed, and no checkpoint of them is there: none was written yet, or its directory was removed' : 'a stop inside the first group of rows, such as a trip or a track, keeps none'}): ${fixed}run again (no --resume needed)`
              : `  no row was committed, so nothing is kept: ${fixed}run again (no --resume needed)`,
    );
  }
  for (const output of summary.outputs)
    if (output.written && output.path !== '-') lines.push(`  output   ${where(output.path)}`);
  const { report } = summary;
  // Named even when no row failed: the file is there (its header alone), and a person or a
  // script looking for it should not have to guess.
  if (report?.written === true)
    lines.push(`  errors   ${where(report.path)} (${plural(report.rows, 'row')})`);
  if (summary.summaryFile !== null) lines.push(`  summary  ${where(summary.summaryFile)}`);
  if (summary.runReport !== null) lines.push(`  report   ${where(summary.runReport)}`);
  return lines.join('\n');
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

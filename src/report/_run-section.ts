/**
 * The report's head and its row accounting, rendered as plain HTML: the report's sections read
 * without JavaScript, and tests check them as text. Every value passes through `esc`.
 */
import type { RunSummary } from '../output/summary.js';
import { bytes, duration, esc, escWithCode, num, percent, plural } from './_html.js';
import { adviceFor } from './advice.js';

const ENDED: Readonly<Record<RunSummary['ended'], string>> = {
  complete: 'Complete: every row ok',
  complete_with_failures: 'Complete, with failed rows',
  stopped: 'Stopped',
  empty: 'Empty input: no data row',
  output_closed: 'Ended early: the program reading the output closed it',
};

/**
 * What a file the run did not put in place is: a stopped run's records are in its `.partial`
 * while a checkpoint is kept, else nowhere (the summary's `written`, which this follows).
 */
function notPlaced(written: boolean, s: RunSummary): string {
  if (written) return '';
  return s.resume.checkpoint === null
    ? ': not written, the run stopped first'
    : ': not written yet, the records so far are in its .partial, kept for --resume';
}

/**
 * Whether a page names `output` as an output of its run, as header() below writes it: what tells
 * an earlier page about this output from one about another that shared its path (run/_stale-reports.ts).
 */
export function describesOutput(page: string, output: string): boolean {
  return page.includes(`<dt>output</dt><dd>${esc(`${output} (`)}`);
}

export function header(s: RunSummary): string {
  const files: [string, string | null | undefined][] = [
    [
      'input',
      `${s.input.path} (${s.input.format}${s.input.bytes === null ? '' : `, ${bytes(s.input.bytes)}`})`,
    ],
    // One line per output: a run may write several from the same pass.
    ...s.outputs.map((o): [string, string] => [
      'output',
      `${o.path} (${o.format}, ${plural(o.records, 'record')})${notPlaced(o.written, s)}`,
    ]),
    [
      'error report',
      s.report === null
        ? null
        : `${s.report.path} (${s.report.format}, ${plural(s.report.rows, 'row')})${notPlaced(s.report.written, s)}`,
    ],
    ['started', s.timing.startedAt],
    ['ended', s.timing.endedAt],
    ['duration', `${duration(s.timing.durationMs)}${s.resume.resumed ? ' (all sessions)' : ''}`],
    [
      'rate',
      `${num(s.timing.rowsPerSecond)} rows/s, ${num(s.timing.requestsPerSecond)} requests/s (this session)`,
    ],
    ['peak memory', bytes(s.memory.peakRssBytes)],
  ];
  if (s.resume.resumed) files.push(['resumed', `from row ${num(s.resume.fromRow + 1)}`]);
  if (s.resume.checkpoint !== null) files.push(['checkpoint', s.resume.checkpoint]);
  const facts = files
    .filter((f): f is [string, string] => typeof f[1] === 'string')
    .map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`)
    .join('');
  return `<header>
<h1>geobatch run report: <span class="job">${esc(s.job)}</span></h1>
<p class="ended ended-${esc(s.ended)}" data-ended="${esc(s.ended)}">${esc(ENDED[s.ended] ?? s.ended)}; exit code ${esc(s.exitCode)}${s.dryRun ? ' (dry run)' : ''}</p>
${stopError(s)}${runWarnings(s)}<dl class="facts">${facts}</dl>
</header>`;
}

/** The run's warnings (its points look swapped): said at the top, as no row's failure says them. */
function runWarnings(s: RunSummary): string {
  const warnings = s.warnings ?? [];
  if (warnings.length === 0) return '';
  const items = warnings.map((w) => `<li data-kind="${esc(w.kind)}">warning: ${esc(w.message)}</li>`);
  return `<ul class="warnings">${items.join('')}</ul>\n`;
}

/**
 * The stop's code and message, its hint and what to do about the code. The hint is this stop's own
 * word; when it already says to run again with `--resume`, the code's advice (which says so too,
 * in general terms) is left out, so the page gives the way on once.
 */
function stopError(s: RunSummary): string {
  if (s.error === null) return '';
  const { hint, message } = s.error;
  const advice = withoutCheckpoint(adviceFor(s.error.code), s.resume.checkpoint);
  const repeated = hint?.includes('--resume') === true && advice.includes('--resume');
  // A hint the message already ends with ("...: check GEOBATCH_API_KEY") is not said twice.
  const said = hint !== undefined && message.endsWith(hint);
  const parts = [
    `<p><code>${esc(s.error.code)}</code> ${esc(message)}</p>`,
    hint === undefined || said ? '' : `<p class="hint">${esc(hint)}</p>`,
    repeated ? '' : `<p class="advice">${escWithCode(advice)}</p>`,
  ];
  return `<div class="stop" id="stop">${parts.join('')}</div>\n`;
}

/**
 * The code's advice for a stop that kept no checkpoint (nothing was committed): "run again with
 * `--resume`" would be refused there, so the advice says to run again without it.
 */
function withoutCheckpoint(advice: string, checkpoint: string | null): string {
  if (checkpoint !== null) return advice;
  return advice
    .replace(
      / with `--resume`( to continue from the checkpoint)?/g,
      ' (without `--resume`: no checkpoint was kept)',
    )
    .replace(/; done chunks are kept\./, '.');
}

export function rows(s: RunSummary): string {
  const r = s.rows;
  const cards: [string, number, string][] = [
    ['read', r.read, ''],
    ['written', r.written, ''],
    ['ok', r.ok, percent(r.ok, r.read)],
    ['failed', r.failed, percent(r.failed, r.read)],
  ];
  if (s.report !== null) cards.push(['in the error report', s.report.rows, '']);
  if (r.unknownKeyRows > 0) cards.push(['with keys the CSV could not hold', r.unknownKeyRows, '']);
  const html = cards
    .map(
      ([label, value, share]) =>
        `<div class="card card-${esc(label.split(' ')[0])}"><span class="value" data-count="${esc(label)}">${num(value)}</span><span class="label">${esc(label)}</span>${share === '' ? '' : `<span class="share">${esc(share)}</span>`}</div>`,
    )
    .join('');
  return `<section id="rows"><h2>Rows</h2><div class="cards">${html}</div>${accounting(s)}</section>`;
}

/**
 * The run's promise, checked in the open: read = written = ok + failed (+ reported = failed). A
 * run that did not finish (stopped, or its output closed by its reader) has rows read but not
 * written, in flight when it ended: they are counted apart, not taken for a broken balance.
 */
function accounting(s: RunSummary): string {
  const r = s.rows;
  const split = r.written === r.ok + r.failed;
  const reportAgrees = s.report === null || s.report.rows === r.failed;
  const inFlight = r.read - r.written;
  const unfinished = s.ended === 'stopped' || s.ended === 'output_closed';
  const reported =
    s.report === null
      ? ''
      : `; failed ${num(r.failed)} ${relation(r.failed, s.report.rows)} in the error report ${num(s.report.rows)}`;
  if (unfinished && inFlight > 0) {
    const parts = split
      ? `(ok ${num(r.ok)} + failed ${num(r.failed)})`
      : `≠ ok ${num(r.ok)} + failed ${num(r.failed)}`;
    const equation = `read ${num(r.read)}: written ${num(r.written)} ${parts}, ${num(inFlight)} in flight ${inFlightFate(s)}${reported}`;
    if (split && reportAgrees)
      return `<p class="accounting balanced" data-balanced="true" data-in-flight="${inFlight}">✓ Every row read is accounted for: ${esc(equation)}.</p>`;
    return unbalanced(equation);
  }
  const equation = `read ${num(r.read)} ${relation(r.read, r.written)} written ${num(r.written)} ${relation(r.written, r.ok + r.failed)} ok ${num(r.ok)} + failed ${num(r.failed)}${reported}`;
  if (inFlight === 0 && split && reportAgrees)
    return `<p class="accounting balanced" data-balanced="true">✓ Every row is accounted for: ${esc(equation)}.</p>`;
  return unbalanced(equation);
}

function unbalanced(equation: string): string {
  return `<p class="accounting unbalanced" data-balanced="false">The counts do not balance: ${esc(equation)}.</p>`;
}

function relation(a: number, b: number): '=' | '≠' {
  return a === b ? '=' : '≠';
}

/** What becomes of the rows in flight when the run ended. */
function inFlightFate(s: RunSummary): string {
  if (s.ended === 'output_closed') return 'when the reader closed the output';
  return s.resume.checkpoint === null
    ? 'when the run stopped (no checkpoint is kept: a new run starts from the first row)'
    : 'when the run stopped, redone by --resume';
}

/**
 * The report's head and its row accounting, rendered as plain HTML: the report's sections read
 * without JavaScript, and tests check them as text. Every value passes through `esc`.
 */
import type { RunSummary } from '../output/summary.js';
import { bytes, duration, esc, escWithCode, num, percent, plural } from './_html.js';
import { requestsMade } from './_requests-section.js';
import { selectedBy } from './_selection.js';
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
    ['rate', rate(s)],
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
<p class="ended ended-${esc(endedClass(s))}" data-ended="${esc(s.ended)}">${esc(endedText(s))}; exit code ${esc(s.exitCode)}${s.dryRun ? ' (dry run)' : ''}</p>
${stopError(s)}${cutNotice(s)}${runWarnings(s)}<dl class="facts">${facts}</dl>
</header>`;
}

/**
 * A run whose input reading stopped early at a syntax error (a GeoJSON file cut short mid-feature)
 * finishes as any other, its broken record one failed row; but the rows after the cut were never
 * read, so no output, error report or count holds them. The page says so first, as the run's end.
 */
function cutShort(s: RunSummary): boolean {
  return s.input.truncated === true && s.ended !== 'empty';
}

function endedClass(s: RunSummary): string {
  if (cutShort(s) && s.ended !== 'stopped') return 'cut_short';
  return warned(s) ? 'complete_with_warnings' : s.ended;
}

/**
 * A complete run with a run-level warning (its points look swapped, a `crs` it did not read): every
 * row is ok as the service answered it, and the answers are likely wrong. The green "every row ok"
 * alone said more than that.
 */
function warned(s: RunSummary): boolean {
  return s.ended === 'complete' && ((s.warnings?.length ?? 0) > 0 || s.rows.unknownKeyRows > 0);
}

/** A stop says its own end (its code and message follow); a run that finished on a cut input says the cut. */
function endedText(s: RunSummary): string {
  if (cutShort(s) && (s.ended === 'complete' || s.ended === 'complete_with_failures'))
    return `Input cut short: only the rows up to row ${num(s.rows.read)} were read`;
  if (warned(s))
    return 'Complete with a warning: every row ok as the service answered it, but see the warning below';
  const text = ENDED[s.ended] ?? s.ended;
  // "Complete: every row ok" of a --limit run read as the whole input done.
  const flags = selectedBy(s);
  if (flags !== undefined && (s.ended === 'complete' || s.ended === 'complete_with_failures'))
    return `${text} (of the rows ${flags} selected)`;
  return text;
}

function cutNotice(s: RunSummary): string {
  if (!cutShort(s)) return '';
  return `<div class="stop" id="cut-short" data-truncated="true"><p>${esc(cutShortText(s.rows.read, s.input.format))}</p><p class="advice">${esc(CUT_SHORT_ADVICE)}</p></div>\n`;
}

/**
 * What a truncated input means, said the same in the closing lines (cli/_summary.ts): GeoJSON's
 * reading stops at its syntax error; a CSV or NDJSON file ends inside its last row.
 */
function cutShortText(lastRow: number, format: string): string {
  if (format !== 'geojson')
    return `The input ends inside row ${num(lastRow)}, which is not whole (the file cut short; the error report holds that row as INPUT_MALFORMED). The rows that followed it are not in the file: they are in no output, no error report and no count on this page.`;
  return `The input was not read to its end: reading stopped at a syntax error in row ${num(lastRow)} (the file cut short, or broken there; the error report holds that row as INPUT_MALFORMED). Rows after it were not read: they are in no output, no error report and no count on this page.`;
}

const CUT_SHORT_ADVICE =
  'Repair the file at that row or fetch it whole again, then run again on it from the start.';

/**
 * The rates, named by what they count: rows written, and requests as the Requests section counts
 * them (one per batch, and those a job asks within one; retries, token requests and the cache's
 * answers left out). A run of one session has its count and time on the page, and the rate is
 * taken from them; the summary's rate counted one request per batch only, so a boundaries run that
 * said "6 requests" gave a rate of 4 over its time.
 */
function rate(s: RunSummary): string {
  const rows = `${num(s.timing.rowsPerSecond)} rows/s`;
  const what = 'requests as counted under Requests, retries and cache answers left out';
  if (s.resume.resumed)
    return `${rows}, ${num(s.timing.requestsPerSecond)} requests/s (this session; ${what})`;
  const made = requestsMade(s);
  const perSecond = Math.round((made / Math.max(s.timing.durationMs / 1000, 0.001)) * 10) / 10;
  return `${rows}, ${num(perSecond)} requests/s (${plural(made, 'request')} in ${duration(s.timing.durationMs)}; ${what})`;
}

/** The run's warnings (its points look swapped): said at the top, as no row's failure says them. */
function runWarnings(s: RunSummary): string {
  const items = (s.warnings ?? []).map(
    (w) => `<li data-kind="${esc(w.kind)}">warning: ${esc(w.message)}</li>`,
  );
  // Values an ok row had and the output has not: the row card counts them, said here as the loss it is.
  if (s.rows.unknownKeyRows > 0)
    items.push(`<li data-kind="unknown-keys">warning: ${esc(unknownKeysText(s.rows.unknownKeyRows))}</li>`);
  if (items.length === 0) return '';
  return `<ul class="warnings">${items.join('')}</ul>\n`;
}

/** Rows whose keys a CSV or GeoPackage output could not hold, said as the closing lines say it. */
export function unknownKeysText(rows: number): string {
  return `${plural(rows, 'row')} had keys that are not among the output's columns (taken from the first row): their values are left out of the CSV or GeoPackage output`;
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
    // Shares of the rows written, which ok and failed add up to: of a stopped run's rows read,
    // those in flight are neither (rC: "32 ok 65.3%" where 32 of the 33 written were ok).
    ['ok', r.ok, percent(r.ok, r.written)],
    ['failed', r.failed, percent(r.failed, r.written)],
  ];
  if (s.report !== null) cards.push(['in the error report', s.report.rows, '']);
  // No row, but a line an analyst counting the sheet's rows would miss: said, not hidden.
  if ((s.input.blankLines ?? 0) > 0) cards.push(['blank lines skipped', s.input.blankLines ?? 0, '']);
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
 * written, in flight when it ended: they are counted apart, not taken for a broken balance. Only a
 * run that read its whole input gets the green "every row is accounted for": one that stopped, had
 * its output closed or read an input cut short balances the rows it read, and says that the rows
 * after them were not read.
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
  const notRead = unreadRest(s);
  if (unfinished && inFlight > 0) {
    const parts = split
      ? `(ok ${num(r.ok)} + failed ${num(r.failed)})`
      : `≠ ok ${num(r.ok)} + failed ${num(r.failed)}`;
    const equation = `read ${num(r.read)}: written ${num(r.written)} ${parts}, ${num(inFlight)} in flight ${inFlightFate(s)}${reported}`;
    if (split && reportAgrees) return partial(equation, notRead ?? '', ` data-in-flight="${inFlight}"`);
    return unbalanced(equation);
  }
  const equation = `read ${num(r.read)} ${relation(r.read, r.written)} written ${num(r.written)} ${relation(r.written, r.ok + r.failed)} ok ${num(r.ok)} + failed ${num(r.failed)}${reported}`;
  if (inFlight === 0 && split && reportAgrees) {
    if (notRead !== undefined) return partial(equation, notRead, '');
    return `<p class="accounting balanced" data-balanced="true">✓ Every row is accounted for: ${esc(equation)}.</p>`;
  }
  return unbalanced(equation);
}

/** Counts that balance for the rows read, of an input not read whole: amber, never the green tick. */
function partial(equation: string, notRead: string, attributes: string): string {
  return `<p class="accounting partial" data-balanced="true"${attributes} data-whole="false">Every row read is accounted for: ${esc(equation)}.${notRead === '' ? '' : ` ${esc(notRead)}`}</p>`;
}

/** Why rows after those read may not have been read, or undefined when the input was read whole. */
function unreadRest(s: RunSummary): string | undefined {
  const last = num(s.rows.read);
  if (s.input.truncated === true)
    return s.input.format === 'geojson'
      ? `Not the whole input: reading stopped at a syntax error in row ${last} (cut short?), and the rows after it were not read.`
      : `Not the whole input: it ends inside row ${last} (cut short?), and the rows that followed it are not in the file.`;
  if (s.ended === 'stopped')
    return `Not the whole input: the run stopped, and any rows after row ${last} were not read.`;
  if (s.ended === 'output_closed')
    return `Not the whole input: its reader closed the output, and any rows after row ${last} were not read.`;
  const flags = selectedBy(s);
  if (flags !== undefined)
    return `Not the whole input: ${flags} selected these rows; any others in the input were not answered.`;
  return undefined;
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

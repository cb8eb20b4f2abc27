/**
 * Steps: what each step of a run of several did, from the summary's `steps` (this session's
 * counts). A row that fails at a step passes the later ones untouched, so each failed row is
 * counted at one step only, and a step reaches the rows the steps before it left ok. What a step
 * cost is its HTTP requests: its `sent` counts one a batch, and left out a boundaries step's calls
 * a level and a search's further pages (5 against the 8 the service saw).
 */
import type { RunSummary, StepSummary } from '../output/summary.js';
import { esc, num, percent } from './_html.js';

const COLUMNS = [
  'step',
  'rows reached',
  'ok after it',
  'failed here',
  'HTTP requests',
  'batches sent',
  'items sent',
  'saved by batching',
  'saved by dedup',
  'local answers',
] as const;

/** The section; empty for a run of one job. */
export function steps(s: RunSummary): string {
  if (s.steps === undefined || s.steps.length === 0) return '';
  const head = COLUMNS.map((c, i) => `<th${i === 0 ? '' : ' class="n"'}>${esc(c)}</th>`).join('');
  const body = s.steps.map(stepRow).join('\n');
  const session = s.resume.resumed
    ? ' This session only (the run was resumed); the totals above cover every session.'
    : '';
  return `<section id="steps"><h2>Steps</h2>
<table class="steps"><thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody></table>
<p class="note">A row that fails at a step passes the later steps untouched: it is counted as failed at that step only. ${esc(httpNote(s))}${esc(session)}</p>
</section>`;
}

function stepRow(step: StepSummary): string {
  const r = step.rows;
  const q = step.requests;
  const failed = `${num(r.failed)}${r.failed > 0 ? ` (${percent(r.failed, r.reached)})` : ''}`;
  const cells = [
    num(r.reached),
    num(r.ok),
    failed,
    q.http === undefined ? '–' : num(q.http),
    num(q.sent),
    num(q.itemsSent),
    num(q.savedByBatching),
    num(q.savedByDedup),
    num(q.savedByLocalAnswers),
  ];
  return `<tr data-step="${esc(step.name)}"><td>${esc(step.name)}</td>${cells.map((c) => `<td class="n">${esc(c)}</td>`).join('')}</tr>`;
}

/**
 * What the HTTP column counts, and that the steps' add up to the run's (this session's: the run's
 * `http` adds up every session's). A summary of an earlier version has no per-step count.
 */
function httpNote(s: RunSummary): string {
  const steps = s.steps ?? [];
  if (steps.some((step) => step.requests.http === undefined))
    return 'HTTP requests per step were not counted by the geobatch that wrote this summary.';
  const total = steps.reduce((sum, step) => sum + (step.requests.http ?? 0), 0);
  // A resumed run's `http` adds up its sessions; the steps' are this session's.
  const adds =
    total === s.requests.http
      ? `, ${num(total)} in all, the run's HTTP requests`
      : `, ${num(total)} in all${s.resume.resumed ? ' this session' : ''}, of the run's ${num(s.requests.http)}`;
  return `HTTP requests: what the client sent for the step, retries, further pages, a rejected batch's parts and token requests included${adds}; batches sent: one request each as the job made it (a boundaries batch asks once per level, a search once per page, over HTTP).`;
}

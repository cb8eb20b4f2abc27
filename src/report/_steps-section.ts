/**
 * Steps: what each step of a run of several did, from the summary's `steps` (this session's
 * counts). A row that fails at a step passes the later ones untouched, so each failed row is
 * counted at one step only, and a step reaches the rows the steps before it left ok.
 */
import type { RunSummary, StepSummary } from '../output/summary.js';
import { esc, num, percent } from './_html.js';

const COLUMNS = [
  'step',
  'rows reached',
  'ok after it',
  'failed here',
  'requests sent',
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
<p class="note">A row that fails at a step passes the later steps untouched: it is counted as failed at that step only.${esc(session)}</p>
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
    num(q.sent),
    num(q.itemsSent),
    num(q.savedByBatching),
    num(q.savedByDedup),
    num(q.savedByLocalAnswers),
  ];
  return `<tr data-step="${esc(step.name)}"><td>${esc(step.name)}</td>${cells.map((c) => `<td class="n">${esc(c)}</td>`).join('')}</tr>`;
}

/** Failures by code: how many, what to do about each, and example rows (plain, escaped HTML). */
import type { RunSummary } from '../output/summary.js';
import { esc, escWithCode, num, percent, plural } from './_html.js';
import { adviceFor } from './advice.js';
import type { FailureExample } from './data.js';

export function failures(s: RunSummary, examples: readonly FailureExample[], resumed: boolean): string {
  const codes = Object.entries(s.rows.failedByCode)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (codes.length === 0)
    return `<section id="failures"><h2>Failures</h2><p>${esc(noFailure(s))}</p></section>`;
  const summaryRows = codes
    .map(
      ([code, n]) =>
        `<tr data-code="${esc(code)}"><td><a href="#code-${esc(code)}"><code>${esc(code)}</code></a></td><td class="n">${num(n)}</td><td class="n">${esc(percent(n, s.rows.failed))}</td><td>${escWithCode(adviceFor(code))}</td></tr>`,
    )
    .join('\n');
  // A run of several steps says at which step each example failed.
  const steps = (s.steps?.length ?? 0) > 0;
  const details = codes.map(([code, n]) => exampleTable(code, n, examples, resumed, steps)).join('\n');
  return `<section id="failures"><h2>Failures by code</h2>
<table class="codes"><thead><tr><th>code</th><th class="n">rows</th><th class="n">of failed</th><th>what to do</th></tr></thead>
<tbody>
${summaryRows}
</tbody></table>
${details}
</section>`;
}

/**
 * The section of a run without a failure code. "No row failed" alone is said only of a run that
 * read its whole input with no failed row: a stopped run's rows after those written may yet fail
 * (a quota stop with 150 rows in flight and none written said "No row of the 150 read failed"), and
 * failed rows whose codes the summary does not give are not made to vanish.
 */
function noFailure(s: RunSummary): string {
  const { failed, written } = s.rows;
  if (failed > 0)
    return `${plural(failed, 'row')} failed, without a code in the summary: the error report lists ${failed === 1 ? 'it' : 'them'}.`;
  if (s.ended === 'stopped' || s.ended === 'output_closed')
    return `No row of the ${num(written)} written failed; the run ${s.ended === 'stopped' ? 'stopped' : 'ended when its output was closed'}, and any rows after them were not finished or not read.`;
  return 'No row failed.';
}

function exampleTable(
  code: string,
  count: number,
  all: readonly FailureExample[],
  resumed: boolean,
  steps: boolean,
): string {
  const examples = all.filter((e) => e.code === code);
  const title = `<h3 id="code-${esc(code)}"><code>${esc(code)}</code>: ${plural(count, 'row')}</h3>`;
  if (examples.length === 0) {
    const one = count === 1;
    const why = resumed
      ? `No example from this session: ${one ? 'this row' : 'these rows'} failed before the run was resumed.`
      : 'No example was kept.';
    return `${title}<p class="note">${esc(why)} The error report lists ${one ? 'it' : 'them'}.</p>`;
  }
  const body = examples
    .map(
      (e) =>
        `<tr class="example" data-code="${esc(code)}"><td class="n">${num(e.row)}</td><td class="n">${num(e.line)}</td>${steps ? `<td class="step">${esc(e.step ?? '')}</td>` : ''}<td>${esc(e.stage)}</td><td class="n">${esc(e.status ?? '')}</td><td>${esc(e.message)}</td><td class="fields">${fields(e.fields)}</td></tr>`,
    )
    .join('\n');
  const shown =
    examples.length < count
      ? `<p class="note">The first ${examples.length}; the error report lists all.</p>`
      : '';
  return `${title}
<table class="examples"><thead><tr><th class="n">row</th><th class="n">line</th>${steps ? '<th>step</th>' : ''}<th>stage</th><th class="n">HTTP</th><th>message</th><th>input fields</th></tr></thead>
<tbody>
${body}
</tbody></table>${shown}`;
}

function fields(values: Readonly<Record<string, string>>): string {
  return Object.entries(values)
    .map(
      ([k, v]) =>
        `<span class="field"><span class="k">${esc(k)}</span>=<span class="v">${esc(v)}</span></span>`,
    )
    .join(' ');
}

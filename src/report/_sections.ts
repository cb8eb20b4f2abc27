/**
 * The report's tables and figures, rendered on the server side as plain HTML: they read without
 * JavaScript, and tests can check them as text. Every value passes through `esc`.
 */
import type { RunSummary } from '../output/summary.js';
import { bytes, duration, esc, escWithCode, num, percent } from './_html.js';
import { adviceFor } from './advice.js';
import type { CacheCounts, FailureExample, MapSample } from './data.js';

const ENDED: Readonly<Record<RunSummary['ended'], string>> = {
  complete: 'Complete: every row ok',
  complete_with_failures: 'Complete, with failed rows',
  stopped: 'Stopped',
};

export function header(s: RunSummary): string {
  const files: [string, string | null | undefined][] = [
    [
      'input',
      `${s.input.path} (${s.input.format}${s.input.bytes === null ? '' : `, ${bytes(s.input.bytes)}`})`,
    ],
    [
      'output',
      s.output === null ? null : `${s.output.path} (${s.output.format}, ${num(s.output.records)} records)`,
    ],
    [
      'error report',
      s.report === null ? null : `${s.report.path} (${s.report.format}, ${num(s.report.rows)} rows)`,
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
${stopError(s)}<dl class="facts">${facts}</dl>
</header>`;
}

function stopError(s: RunSummary): string {
  if (s.error === null) return '';
  const hint = s.error.hint === undefined ? '' : `<p class="hint">${esc(s.error.hint)}</p>`;
  return `<div class="stop" id="stop"><p><code>${esc(s.error.code)}</code> ${esc(s.error.message)}</p>${hint}<p class="advice">${escWithCode(adviceFor(s.error.code))}</p></div>\n`;
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

/** The run's promise, checked in the open: read = written = ok + failed (+ reported = failed). */
function accounting(s: RunSummary): string {
  const r = s.rows;
  const balanced = r.read === r.written && r.written === r.ok + r.failed;
  const reported =
    s.report === null ? '' : `; failed ${num(r.failed)} = in the error report ${num(s.report.rows)}`;
  const equation = `read ${num(r.read)} = written ${num(r.written)} = ok ${num(r.ok)} + failed ${num(r.failed)}${reported}`;
  if (balanced && (s.report === null || s.report.rows === r.failed))
    return `<p class="accounting balanced" data-balanced="true">✓ Every row is accounted for: ${esc(equation)}.</p>`;
  const why =
    s.ended === 'stopped'
      ? 'The run stopped: rows read after the last complete one are not written yet; a resume continues from the checkpoint.'
      : 'The counts do not balance.';
  return `<p class="accounting unbalanced" data-balanced="false">${esc(why)} ${esc(equation)}.</p>`;
}

export function failures(s: RunSummary, examples: readonly FailureExample[], resumed: boolean): string {
  const codes = Object.entries(s.rows.failedByCode)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (codes.length === 0) return '<section id="failures"><h2>Failures</h2><p>No row failed.</p></section>';
  const summaryRows = codes
    .map(
      ([code, n]) =>
        `<tr data-code="${esc(code)}"><td><a href="#code-${esc(code)}"><code>${esc(code)}</code></a></td><td class="n">${num(n)}</td><td class="n">${esc(percent(n, s.rows.failed))}</td><td>${escWithCode(adviceFor(code))}</td></tr>`,
    )
    .join('\n');
  const details = codes.map(([code, n]) => exampleTable(code, n, examples, resumed)).join('\n');
  return `<section id="failures"><h2>Failures by code</h2>
<table class="codes"><thead><tr><th>code</th><th class="n">rows</th><th class="n">of failed</th><th>what to do</th></tr></thead>
<tbody>
${summaryRows}
</tbody></table>
${details}
</section>`;
}

function exampleTable(code: string, count: number, all: readonly FailureExample[], resumed: boolean): string {
  const examples = all.filter((e) => e.code === code);
  const title = `<h3 id="code-${esc(code)}"><code>${esc(code)}</code>: ${num(count)} row${count === 1 ? '' : 's'}</h3>`;
  if (examples.length === 0) {
    const why = resumed
      ? 'No example from this session: these rows failed before the run was resumed.'
      : 'No example was kept.';
    return `${title}<p class="note">${esc(why)} The error report lists them.</p>`;
  }
  const body = examples
    .map(
      (e) =>
        `<tr class="example" data-code="${esc(code)}"><td class="n">${num(e.row)}</td><td class="n">${num(e.line)}</td><td>${esc(e.stage)}</td><td class="n">${esc(e.status ?? '')}</td><td>${esc(e.message)}</td><td class="fields">${fields(e.fields)}</td></tr>`,
    )
    .join('\n');
  const shown =
    examples.length < count
      ? `<p class="note">The first ${examples.length}; the error report lists all.</p>`
      : '';
  return `${title}
<table class="examples"><thead><tr><th class="n">row</th><th class="n">line</th><th>stage</th><th class="n">HTTP</th><th>message</th><th>input fields</th></tr></thead>
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

export function requests(s: RunSummary, cache: CacheCounts | null | undefined): string {
  const q = s.requests;
  const hits = cache?.hits ?? 0;
  const naive = q.sent + q.savedByBatching + q.savedByDedup + q.savedByLocalAnswers + hits;
  const savings: [string, number, string][] = [
    ['batching', q.savedByBatching, 'items that shared a request with others'],
    ['dedup', q.savedByDedup, "items answered by an identical item's request"],
    [
      'local answers',
      q.savedByLocalAnswers,
      'items the job answered without a request (e.g. the spatial index)',
    ],
  ];
  if (cache !== undefined && cache !== null)
    savings.push(['cache', hits, 'requests answered from the request cache']);
  const saved = savings
    .map(
      ([label, n, what]) =>
        `<tr data-saved="${esc(label)}"><td>${esc(label)}</td><td class="n">${num(n)}</td><td class="n">${esc(percent(n, naive))}</td><td>${esc(what)}</td></tr>`,
    )
    .join('\n');
  return `<section id="requests"><h2>Requests</h2>
<p class="lead">${num(q.sent)} request${q.sent === 1 ? '' : 's'} sent for ${num(naive)} item${naive === 1 ? '' : 's'}: one request per item would have cost ${num(naive)}; ${esc(percent(naive - q.sent, naive) || '0%')} saved. ${num(q.failed)} failed as a whole; at most ${num(q.maxInFlight)} in flight.</p>
<table class="saved"><thead><tr><th>saved by</th><th class="n">requests</th><th class="n">of all items</th><th>what</th></tr></thead>
<tbody>
${saved}
</tbody></table>
${interfaces(s.client)}
</section>`;
}

/** The client's attempts per interface by outcome; the client metrics are read defensively. */
function interfaces(client: RunSummary['client']): string {
  const requests = record(client?.requests);
  const byInterface = record(requests.byInterface);
  const names = Object.keys(byInterface);
  if (names.length === 0) return '<p class="note">No request reached a service.</p>';
  const columns = ['2xx', '4xx', '429', '5xx', 'network', 'timeout'] as const;
  const rowsHtml = names
    .map((name) => {
      const counts = record(byInterface[name]);
      const by: Record<(typeof columns)[number], number> = {
        '2xx': 0,
        '4xx': 0,
        '429': 0,
        '5xx': 0,
        network: 0,
        timeout: 0,
      };
      let total = 0;
      for (const [outcome, n] of Object.entries(counts)) {
        const count = typeof n === 'number' ? n : 0;
        total += count;
        by[outcomeColumn(outcome)] += count;
      }
      const cells = columns.map((c) => `<td class="n">${num(by[c])}</td>`).join('');
      return `<tr data-interface="${esc(name)}"><td>${esc(name)}</td><td class="n">${num(total)}</td>${cells}</tr>`;
    })
    .join('\n');
  const retries = record(client?.retries);
  const causes = Object.entries(record(retries.byCause))
    .map(([cause, n]) => `${esc(cause)} ${num(Number(n))}`)
    .join(', ');
  const latency = record(client?.latencyMs);
  const throttled = Number(client?.throttled429 ?? 0);
  return `<h3>Attempts per interface</h3>
<table class="interfaces"><thead><tr><th>interface</th><th class="n">attempts</th>${columns.map((c) => `<th class="n">${c}</th>`).join('')}</tr></thead>
<tbody>
${rowsHtml}
</tbody></table>
<p class="note">Retries: ${num(Number(retries.total ?? 0))}${causes === '' ? '' : ` (${causes})`}. 429 answers: ${num(throttled)}. Latency per attempt: p50 ${num(Number(latency.p50 ?? 0))} ms, p90 ${num(Number(latency.p90 ?? 0))} ms, p99 ${num(Number(latency.p99 ?? 0))} ms.</p>`;
}

function outcomeColumn(outcome: string): '2xx' | '4xx' | '429' | '5xx' | 'network' | 'timeout' {
  if (outcome === 'network' || outcome === 'timeout' || outcome === '429') return outcome;
  const status = Number(outcome);
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return '2xx';
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

export function timeline(points: number, resumed: boolean): string {
  const note = resumed ? ' This session only (the run was resumed).' : '';
  return `<section id="timeline"><h2>Over time</h2>
<div id="gb-chart" class="chart" data-points="${points}"></div>
<p class="note">Rows written, failed rows and requests per second, and 429 answers (right axis), sampled about every second.${esc(note)}</p>
</section>`;
}

export function map(sample: MapSample, resumed: boolean): string {
  const shown = { ok: 0, failed: 0 };
  for (const f of sample.features) shown[f.status]++;
  const lines: string[] = [];
  for (const status of ['ok', 'failed'] as const) {
    const total = sample.withGeometry[status];
    if (total > shown[status])
      lines.push(
        `${num(shown[status])} of ${num(total)} ${status} records are shown, evenly sampled over the output.`,
      );
  }
  const without = sample.withoutGeometry;
  if (without.ok + without.failed > 0)
    lines.push(
      `Without a geometry, so not on the map: ${num(without.ok)} ok and ${num(without.failed)} failed records.`,
    );
  if (resumed) lines.push('This session only (the run was resumed).');
  const notes = lines.map((l) => `<p class="note map-note">${esc(l)}</p>`).join('');
  return `<section id="map"><h2>Map of the output</h2>
<div id="gb-map" class="map" data-features="${sample.features.length}"></div>
<p class="legend"><span class="dot ok"></span> ok (${num(shown.ok)}) <span class="dot failed"></span> failed (${num(shown.failed)}); click a shape for its row.</p>
${notes}
</section>`;
}

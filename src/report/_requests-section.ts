/**
 * Requests: what was sent against one request per item, what each saving spared, and the
 * client's attempts per interface. The client metrics are a loose record in the summary, read
 * defensively (an older or newer client may name things differently).
 */
import type { RunSummary } from '../output/summary.js';
import { esc, num, percent, plural } from './_html.js';
import type { CacheCounts } from './data.js';

export function requests(s: RunSummary, cache: CacheCounts | null | undefined): string {
  const q = s.requests;
  const hits = cache?.hits ?? 0;
  // Each item once: a second pass's requests carry items already counted (savedByBatching leaves
  // them out too), so they are not items of their own; an older summary has no such count.
  const firstPass = q.sent - (q.resent ?? 0);
  const naive = firstPass + q.savedByBatching + q.savedByDedup + q.savedByLocalAnswers + hits;
  const further = furtherRequests(s);
  const made = requestsMade(s);
  const savings: [string, number, string][] = [
    ['batching', q.savedByBatching, 'items that shared a request with others'],
    ['dedup', q.savedByDedup, "items answered by an identical item's request"],
    [
      'local answers',
      q.savedByLocalAnswers,
      'items the job answered without a request (e.g. the spatial index)',
    ],
  ];
  if (cache !== undefined && cache !== null) savings.push(['cache', hits, cacheWhat(s.cache?.requestsSaved)]);
  const saved = savings
    .map(
      ([label, n, what]) =>
        `<tr data-saved="${esc(label)}"><td>${esc(label)}</td><td class="n">${num(n)}</td><td class="n">${esc(percent(n, naive))}</td><td>${esc(what)}</td></tr>`,
    )
    .join('\n');
  return `<section id="requests"><h2>Requests</h2>
<p class="lead">${plural(made, 'request')} for ${plural(naive, 'item')}: one request per item would have cost ${num(naive)}; ${esc(percent(Math.max(0, naive - made), naive) || '0%')} saved.${furtherText(further)}${redoneText(s)} ${overHttp(q.http, made)} ${num(q.failed)} failed as a whole; at most ${num(q.maxInFlight)} in flight.</p>
<table class="saved"><thead><tr><th>saved by</th><th class="n">items</th><th class="n">of all items</th><th>what</th></tr></thead>
<tbody>
${saved}
</tbody></table>
${cacheProblem(s.cache?.problem)}${interfaces(s.client)}
</section>`;
}

/** The requests the section names: one per batch sent, and those a job asked within one. */
export function requestsMade(s: RunSummary): number {
  return s.requests.sent + furtherRequests(s);
}

/**
 * What made HTTP attempts beyond the requests made, as the client counted them, named: retries,
 * hedged second attempts, token requests, attempts asked again after a 401, attempts a stop cut
 * off. A resumed run's client counts are its last session's: its earlier sessions' causes are not
 * known, so the likeliest are named.
 */
export function attemptsBeyond(s: RunSummary): string[] {
  const client = record(s.client);
  const resumed = s.resume?.resumed === true;
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  let unauthorized = 0;
  let aborted = 0;
  for (const counts of Object.values(record(record(client.requests).byInterface))) {
    unauthorized += count(record(counts)['401']);
    aborted += count(record(counts).aborted);
  }
  const causes: [string, number][] = [
    ['retries', count(record(client.retries).total)],
    ['hedged second attempts', count(record(client.hedges).sent)],
    ['token requests', count(client.tokensFetched)],
    ['attempts asked again after a 401', unauthorized],
    ['attempts a stop cut off', aborted],
  ];
  // The earlier sessions' causes unknown, the likeliest are named, not every one there is.
  if (resumed) return ['retries', 'token requests', 'attempts a stop cut off'];
  const named = causes.filter(([, n]) => n > 0).map(([cause]) => cause);
  return named.length > 0 ? named : ['retries', 'token requests'];
}

/**
 * HTTP requests that no retry, hedged second attempt, token request, attempt a stop cut off or
 * repeat after a 401 (a token that ran out) explains: requests a job made within one of its own (the summary's `sent` counts one per batch).
 * Boundaries asks once per level, and again for points an answer did not place; without this the
 * report gave retries as the cause of requests that none had made, and the saving as 86% where it
 * was 29%.
 */
function furtherRequests(s: RunSummary): number {
  // A resumed run's `http` and `sent` add up its sessions, its client metrics are this session's
  // alone: what the earlier sessions retried would be taken for requests the job asked.
  if (s.resume?.resumed === true) return 0;
  const client = record(s.client);
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  // Attempts a stop cut off, and those answered 401 and asked again with a fresh token
  // (autocomplete's token ran out): neither is a request of the job's own.
  let repeated = 0;
  for (const counts of Object.values(record(record(client.requests).byInterface)))
    repeated += count(record(counts).aborted) + count(record(counts)['401']);
  const explained =
    count(record(client.retries).total) +
    count(record(client.hedges).sent) +
    count(client.tokensFetched) +
    repeated;
  return Math.max(0, s.requests.http - s.requests.sent - explained);
}

/**
 * A resumed run adds up its sessions' counts, and the rows a stop caught read but not yet written
 * were answered by the session before it and again by the one after (from the cache, or asked
 * again): their items count twice. A resumed geocode run of 403 items said "for 405 items" with
 * no word of why.
 */
function redoneText(s: RunSummary): string {
  if (s.resume?.resumed !== true) return '';
  return ' Resumed: the rows read but not yet written when a session stopped were answered again by the next, so their items are counted in both.';
}

function furtherText(further: number): string {
  if (further === 0) return '';
  return ` ${num(further)} of those the job asked besides one per batch (boundaries asks once per level, and again for points an answer did not place; a search asks for further pages; a batch the service rejects is asked again in parts, down to the items it refuses, which the savings below do not take off).`;
}

/**
 * How the requests that went over HTTP compare with those sent, said in the direction they differ:
 * every attempt goes over HTTP (retries, hedged second attempts, token requests), and a request
 * refused at connect does not. One the job or the cache around the client answered without HTTP
 * (a trip of one stop, areas or a trip the cache holds) is not among those sent (the engine's
 * RequestTrace), so it no longer needs explaining here.
 */
function overHttp(http: number, sent: number): string {
  const reached = `${num(http)} reached the service over HTTP`;
  if (http > sent)
    return `${reached}: retries, hedged second attempts, token requests, attempts asked again after a 401 and attempts a stop cut off count there besides the requests above.`;
  if (http < sent)
    return `${reached}: fewer than the requests above, as a request that failed to connect never reached it.`;
  return `${reached}, each request once.`;
}

/**
 * What made the run go on without (part of) the cache: a damaged file, a full disk. Shown where
 * the savings are, as the closing line shows it: it is why the cache saved less than it should.
 */
function cacheProblem(problem: string | null | undefined): string {
  if (problem === null || problem === undefined) return '';
  return `<div class="stop" data-cache-problem><p>Request cache: ${esc(problem)}</p></div>\n`;
}

/**
 * The cache's hits are the items it answered wholly; the requests it answered in the service's
 * place (`requestsSaved`) are fewer where the job packs items into batches, and more where a
 * request makes several calls (boundaries asks once per level): a boundaries run whose cache
 * answered some level calls, but every call of none of its requests, has 0 items and requests.
 * Said as the closing line says it.
 */
function cacheWhat(requestsSaved: number | undefined): string {
  const what = 'items answered wholly from the request cache';
  return requestsSaved === undefined
    ? what
    : `${what}; it answered ${plural(requestsSaved, 'request')} instead of the service`;
}

/** The client's attempts per interface by outcome; the client metrics are read defensively. */
function interfaces(client: RunSummary['client']): string {
  const requests = record(client?.requests);
  const byInterface = record(requests.byInterface);
  const names = Object.keys(byInterface);
  if (names.length === 0) return '<p class="note">No request reached a service.</p>';
  const columns = ['2xx', '4xx', '429', '5xx', 'network', 'timeout', 'dropped'] as const;
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
        dropped: 0,
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

/** An outcome's column; `dropped` holds attempts without an answer by our choice: a hedge's loser, or one a stop cut off. */
function outcomeColumn(outcome: string): '2xx' | '4xx' | '429' | '5xx' | 'network' | 'timeout' | 'dropped' {
  if (outcome === 'network' || outcome === 'timeout' || outcome === '429') return outcome;
  const status = Number(outcome);
  if (!Number.isInteger(status)) return 'dropped';
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  return '2xx';
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

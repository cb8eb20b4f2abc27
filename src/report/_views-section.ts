/** The containers the page script draws the chart and the map into, with their notes. */
import { duration, esc, num, plural } from './_html.js';
import type { MapSample, TimelinePoint } from './data.js';

/**
 * The chart draws one rate per interval between two samples; with fewer than two intervals (a
 * run of a second or less: a sample at the start, one a second and one at the end) it would be a
 * lone dot, so the page says why there is none and the script leaves the box as it is.
 */
export function timeline(points: readonly TimelinePoint[], resumed: boolean): string {
  const session = resumed ? 'This session only (the run was resumed).' : '';
  const short = tooShort(points);
  if (short !== undefined)
    return `<section id="timeline"><h2>Over time</h2>
<div id="gb-chart" class="chart" data-points="${points.length}" data-chart="none"><p class="note">${esc(short)}</p></div>
${session === '' ? '' : `<p class="note">${esc(session)}</p>\n`}</section>`;
  return `<section id="timeline"><h2>Over time</h2>
<div id="gb-chart" class="chart" data-points="${points.length}"></div>
<p class="note">${esc(`Rows written, failed rows and HTTP attempts per second (retries and token requests included, so more than the requests counted under Requests when there were any), and 429 answers (right axis), sampled about every second. ${session}`.trim())}</p>
</section>`;
}

/** Why there is no chart, or undefined when there is one: intervals counted as the script counts them. */
function tooShort(points: readonly TimelinePoint[]): string | undefined {
  let intervals = 0;
  for (let i = 1; i < points.length; i++) if ((points[i]?.t ?? 0) > (points[i - 1]?.t ?? 0)) intervals++;
  if (intervals >= 2) return undefined;
  if (intervals === 0) return 'The run was too short for a chart: fewer than two samples of its counters.';
  const span = (points.at(-1)?.t ?? 0) - (points[0]?.t ?? 0);
  return `The run was too short for a chart: its counters were sampled over ${duration(span)}, which gives a single rate, not a line (a chart needs a run longer than a second).`;
}

export function map(sample: MapSample, resumed: boolean): string {
  const shown = { ok: 0, failed: 0 };
  for (const f of sample.features) shown[f.status]++;
  const lines: string[] = [];
  for (const status of ['ok', 'failed'] as const) {
    const total = sample.withGeometry[status];
    if (total > shown[status])
      lines.push(
        `${num(shown[status])} of ${plural(total, `${status} record`)} ${total === 1 ? 'is' : 'are'} shown, evenly sampled over the output.`,
      );
  }
  const without = sample.withoutGeometry;
  if (without.ok + without.failed > 0) {
    const counts = (['ok', 'failed'] as const)
      .filter((status) => without[status] > 0)
      .map((status) => plural(without[status], `${status} record`));
    lines.push(`Without a geometry, so not on the map: ${counts.join(' and ')}.`);
  }
  const off = sample.offTheGlobe ?? { ok: 0, failed: 0 };
  if (off.ok + off.failed > 0) {
    const counts = (['ok', 'failed'] as const)
      .filter((status) => off[status] > 0)
      .map((status) => plural(off[status], `${status} record`));
    lines.push(
      `With coordinates that are not longitude and latitude (metres of a projection?), so not on the map: ${counts.join(' and ')}.`,
    );
  }
  if (resumed) lines.push('This session only (the run was resumed).');
  const notes = lines.map((l) => `<p class="note map-note">${esc(l)}</p>`).join('');
  return `<section id="map"><h2>Map of the output</h2>
<div id="gb-map" class="map" data-features="${sample.features.length}"></div>
<p class="legend"><span class="dot ok"></span> ok (${num(shown.ok)}) <span class="dot failed"></span> failed (${num(shown.failed)}); click a shape for its row.</p>
${notes}
</section>`;
}

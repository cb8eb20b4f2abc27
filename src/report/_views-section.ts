/** The containers the page script draws the chart and the map into, with their notes. */
import { esc, num } from './_html.js';
import type { MapSample } from './data.js';

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

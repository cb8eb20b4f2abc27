/**
 * The HTML run report: one self-contained page (Leaflet, uPlot, styles, outlines and data inline)
 * that opens offline from disk. Pure: data in, HTML out. A Content-Security-Policy forbids every
 * load from elsewhere, so a page that tried one would say so in the browser console.
 */
import { loadReportAssets, type ReportAssets } from './_assets.js';
import { failures } from './_failures-section.js';
import { esc, inlineSafe, jsonForScript } from './_html.js';
import { requests } from './_requests-section.js';
import { header, rows } from './_run-section.js';
import { PAGE_SCRIPT } from './_script.js';
import { steps } from './_steps-section.js';
import { PAGE_STYLE } from './_style.js';
import { map, timeline } from './_views-section.js';
import type { MapSample, RunReportData } from './data.js';

/** The outline data's credits, as ATTRIBUTION.md asks; shown by Leaflet's attribution control. */
export const MAP_ATTRIBUTION =
  'Outlines © GeoBasis-DE / BKG 2021 (Daten verändert), ' +
  '<a href="https://www.govdata.de/dl-de/by-2-0">dl-de/by-2-0</a>';

const DATA_CREDITS =
  'Map outlines: © GeoBasis-DE / BKG 2021 (Daten verändert), Datenlizenz Deutschland – Namensnennung – 2.0. ' +
  'Emulator data: © GeoNames (geonames.org), CC BY 4.0 (modified).';

/** Germany, for a map with nothing to fit to. */
const GERMANY: [[number, number], [number, number]] = [
  [47.27, 5.87],
  [55.06, 15.04],
];

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:";

export function renderRunReport(data: RunReportData, assets: ReportAssets = loadReportAssets()): string {
  const s = data.summary;
  const resumed = s.resume.resumed;
  const clientData = {
    timeline: data.timeline,
    map: {
      features: featureCollection(data.map),
      outlines: assets.outlines,
      attribution: MAP_ATTRIBUTION,
      fallback: GERMANY,
    },
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="geobatch">
<title>${esc(`geobatch ${s.job}: ${s.ended}`)}</title>
<style>${inlineSafe(assets.leafletCss, 'style')}</style>
<style>${inlineSafe(assets.uplotCss, 'style')}</style>
<style>${PAGE_STYLE}</style>
</head>
<body>
<main>
${header(s)}
${rows(s)}
${steps(s)}
${failures(s, data.failures, resumed)}
${requests(s, data.cache)}
${timeline(data.timeline, resumed)}
${map(data.map, resumed)}
<footer><p>Written by geobatch at the end of the run; it opens without a network connection. ${esc(DATA_CREDITS)}</p></footer>
</main>
<script type="application/json" id="gb-data">${jsonForScript(clientData)}</script>
<script>${inlineSafe(assets.leafletJs, 'script')}</script>
<script>${inlineSafe(assets.uplotJs, 'script')}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/** Compact properties: r = row, s = status, c = code. Failed ones last, so they are drawn on top. */
function featureCollection(sample: MapSample) {
  const ordered = [
    ...sample.features.filter((f) => f.status === 'ok'),
    ...sample.features.filter((f) => f.status === 'failed'),
  ];
  return {
    type: 'FeatureCollection',
    features: ordered.map((f) => ({
      type: 'Feature',
      geometry: f.geometry,
      properties: { r: f.row, s: f.status, c: f.code },
    })),
  };
}

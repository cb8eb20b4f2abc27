/**
 * The run report in a real browser: Debian's Chromium, driven by playwright-core (no browser
 * download). Each page is opened from disk (file://) and must load with no console error, no page
 * error and no request leaving the file; the map must draw one shape per embedded geometry on the
 * outlines, and the chart its canvas. One page is the report a real run wrote beside its output,
 * whose map must show one shape per geometry of that output. Screenshots go to out/report/; `GOLDEN_REGEN=1` also
 * refreshes the README's, test/fixtures/report-screenshot.png.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { FeatureCollection, Geometry } from 'geojson';
import { pino } from 'pino';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFailureExamples } from '../../src/report/failures.js';
import { createFeatureSample } from '../../src/report/features.js';
import type { RunReportData } from '../../src/report/index.js';
import { renderRunReport } from '../../src/report/render.js';
import { runJobFile } from '../../src/run/job-file.js';
import { goldenBoundaries, issueOf, sampleSummary, sampleTimeline } from '../report/_sample.js';

const CHROMIUM = process.env.GEOBATCH_CHROMIUM ?? '/usr/bin/chromium';
const OUT = fileURLToPath(new URL('../../out/report/', import.meta.url));
const README_SCREENSHOT = fileURLToPath(new URL('../fixtures/report-screenshot.png', import.meta.url));
const REGEN = process.env.GOLDEN_REGEN === '1';
const TIMEOUT = 120_000;

let launched: Promise<Browser> | undefined;

/**
 * The browser, launched once. Without Chromium every test fails (rather than being skipped) with
 * the command that installs it.
 */
function browser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (or set GEOBATCH_CHROMIUM)`);
  launched ??= chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return launched;
}

beforeAll(() => {
  mkdirSync(OUT, { recursive: true });
});

afterAll(async () => {
  await (await launched)?.close();
});

interface Opened {
  readonly page: Page;
  /** Console errors, page errors and any request for something other than the file itself. */
  readonly problems: string[];
}

async function open(name: string, data: RunReportData): Promise<Opened> {
  const path = `${OUT}${name}.html`;
  writeFileSync(path, renderRunReport(data));
  return openFile(path);
}

/** Opens a report file as a user would, from disk. */
async function openFile(path: string): Promise<Opened> {
  const page = await (await browser()).newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  const url = pathToFileURL(path).href;
  page.on('request', (request) => {
    if (request.url() !== url) problems.push(`request: ${request.url()}`);
  });
  // A script error stops the page before it is ready: fail with the error, not a timeout.
  const failed = new Promise<never>((_, reject) => page.once('pageerror', reject));
  await page.goto(url);
  await Promise.race([page.waitForSelector('html[data-report-ready="true"]'), failed]);
  return { page, problems };
}

const count = (page: Page, selector: string) => page.locator(selector).count();

/** The layers Leaflet makes of a geometry: one per point of a MultiPoint, per member of a collection. */
function shapesOf(geometry: Geometry): number {
  if (geometry.type === 'MultiPoint') return geometry.coordinates.length;
  if (geometry.type === 'GeometryCollection') return geometry.geometries.reduce((n, g) => n + shapesOf(g), 0);
  return 1;
}

describe('the run report in Chromium', { timeout: TIMEOUT }, () => {
  it('shows a real run: the report the boundaries job wrote beside its output, one shape per output geometry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-system-report-'));
    try {
      const output = join(dir, 'places.geojson');
      const summary = await runJobFile(
        fileURLToPath(new URL('../../jobs/boundaries.yaml', import.meta.url)),
        {
          emulator: true,
          output,
          logger: pino({ level: 'silent' }),
        },
      );
      expect(summary).toMatchObject({ ended: 'complete_with_failures', runReport: `${output}.report.html` });
      const written = JSON.parse(readFileSync(output, 'utf8')) as FeatureCollection;
      const geometries = written.features.flatMap((f) => (f.geometry === null ? [] : [f.geometry]));
      const shapes = geometries.reduce((n, g) => n + shapesOf(g), 0);
      expect(shapes).toBeGreaterThan(500);
      const { page, problems } = await openFile(`${output}.report.html`);
      expect(problems).toEqual([]);
      expect(await count(page, '.leaflet-overlay-pane path.gb-feature')).toBe(shapes);
      expect(await page.getAttribute('html', 'data-map-layers')).toBe(String(shapes));
      const failedWithGeometry = written.features.filter(
        (f) => f.geometry !== null && f.properties?.geobatch_status === 'failed',
      ).length;
      expect(await count(page, '.leaflet-overlay-pane path.gb-failed')).toBe(failedWithGeometry);
      expect(await page.locator('h1 .job').textContent()).toBe('boundaries');
      // A run of a second or less gets a note instead of a one-point chart; a longer one its canvas.
      const chart = page.locator('#gb-chart');
      if ((await chart.getAttribute('data-chart')) === 'none')
        expect(await chart.textContent()).toMatch(/^The run was too short for a chart: /);
      else expect(await count(page, '#gb-chart canvas')).toBeGreaterThan(0);
      await page.screenshot({ path: `${OUT}real-run.png`, fullPage: true });
      await page.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows the boundaries sample: one shape per geometry on the outlines, the chart, no error', async () => {
    const data = goldenBoundaries();
    const { page, problems } = await open('boundaries', data);
    expect(problems).toEqual([]);
    expect(await count(page, '.leaflet-overlay-pane path.gb-feature')).toBe(data.map.features.length);
    expect(await count(page, '.leaflet-overlay-pane path.gb-failed')).toBe(1);
    expect(await page.getAttribute('html', 'data-map-layers')).toBe('601');
    expect(await count(page, '.leaflet-gb-base-pane path')).toBe(17); // Germany and its 16 states
    expect(await page.locator('.leaflet-control-attribution').textContent()).toContain(
      'Outlines © GeoBasis-DE / BKG 2021 (Daten verändert), dl-de/by-2-0',
    );
    const canvas = page.locator('#gb-chart canvas');
    expect(await canvas.count()).toBeGreaterThan(0);
    expect((await canvas.first().boundingBox())?.width).toBeGreaterThan(300);

    // The swapped point lies in the Indian Ocean: the view keeps Germany, the note offers the rest.
    const note = page.locator('.gb-outside');
    expect(await note.textContent()).toBe('1 shape outside this view (1 failed) show all');
    await page.screenshot({ path: `${OUT}boundaries.png`, fullPage: true });
    if (REGEN) copyFileSync(`${OUT}boundaries.png`, README_SCREENSHOT);
    await note.locator('a').click();
    // Browser code as text: the project's TypeScript knows Node, not the DOM.
    await page.waitForFunction(`(() => {
      const map = document.querySelector('#gb-map').getBoundingClientRect();
      const failed = document.querySelector('path.gb-failed').getBoundingClientRect();
      return failed.left > map.left && failed.right < map.right && failed.top > map.top && failed.bottom < map.bottom;
    })()`);
    await page.close();
  });

  it('draws every kind of geometry, keeps markup in row values as text, and tells a failed row on click', async () => {
    const hostile = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">';
    const geometries: [Geometry, 'ok' | 'failed'][] = [
      [{ type: 'Point', coordinates: [13.4, 52.52] }, 'ok'],
      [
        {
          type: 'MultiPoint',
          coordinates: [
            [11.58, 48.14],
            [9.99, 53.55],
            [6.96, 50.94],
          ],
        },
        'ok',
      ],
      [
        {
          type: 'LineString',
          coordinates: [
            [13.4, 52.52],
            [11.58, 48.14],
          ],
        },
        'ok',
      ],
      [
        {
          type: 'MultiLineString',
          coordinates: [
            [
              [8.68, 50.11],
              [8.4, 49.01],
            ],
            [
              [9.18, 48.78],
              [8.4, 49.01],
            ],
          ],
        },
        'ok',
      ],
      [
        {
          type: 'Polygon',
          coordinates: [
            [
              [10, 50],
              [11, 50],
              [11, 51],
              [10, 51],
              [10, 50],
            ],
          ],
        },
        'ok',
      ],
      [
        {
          type: 'MultiPolygon',
          coordinates: [
            [
              [
                [7, 53],
                [7.5, 53],
                [7.5, 53.5],
                [7, 53],
              ],
            ],
            [
              [
                [12, 47.8],
                [12.5, 47.8],
                [12.5, 48.2],
                [12, 47.8],
              ],
            ],
          ],
        },
        'failed',
      ],
      [
        {
          type: 'GeometryCollection',
          geometries: [
            { type: 'Point', coordinates: [12.37, 51.34] },
            {
              type: 'LineString',
              coordinates: [
                [12.37, 51.34],
                [13.74, 51.05],
              ],
            },
          ],
        },
        'ok',
      ],
      [{ type: 'Point', coordinates: [9.73, 52.37] }, 'failed'],
    ];
    const map = createFeatureSample();
    geometries.forEach(([geometry, status], i) => {
      map.add(geometry, status, i + 1, status === 'failed' ? 'OUTSIDE_COVERAGE' : null);
    });
    const failures = createFailureExamples();
    failures.add(
      issueOf({
        row: 8,
        line: 9,
        stage: 'response',
        code: 'OUTSIDE_COVERAGE',
        status: null,
        message: `no area covers ${hostile}`,
        fields: { name: hostile },
      }),
    );
    const { page, problems } = await open('geometries', {
      summary: sampleSummary((s) => {
        s.job = `boundaries ${hostile}`;
        s.rows.failedByCode = { OUTSIDE_COVERAGE: 2, [hostile]: 1 };
      }),
      timeline: sampleTimeline(),
      failures: failures.examples(),
      map: map.result(),
    });
    expect(problems).toEqual([]);
    const shapes = geometries.reduce((n, [geometry]) => n + shapesOf(geometry), 0);
    expect(shapes).toBe(11);
    expect(await count(page, '.leaflet-overlay-pane path.gb-feature')).toBe(shapes);
    expect(await page.getAttribute('html', 'data-map-layers')).toBe(String(shapes));
    expect(await count(page, '.leaflet-overlay-pane path.gb-failed')).toBe(2);
    expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
    expect(await page.locator('h1 .job').textContent()).toBe(`boundaries ${hostile}`);
    expect(await page.locator('tr.example .v').first().textContent()).toBe(hostile);
    await page.locator('path.gb-failed').last().click({ force: true });
    expect(await page.locator('.leaflet-popup-content').textContent()).toBe(
      'Row 8: failed, OUTSIDE_COVERAGE',
    );
    await page.screenshot({ path: `${OUT}geometries.png`, fullPage: true });
    await page.close();
  });

  it('draws a sampled large output in full, and a run with nothing to map or chart without error', async () => {
    const large = createFeatureSample();
    for (let row = 1; row <= 200_000; row++) {
      const point: Geometry = {
        type: 'Point',
        coordinates: [6 + ((row * 7919) % 900) / 100, 47.5 + ((row * 104_729) % 700) / 100],
      };
      large.add(point, row % 1000 === 0 ? 'failed' : 'ok', row, row % 1000 === 0 ? 'NO_MATCH' : null);
    }
    const sample = large.result();
    expect(sample.features.length).toBeLessThanOrEqual(5000);
    const big = await open('large', { ...goldenBoundaries(), map: sample });
    expect(big.problems).toEqual([]);
    expect(await count(big.page, '.leaflet-overlay-pane path.gb-feature')).toBe(sample.features.length);
    expect(await count(big.page, '.leaflet-overlay-pane path.gb-failed')).toBe(200);
    expect(await big.page.locator('.map-note').first().textContent()).toMatch(
      /^[\d,]+ of 199,800 ok records are shown/,
    );
    await big.page.close();

    const empty = await open('empty', {
      summary: sampleSummary(),
      timeline: [{ t: 0, rows: 0, failed: 0, requests: 0, throttled: 0 }],
      failures: [],
      map: { features: [], withGeometry: { ok: 0, failed: 0 }, withoutGeometry: { ok: 603, failed: 0 } },
    });
    expect(empty.problems).toEqual([]);
    expect(await count(empty.page, '.leaflet-overlay-pane path')).toBe(0);
    expect(await count(empty.page, '.leaflet-gb-base-pane path')).toBe(17);
    expect(await empty.page.locator('#gb-chart').textContent()).toBe(
      'The run was too short for a chart: fewer than two samples of its counters.',
    );
    await empty.page.close();
  });
});

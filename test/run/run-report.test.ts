/**
 * The HTML run report as a run writes it: beside the summary of the first output, after the
 * summary (which it shows), with the map, failure examples and timeline of the session; none when
 * turned off or for a dry run (standard output: test/cli/run-report.test.ts); a report that cannot
 * be written is logged and changes nothing else.
 */
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TimelinePoint } from '../../src/report/index.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { fakeJob } from '../engine/_fake.js';
import { geojsonInput, memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';

const ROWS = 40;

function specOf(dir: string, spec: Partial<RunSpec> = {}) {
  const { logger, lines } = memoryLogger();
  write(join(dir, 'in.geojson'), geojsonInput(ROWS, new Set([3])));
  const full: RunSpec = {
    job: fakeJob({ omit: (key) => key === 'k9' }),
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.geojson'), format: 'geojson' },
    output: { path: join(dir, 'out.csv'), format: 'csv' },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger,
    progress: { enabled: false },
    ...spec,
  };
  return { spec: full, lines };
}

interface PageData {
  readonly timeline: TimelinePoint[];
  readonly map: { features: { features: { properties: { r: number; s: string } }[] } };
}

/** The data the page draws from, as embedded in it. */
function pageData(html: string): PageData {
  const json = /<script type="application\/json" id="gb-data">(.*?)<\/script>/s.exec(html)?.[1];
  if (json === undefined) throw new Error('no data in the page');
  return JSON.parse(json) as PageData;
}

describe('runJob: the HTML run report', () => {
  it('is written beside the summary, after it, showing this run: summary, failures, map and timeline', async () => {
    const dir = tempDir();
    const { spec } = specOf(dir);
    const summary = await runJob(spec);
    const path = join(dir, 'out.csv.report.html');
    expect(summary.runReport).toBe(path);
    expect(JSON.parse(read(join(dir, 'out.csv.summary.json'))).runReport).toBe(path);
    const html = read(path);
    expect(html).toContain('<title>geobatch fake: complete_with_failures</title>');
    // One shape per output record with a geometry: every row but the malformed one (no geometry).
    const features = pageData(html).map.features.features;
    expect(features).toHaveLength(ROWS - 1);
    expect(features.filter((f) => f.properties.s === 'failed').map((f) => f.properties.r)).toEqual([10]);
    // The timeline starts with the session and ends with every row written.
    const timeline = pageData(html).timeline;
    expect(timeline.length).toBeGreaterThanOrEqual(2);
    expect(timeline.at(-1)).toMatchObject({ rows: ROWS, failed: 2 });
    expect(html).toContain('INPUT_MALFORMED');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('is built after one full collection where gc is exposed (the CLI), once the rows are written', async () => {
    const dir = tempDir();
    const path = join(dir, 'out.csv.report.html');
    const seen: { output: boolean; report: boolean }[] = [];
    const holder = globalThis as { gc?: () => void };
    const before = holder.gc;
    holder.gc = () => seen.push({ output: existsSync(join(dir, 'out.csv')), report: existsSync(path) });
    try {
      await runJob(specOf(dir).spec);
    } finally {
      holder.gc = before;
    }
    // Once, when the output is in place and the report not yet written.
    expect(seen).toEqual([{ output: true, report: false }]);
    expect(existsSync(path)).toBe(true);
  });

  it('goes where the spec says, and is not written when turned off or for a dry run', async () => {
    const moved = tempDir();
    const elsewhere = join(moved, 'reports', 'nightly.html');
    expect((await runJob(specOf(moved, { runReport: elsewhere }).spec)).runReport).toBe(elsewhere);
    expect(existsSync(elsewhere)).toBe(true);
    expect(existsSync(join(moved, 'out.csv.report.html'))).toBe(false);

    const off = tempDir();
    expect((await runJob(specOf(off, { runReport: null }).spec)).runReport).toBeNull();
    expect(readdirSync(off).sort()).toEqual(['errors.csv', 'in.geojson', 'out.csv', 'out.csv.summary.json']);

    const dry = tempDir();
    expect((await runJob(specOf(dry, { dryRun: true }).spec)).runReport).toBeNull();
    expect(readdirSync(dry)).toEqual(['in.geojson']);
  });

  it('is logged, not fatal, when it cannot be written: the run ends as it would, the summary says there is none', async () => {
    const dir = tempDir();
    const { spec, lines } = specOf(dir);
    symlinkSync('/dev/full', join(dir, 'out.csv.report.html.tmp'));
    const summary = await runJob(spec);
    expect(summary).toMatchObject({ ended: 'complete_with_failures', exitCode: 3, runReport: null });
    expect(existsSync(join(dir, 'out.csv'))).toBe(true);
    const logged = lines().find((line) => line.msg === 'The run report could not be written');
    expect(logged).toMatchObject({ level: 50, err: { code: 'IO_ERROR' } });
    expect(existsSync(join(dir, 'out.csv.report.html'))).toBe(false);
    expect(existsSync(join(dir, 'out.csv.report.html.tmp'))).toBe(false);
  });
});

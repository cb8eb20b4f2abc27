import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderRunReport } from '../../src/report/render.js';
import { runReportPath, writeRunReport } from '../../src/report/write.js';
import { goldenBoundaries } from './_sample.js';

describe('writeRunReport', () => {
  it('is written beside the output as <output>.report.html', () => {
    expect(runReportPath('out/places.boundaries.geojson')).toBe('out/places.boundaries.geojson.report.html');
  });

  it('replaces an old report whole, leaving no temporary file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'geobatch-report-'));
    const path = join(dir, 'x.csv.report.html');
    writeFileSync(path, 'an older report');
    const data = goldenBoundaries();
    await writeRunReport(path, data);
    expect(readFileSync(path, 'utf8')).toBe(renderRunReport(data));
    expect(readdirSync(dir)).toEqual(['x.csv.report.html']);
  });

  it('fails with IO_ERROR naming the file when it cannot be written', async () => {
    const path = join(tmpdir(), 'geobatch-no-such-dir', 'deeper', 'x.report.html');
    await expect(writeRunReport(path, goldenBoundaries())).rejects.toMatchObject({
      code: 'IO_ERROR',
      context: { file: path, hint: 'Check free disk space and permissions; the output itself is complete.' },
    });
  });

  it('does not call the output complete when the run had stopped (a full disk stops both)', async () => {
    const path = join(tmpdir(), 'geobatch-no-such-dir', 'deeper', 'x.report.html');
    const data = goldenBoundaries();
    const stopped = {
      ...data,
      summary: { ...data.summary, ended: 'stopped' as const, exitCode: 1 as const },
    };
    await expect(writeRunReport(path, stopped)).rejects.toMatchObject({
      code: 'IO_ERROR',
      context: {
        file: path,
        hint: 'Check free disk space and permissions; the run had stopped before it, so its output is not complete.',
      },
    });
  });
});

import { join } from 'node:path';
import { check } from '@placemarkio/check-geojson';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/errors.js';
import { createMatrixJob } from '../../src/jobs/matrix.js';
import type { OutputFormat } from '../../src/output/writer.js';
import { runJob } from '../../src/run/run.js';
import type { LonLat } from '../../src/types.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';

const destinations = Array.from({ length: 5 }, (_, i) => ({ id: `D${i}`, point: [9 + i, 50] as LonLat }));

/** Routing that gives up (503 after retries) on Berlin's tile holding D2 and D3; everything else answers. */
const client = {
  routing: {
    matrix: async (origin: LonLat, to: readonly LonLat[]) => {
      if (origin[0] === 13.4 && to.some((d) => d[0] === 11))
        throw new ServiceError('RETRIES_EXHAUSTED', 'routing: gave up after 6 attempts (503)', {
          status: 503,
          attempts: 6,
        });
      return to.map((d) => ({ distance_m: Math.round(1000 * Math.abs(d[0] - origin[0])), duration_s: 60 }));
    },
  },
};

async function run(format: OutputFormat) {
  const dir = tempDir();
  write(join(dir, 'depots.csv'), 'depot,lon,lat\nBerlin,13.4,52.5\nHamburg,10.0,53.55\n');
  const output = join(dir, `out.${format}`);
  const summary = await runJob({
    job: createMatrixJob(client, { mapping: {}, destinations, tileSize: 2, lingerMs: 0 }),
    jobFingerprint: 'matrix:test',
    input: { path: join(dir, 'depots.csv'), format: 'csv' },
    output: { path: output, format },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger: memoryLogger().logger,
    progress: { enabled: false },
  });
  return { summary, output: read(output), report: read(join(dir, 'errors.csv')) };
}

describe('matrix run with one failed tile', () => {
  it('writes every pair, fails only the failed tile, and reports the origin row once', async () => {
    const { summary, output, report } = await run('csv');
    const rows = (parse(output, { columns: true }) as Record<string, string>[]).map((r) =>
      [r.depot, r.destination_id, r.distance_m, r.geobatch_status, r.geobatch_error].join(' '),
    );
    expect(rows).toEqual([
      'Berlin D0 4400 ok ',
      'Berlin D1 3400 ok ',
      'Berlin D2  failed RETRIES_EXHAUSTED',
      'Berlin D3  failed RETRIES_EXHAUSTED',
      'Berlin D4 400 ok ',
      'Hamburg D0 1000 ok ',
      'Hamburg D1 0 ok ',
      'Hamburg D2 1000 ok ',
      'Hamburg D3 2000 ok ',
      'Hamburg D4 3000 ok ',
    ]);
    const reported = parse(report, { columns: true }) as Record<string, string>[];
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatchObject({
      geobatch_row: '1',
      geobatch_error: 'RETRIES_EXHAUSTED',
      geobatch_http_status: '503',
      // Both passes' attempts: the tile was asked again after the first gave up.
      geobatch_message:
        '2 of 5 destinations failed (D2, D3): routing: gave up after 12 attempts (two passes) (503)',
    });
    expect(summary.rows).toMatchObject({ read: 2, ok: 1, failed: 1 });
    expect(summary.output?.records).toBe(10);
    expect(summary.exitCode).toBe(3);
  });

  it('writes valid GeoJSON with one LineString per pair, failed pairs included', async () => {
    const { output } = await run('geojson');
    const features = (check(output) as GeoJSON.FeatureCollection).features;
    expect(features).toHaveLength(10);
    expect(features[2]).toMatchObject({
      geometry: {
        type: 'LineString',
        coordinates: [
          [13.4, 52.5],
          [11, 50],
        ],
      },
      properties: {
        destination_id: 'D2',
        distance_m: null,
        geobatch_status: 'failed',
        geobatch_error: 'RETRIES_EXHAUSTED',
      },
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { ItemResult } from '../../src/engine/job.js';
import { ServiceError } from '../../src/errors.js';
import { pointKey } from '../../src/jobs/_fields.js';
import { createElevationJob } from '../../src/jobs/elevation.js';
import type { LonLat } from '../../src/types.js';
import { row, signal } from './_rows.js';

/** A service that rejects any request containing one of the poisoned points, as a 400 would. */
function rejectingClient(poisoned: readonly LonLat[]) {
  const bad = new Set(poisoned.map(pointKey));
  const requests: number[] = [];
  return {
    requests,
    elevation: {
      points: async (points: readonly LonLat[]) => {
        requests.push(points.length);
        if (points.some((p) => bad.has(pointKey(p)))) {
          throw new ServiceError('HTTP_STATUS', 'elevation answered 400', {
            status: 400,
            attempts: 1,
            service: 'elevation',
          });
        }
        return points.map(([lon]) => (lon > 100 ? null : Math.round(lon * 10)));
      },
    },
  };
}

const points = (n: number): LonLat[] => Array.from({ length: n }, (_, i) => [10 + i / 1000, 50] as LonLat);

describe('elevation job', () => {
  it('packs at most 500 points a request even when configured higher', () => {
    const job = createElevationJob(rejectingClient([]), { mapping: {}, batchSize: 900 });
    expect(job.batching?.maxItems).toBe(500);
  });

  it('splits a rejected chunk in halves until only the offending points fail', async () => {
    const chunk = points(500);
    const poisoned = [chunk[17] as LonLat, chunk[401] as LonLat];
    const client = rejectingClient(poisoned);
    const job = createElevationJob(client, { mapping: {} });
    const results = await job.execute(chunk, signal);
    const failed = chunk.filter((p) => !(results.get(pointKey(p)) as ItemResult<number | null>).ok);
    expect(failed).toEqual(poisoned);
    expect(results.get(pointKey(poisoned[0] as LonLat))).toEqual({
      ok: false,
      failure: {
        code: 'ITEM_REJECTED',
        stage: 'request',
        status: 400,
        attempts: 1,
        message: 'the service rejected this point: elevation answered 400',
      },
    });
    expect(results.size).toBe(500);
    // Two bad points: at most 1 + 2 * 2 * ceil(log2(500)) requests, far fewer than one per point.
    expect(client.requests.length).toBeLessThanOrEqual(1 + 4 * 9);
    expect(Math.max(...client.requests)).toBe(500);
  });

  it('lets errors other than a 4xx rejection stop the batch as a whole', async () => {
    const client = {
      elevation: {
        points: async () => {
          throw new ServiceError('RETRIES_EXHAUSTED', 'gave up', { status: 503, attempts: 6 });
        },
      },
    };
    const job = createElevationJob(client, { mapping: {} });
    await expect(job.execute(points(3), signal)).rejects.toMatchObject({ code: 'RETRIES_EXHAUSTED' });
  });

  it('writes no data as an empty cell and a flag, never 0', () => {
    const job = createElevationJob(rejectingClient([]), { mapping: {} });
    const r = row({ lon: '120', lat: '50' });
    expect(job.render(r, [{ ok: true, value: null }])).toMatchObject({
      ok: true,
      records: [{ columns: { elevation_m: null, elevation_nodata: true } }],
    });
    expect(job.render(r, [{ ok: true, value: 0 }])).toMatchObject({
      ok: true,
      records: [{ columns: { elevation_m: 0, elevation_nodata: false } }],
    });
  });
});

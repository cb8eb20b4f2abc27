import { describe, expect, it } from 'vitest';
import type { ItemResult } from '../../src/engine/job.js';
import type { MatrixCell } from '../../src/jobs/_ports.js';
import { createMatrixJob, type PairItem } from '../../src/jobs/matrix.js';
import type { LonLat } from '../../src/types.js';
import { row, signal } from './_rows.js';

// Distance = 1000 x |dx| + |dy| (in degrees), so every cell is recognisable.
const client = {
  requests: [] as { origin: LonLat; count: number }[],
  routing: {
    matrix: async (origin: LonLat, destinations: readonly LonLat[]) => {
      client.requests.push({ origin, count: destinations.length });
      return destinations.map((d) => ({
        distance_m: Math.round(1000 * Math.abs(d[0] - origin[0]) + Math.abs(d[1] - origin[1])),
        duration_s: 1,
      }));
    },
  },
};

const destinations = Array.from({ length: 5 }, (_, i) => ({ id: `D${i}`, point: [9 + i, 50] as LonLat }));

describe('matrix job', () => {
  it('plans one item per destination in cross mode, grouped by origin and tiled', () => {
    const job = createMatrixJob(client, { mapping: {}, destinations, tileSize: 2 });
    const items = job.plan(row({ lon: '8', lat: '50' })) as PairItem[];
    expect(items).toHaveLength(5);
    expect(new Set(items.map((i) => job.batching?.group?.(i)))).toEqual(new Set(['8.000000,50.000000']));
    expect(job.batching?.maxItems).toBe(2);
  });

  it('stitches tiled answers back into one long-form record per destination, in order', async () => {
    const job = createMatrixJob(client, { mapping: {}, destinations, tileSize: 2 });
    const r = row({ lon: '8', lat: '50' });
    const items = job.plan(r) as PairItem[];
    const results = new Map<string, ItemResult<MatrixCell>>();
    for (let i = 0; i < items.length; i += 2) {
      for (const [k, v] of await job.execute(items.slice(i, i + 2), signal)) results.set(k, v);
    }
    const rendered = job.render(
      r,
      items.map((item) => results.get(job.key(item)) as ItemResult<MatrixCell>),
    );
    if (!rendered.ok) throw new Error('failed');
    expect(rendered.records.map((x) => [x.columns.destination_id, x.columns.distance_m])).toEqual([
      ['D0', 1000],
      ['D1', 2000],
      ['D2', 3000],
      ['D3', 4000],
      ['D4', 5000],
    ]);
    expect(rendered.records[0]?.geometry).toEqual({
      type: 'LineString',
      coordinates: [
        [8, 50],
        [9, 50],
      ],
    });
  });

  it('reads origin and destination columns in pairs mode', () => {
    const mapping = {
      originLon: { column: 'from_lon' },
      originLat: { column: 'from_lat' },
      destinationLon: { column: 'to_lon' },
      destinationLat: { column: 'to_lat' },
    };
    const job = createMatrixJob(client, { mapping });
    expect(job.plan(row({ from_lon: '8', from_lat: '49', to_lon: '9', to_lat: '50' }))).toEqual([
      { origin: [8, 49], destination: [9, 50] },
    ]);
    expect(job.plan(row({ from_lon: '8', from_lat: '49', to_lon: '', to_lat: '50' }))).toMatchObject({
      code: 'FIELD_MISSING',
      field: 'to_lon',
    });
    expect(job.columns).toEqual(['distance_m', 'duration_s']);
  });
});

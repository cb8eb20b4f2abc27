import type { Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import type { AreaPointBody } from '../../src/contract/index.js';
import type { ItemResult } from '../../src/engine/job.js';
import { coveringArea } from '../../src/jobs/_area-index.js';
import type { AreaFeature } from '../../src/jobs/_ports.js';
import { type BoundaryItem, createBoundariesJob } from '../../src/jobs/boundaries.js';
import { row, signal } from './_rows.js';

// A 4 x 1 degree strip of level-6 squares and one level-4 rectangle over them.
const squares: AreaFeature[] = [0, 1, 2, 3].map((i) => ({
  key: `0${i}`,
  name: `district ${i}`,
  level: 6,
  geometry: box(8 + i, 49, 9 + i, 50),
  isoCountry: 'DE',
  properties: {},
}));
const state: AreaFeature = {
  key: '08',
  name: 'state',
  level: 4,
  geometry: box(8, 49, 12, 50),
  isoCountry: 'DE',
  properties: {},
};

function box(x0: number, y0: number, x1: number, y1: number): Polygon {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [x0, y0],
        [x1, y0],
        [x1, y1],
        [x0, y1],
        [x0, y0],
      ],
    ],
  };
}

/** A fake area service: POST returns every area covering any point; GET the covering one. */
function service() {
  const all = [...squares, state];
  const calls = { post: 0, get: 0 };
  const covering = (level: number, lon: number, lat: number) =>
    all.filter((a) => a.level === level && coveringArea([lon, lat], [a]) !== undefined);
  return {
    calls,
    area: {
      points: async (body: AreaPointBody) => {
        calls.post++;
        const found = new Map<string, AreaFeature>();
        for (const p of body.points)
          for (const a of covering(body.level, p.longitude, p.latitude)) found.set(a.key, a);
        return { features: [...found.values()], bbox: null };
      },
      point: async (q: { level: number; latitude: number; longitude: number }) => {
        calls.get++;
        return { features: covering(q.level, q.longitude, q.latitude), bbox: null };
      },
    },
  };
}

async function runAll(job: ReturnType<typeof createBoundariesJob>, inputs: { lon: string; lat: string }[]) {
  const rendered = [];
  for (const input of inputs) {
    const r = row(input);
    const items = job.plan(r) as BoundaryItem[];
    const results: ItemResult<AreaFeature>[] = [];
    for (const item of items) {
      const local = job.resolveLocally?.(item);
      if (local !== undefined) {
        results.push({ ok: true, value: local });
        continue;
      }
      const answer = await job.execute([item], signal);
      results.push(answer.get(job.key(item)) as ItemResult<AreaFeature>);
    }
    rendered.push(job.render(r, results));
  }
  return rendered;
}

const inputs = [
  { lon: '8.5', lat: '49.5' },
  { lon: '8.6', lat: '49.4' },
  { lon: '9', lat: '49.5' }, // on the border between 00 and 01
  { lon: '11.2', lat: '49.9' },
  { lon: '10.5', lat: '49.1' },
  { lon: '13', lat: '49.5' }, // outside every area
];

describe('boundaries job', () => {
  it('gives the same answers with the spatial index as with one request per row, for fewer requests', async () => {
    const indexed = service();
    const perRow = service();
    const a = await runAll(createBoundariesJob(indexed, { mapping: {} }), inputs);
    const b = await runAll(createBoundariesJob(perRow, { mapping: {}, spatialIndex: false }), inputs);
    expect(a).toEqual(b);
    expect(perRow.calls).toEqual({ post: 0, get: inputs.length * 2 });
    expect(indexed.calls.get).toBe(0);
    expect(indexed.calls.post).toBeLessThan(perRow.calls.get);
  });

  it('writes name, key and level per requested level, border points by the lowest key', async () => {
    const [, , border] = await runAll(
      createBoundariesJob(service(), { mapping: {}, levels: [6, 4] }),
      inputs,
    );
    expect(border).toMatchObject({
      ok: true,
      records: [
        {
          columns: {
            admin4_name: 'state',
            admin4_key: '08',
            admin4_level: 4,
            admin6_name: 'district 0',
            admin6_key: '00',
            admin6_level: 6,
          },
        },
      ],
    });
  });

  it('reports a point no area covers as OUTSIDE_COVERAGE', async () => {
    const outside = (await runAll(createBoundariesJob(service(), { mapping: {} }), inputs))[5];
    expect(outside).toMatchObject({ ok: false, failure: { code: 'OUTSIDE_COVERAGE', stage: 'response' } });
  });

  it('groups batches by level so one POST carries one level', () => {
    const job = createBoundariesJob(service(), { mapping: {}, levels: [4, 6] });
    const items = job.plan(row({ lon: '8.5', lat: '49.5' })) as BoundaryItem[];
    expect(items.map((i) => job.batching?.group?.(i))).toEqual(['4', '6']);
  });
});

import type { Polygon } from 'geojson';
import { describe, expect, it } from 'vitest';
import type { AreaPointBody } from '../../src/contract/index.js';
import { createCounters } from '../../src/engine/counters.js';
import { processRows } from '../../src/engine/engine.js';
import { coveringArea } from '../../src/jobs/_area-index.js';
import type { AreaFeature } from '../../src/jobs/_ports.js';
import { type BoundariesJobOptions, createBoundariesJob } from '../../src/jobs/boundaries.js';
import type { Outcome, ReadItem } from '../../src/types.js';
import { row } from './_rows.js';

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

const area = (key: string, level: number, geometry: Polygon): AreaFeature => ({
  key,
  name: `area ${key}`,
  level,
  geometry,
  isoCountry: 'DE',
  properties: {},
});

// Two states side by side (x 8..10 and 10..12, y 49..50), two districts in each, one country.
// District keys nest in state keys the ARS way; the border rule alone would already agree.
const NESTED: AreaFeature[] = [
  area('0', 2, box(8, 49, 12, 50)),
  area('01', 4, box(8, 49, 10, 50)),
  area('02', 4, box(10, 49, 12, 50)),
  area('01001', 6, box(8, 49, 9, 50)),
  area('01002', 6, box(9, 49, 10, 50)),
  area('02001', 6, box(10, 49, 11, 50)),
  area('02002', 6, box(11, 49, 12, 50)),
];

/** A fake area service over `areas`: POST returns each covering area once; GET the covering ones. */
function service(areas: readonly AreaFeature[]) {
  const calls = { post: [] as { level: number; points: number }[], get: 0 };
  const covering = (level: number, lon: number, lat: number) => {
    const winner = coveringArea(
      [lon, lat],
      areas.filter((a) => a.level === level),
    );
    return winner === undefined ? [] : [winner];
  };
  return {
    calls,
    area: {
      points: async (body: AreaPointBody) => {
        calls.post.push({ level: body.level, points: body.points.length });
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

/** Runs rows through the real engine (batching, serial groups, local answers) and collects outcomes. */
async function runRows(
  areas: readonly AreaFeature[],
  points: readonly (readonly [number, number])[],
  options: Partial<BoundariesJobOptions> = {},
) {
  const fake = service(areas);
  const job = createBoundariesJob(fake, { mapping: {}, lingerMs: 0, ...options });
  async function* input(): AsyncGenerator<ReadItem> {
    for (const [lon, lat] of points) yield row({ lon: String(lon), lat: String(lat) });
  }
  const counters = createCounters();
  const outcomes: Outcome[] = [];
  for await (const outcome of processRows(input(), job, { counters, window: 64 })) outcomes.push(outcome);
  return { outcomes, calls: fake.calls, counters, job };
}

const columns = (outcome: Outcome | undefined) =>
  outcome?.status === 'ok' ? outcome.records[0]?.columns : { failed: outcome?.issue.code };

describe('boundaries job', () => {
  it('writes name, key and level per requested level', async () => {
    const { outcomes } = await runRows(NESTED, [[8.5, 49.5]], { levels: [6, 4] });
    expect(columns(outcomes[0])).toEqual({
      admin4_name: 'area 01',
      admin4_key: '01',
      admin4_level: 4,
      admin6_name: 'area 01001',
      admin6_key: '01001',
      admin6_level: 6,
      admin_missing_levels: null,
    });
  });

  it('gives the same answers with the spatial index as with one GET per row and level, for fewer requests', async () => {
    const points = [
      [8.5, 49.5],
      [8.6, 49.4],
      [9, 49.5],
      [10, 49.5],
      [11.2, 49.9],
      [10.5, 49.1],
      [13, 49.5],
    ] as const;
    const indexed = await runRows(NESTED, points, { levels: [2, 4, 6] });
    const perRow = await runRows(NESTED, points, { levels: [2, 4, 6], spatialIndex: false });
    expect(indexed.outcomes.map(columns)).toEqual(perRow.outcomes.map(columns));
    expect(perRow.calls.get).toBe(points.length * 3);
    expect(indexed.calls.get).toBe(0);
    expect(indexed.calls.post.length).toBeLessThan(perRow.calls.get);
  });

  it('gives a point on a state border the state of its district, even when the index knew only the other state', async () => {
    // The first point teaches the index state 02; the second sits on the 01/02 border, where the
    // border rule picks district 01002. Before, the index answered state 02 from memory.
    const { outcomes } = await runRows(
      NESTED,
      [
        [11.5, 49.5],
        [10, 49.5],
      ],
      { batchSize: 1 },
    );
    expect(columns(outcomes[1])).toMatchObject({ admin4_key: '01', admin6_key: '01002' });
  });

  it('takes the coarser levels from the area that contains the finest one, not from key spelling', async () => {
    // Keys that do not nest: at the border vertex the lowest district key ('A2') lies in state '02',
    // while the lowest state key is '01'. The district decides; its state follows.
    const areas = [
      area('01', 4, box(8, 49, 10, 50)),
      area('02', 4, box(10, 49, 12, 50)),
      area('Z1', 6, box(8, 49, 10, 50)),
      area('A2', 6, box(10, 49, 12, 50)),
    ];
    for (const spatialIndex of [true, false]) {
      const { outcomes } = await runRows(areas, [[10, 49.5]], { spatialIndex });
      expect(columns(outcomes[0])).toMatchObject({ admin4_key: '02', admin6_key: 'A2' });
    }
  });

  it('keeps the levels found when one level has no area, leaves its columns empty and names it', async () => {
    const { outcomes } = await runRows(NESTED, [[8.5, 49.5]], { levels: [2, 4, 5, 6] });
    expect(outcomes[0]?.status).toBe('ok');
    expect(columns(outcomes[0])).toMatchObject({
      admin2_key: '0',
      admin4_key: '01',
      admin5_name: null,
      admin5_key: null,
      admin5_level: null,
      admin6_key: '01001',
      admin_missing_levels: '5',
    });
  });

  it('fails a row with a missing level when asked to, naming the level and what was found', async () => {
    const { outcomes, job } = await runRows(NESTED, [[8.5, 49.5]], {
      levels: [4, 5, 6],
      onMissingLevel: 'fail',
    });
    expect(outcomes[0]).toMatchObject({
      status: 'failed',
      issue: {
        code: 'OUTSIDE_COVERAGE',
        stage: 'response',
        message: 'no level-5 area covers 8.5, 49.5 (found: level 4, 6)',
      },
    });
    expect(job.columns).not.toContain('admin_missing_levels');
  });

  it('keeps a coarser level when the finest has no area at the point', async () => {
    const areas = NESTED.filter((a) => a.key !== '02002');
    const { outcomes } = await runRows(areas, [[11.5, 49.5]]);
    expect(columns(outcomes[0])).toMatchObject({
      admin4_key: '02',
      admin6_key: null,
      admin_missing_levels: '6',
    });
  });

  it('fails a point no level covers as OUTSIDE_COVERAGE, with a hint when it looks swapped', async () => {
    const { outcomes } = await runRows(NESTED, [
      [13, 49.5],
      [49.5, 8.5],
    ]);
    expect(outcomes[0]).toMatchObject({
      status: 'failed',
      issue: { code: 'OUTSIDE_COVERAGE', message: 'no level-4/6 area covers 13, 49.5' },
    });
    expect(outcomes[1]).toMatchObject({ status: 'failed', issue: { code: 'OUTSIDE_COVERAGE' } });
    expect(outcomes[1]?.status === 'failed' && outcomes[1].issue.message).toContain(
      'longitude and latitude swapped? (49.5, 8.5) lies outside Germany, (8.5, 49.5) inside',
    );
  });

  it("names the job's countries when none of their areas covers a point: the filter, not the service", async () => {
    const { outcomes } = await runRows(NESTED, [[13, 49.5]], { countries: ['AT', 'CH'] });
    expect(outcomes[0]).toMatchObject({
      status: 'failed',
      issue: {
        code: 'OUTSIDE_COVERAGE',
        message: 'no level-4/6 area covers 13, 49.5 among the areas of AT, CH (options.countries)',
      },
    });
  });

  it('answers later points inside known areas without a request', async () => {
    const points = Array.from({ length: 40 }, (_, i) => [8.05 + (i % 4) + 0.01 * i, 49.5] as const);
    const { calls, counters } = await runRows(NESTED, points, { batchSize: 10 });
    expect(counters.localHits).toBe(30);
    // The first batch: one POST for the districts, one for their states; the rest is local.
    expect(calls.post).toEqual([
      { level: 6, points: 10 },
      { level: 4, points: 4 },
    ]);
  });
});

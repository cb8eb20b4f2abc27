/**
 * The four routing job files of jobs/, run as they are on other inputs with the same columns (other
 * places, other groups): their answers must follow from the inputs, not from the samples. Expected
 * values are worked out here from the emulator's documented model (great circle x detour).
 */
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceMetres } from '../../src/client/coords.js';
import { emulatorEndpoints, loadJobFile } from '../../src/config/load.js';
import { applyOverrides } from '../../src/config/overrides.js';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { assemble } from '../../src/run/assemble.js';
import { type RunSummary, runJob } from '../../src/run/run.js';
import type { LonLat } from '../../src/types.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';

const JOBS = new URL('../../jobs/', import.meta.url).pathname;
let emulator: EmulatorHandle;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(async () => {
  await emulator.close();
});

/** Runs jobs/<kind>.yaml on `csv` against the emulator; the output's records and the summary. */
async function runOn(
  kind: string,
  csv: string,
): Promise<{ rows: Record<string, string>[]; summary: RunSummary }> {
  const dir = tempDir();
  const input = write(join(dir, 'in.csv'), csv);
  const output = join(dir, 'out.csv');
  const loaded = await loadJobFile(join(JOBS, `${kind}.yaml`));
  const service = { endpoints: emulatorEndpoints(emulator.urls.origin), credentials: emulator.credentials };
  const config = applyOverrides(loaded, { service, input, output });
  const { spec, client } = await assemble(config, { logger: memoryLogger().logger, progress: false });
  try {
    const summary = await runJob(spec);
    return { rows: parse(read(output), { columns: true }) as Record<string, string>[], summary };
  } finally {
    await client.close();
  }
}

const lines = (header: string, rows: readonly (readonly (string | number)[])[]) =>
  `${[header, ...rows.map((r) => r.join(','))].join('\n')}\n`;
const FAST = { detour: 1.3, speed: 25 };

describe('the routing job files on inputs other than their samples', () => {
  it('route: each distance is the FAST model’s through every via point', async () => {
    const jobs: [string, LonLat, LonLat, LonLat | null][] = [
      ['a', [6.9603, 50.9375], [7.4653, 51.5136], null],
      ['b', [11.5755, 48.1374], [10.8978, 48.3705], [11.4247, 48.7665]],
      ['c', [6.9603, 50.9375], [7.4653, 51.5136], null],
    ];
    const csv = lines(
      'job_id,from_name,from_lat,from_lon,to_name,to_lat,to_lon,via,depart',
      jobs.map(([id, from, to, via]) => [
        id,
        'x',
        from[1],
        from[0],
        'y',
        to[1],
        to[0],
        via === null ? '' : `"${via[0]},${via[1]}"`,
        '2024-06-01T12:00:00Z',
      ]),
    );
    const { rows, summary } = await runOn('route', csv);
    for (const [i, [, from, to, via]] of jobs.entries()) {
      const path = via === null ? [from, to] : [from, via, to];
      let metres = 0;
      for (let k = 0; k + 1 < path.length; k++)
        metres += distanceMetres(path[k] as LonLat, path[k + 1] as LonLat);
      expect(Number(rows[i]?.route_distance_m)).toBeCloseTo(metres * FAST.detour, -1);
    }
    // Rows a and c ask the same: one request.
    expect(summary.requests.sent).toBe(2);
  });

  it('isochrone: each area is the circle its time or distance reaches', async () => {
    const csv = lines('site_id,name,lat,lon,minutes,metres,grid', [
      ['s1', 'x', 53.0793, 8.8017, 30, '', 150],
      ['s2', 'y', 50.1109, 8.6821, '', 8000, 150],
    ]);
    const { rows } = await runOn('isochrone', csv);
    const radii = [(FAST.speed * 30 * 60) / FAST.detour / 1000, 8000 / FAST.detour / 1000];
    for (const [i, r] of radii.entries()) {
      expect(Number(rows[i]?.iso_area_km2) / (Math.PI * r * r)).toBeCloseTo(1, 2);
    }
  });

  it('trip: every tour visits each of its stops once from its lowest-numbered one, distances adding up', async () => {
    const tours: Record<string, LonLat[]> = {
      north: [
        [9.9937, 53.5511],
        [10.6866, 53.8655],
        [10.1228, 54.3233],
        [9.4364, 54.7833],
      ],
      west: [
        [6.7735, 51.2277],
        [7.0982, 50.7374],
        [6.0839, 50.7753],
      ],
    };
    // Numbered backwards so that the start is the last row of each tour.
    const csv = lines(
      'trip_id,stop_seq,stop_id,name,lat,lon',
      Object.entries(tours).flatMap(([id, stops]) =>
        stops.map((p, i) => [id, stops.length - i, `${id}-${i}`, 'x', p[1], p[0]]),
      ),
    );
    const { rows, summary } = await runOn('trip', csv);
    expect(summary.requests.sent).toBe(2);
    for (const [id, stops] of Object.entries(tours)) {
      const tour = rows.filter((r) => r.trip_id === id);
      expect(tour.map((r) => Number(r.trip_order)).sort()).toEqual(stops.map((_, i) => i + 1));
      expect(tour[tour.length - 1]?.trip_order).toBe('1');
      const visited = [...tour].sort((a, b) => Number(a.trip_order) - Number(b.trip_order));
      let driven = 0;
      for (const [k, stop] of visited.entries()) {
        if (k > 0) {
          const before = visited[k - 1] as Record<string, string>;
          const leg = distanceMetres(
            [Number(before.lon), Number(before.lat)],
            [Number(stop.lon), Number(stop.lat)],
          );
          expect(Number(stop.trip_leg_distance_m)).toBeCloseTo(leg * FAST.detour, -1);
          driven += Number(stop.trip_leg_distance_m);
        }
        expect(Number(stop.trip_distance_m)).toBe(driven);
      }
    }
  });

  it('match: each fix lands on the snapping grid near where it was, each track totals its own fixes', async () => {
    const tracks: [string, LonLat, number][] = [
      ['t1', [8.4037, 49.0069], 30],
      ['t2', [13.405, 52.52], 20],
    ];
    const csv = lines(
      'track_id,time,lat,lon',
      tracks.flatMap(([id, [lon, lat], n]) =>
        Array.from({ length: n }, (_, i) => [
          id,
          1_700_000_000 + i * 5,
          (lat + i * 0.0004).toFixed(5),
          (lon + i * 0.0006).toFixed(5),
        ]),
      ),
    );
    const { rows } = await runOn('match', csv);
    for (const r of rows) {
      expect(r.match_matched).toBe('true');
      expect(Math.abs(Number(r.match_lon) - Number(r.lon))).toBeLessThanOrEqual(0.00025 + 1e-9);
      expect(Math.abs(Number(r.match_lat) - Number(r.lat))).toBeLessThanOrEqual(0.00025 + 1e-9);
    }
    const lastOf = (id: string) => rows.filter((r) => r.track_id === id).at(-1);
    expect(lastOf('t1')?.match_track_fixes).toBe('30');
    expect(lastOf('t2')?.match_track_fixes).toBe('20');
  });
});

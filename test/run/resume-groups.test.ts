/**
 * A resumed run of groups (a trip's stops, a track's fixes) knows the groups the committed rows
 * held: a group that comes again after the resume point fails there as it does in one pass,
 * instead of being answered as a new group (a nightly resume turned those failures into ok rows).
 */
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { createTripJob } from '../../src/jobs/trip.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import type { LonLat } from '../../src/types.js';
import { memoryLogger, read, tempDir, write } from '../fixtures/run-helpers.js';

/** A trip service that answers in the order given; `hold` keeps a trip's answer until aborted. */
function tripClient(hold: (points: readonly LonLat[]) => boolean, signal?: AbortSignal) {
  const answer = (points: readonly LonLat[]) => {
    const legs = points.slice(1).map(() => ({ distance_m: 1000, duration_s: 100 }));
    return {
      distance_m: 1000 * legs.length,
      duration_s: 100 * legs.length,
      geometry: { type: 'LineString' as const, coordinates: points.map((p) => [...p]) },
      properties: {},
      order: points.map((_, i) => i),
      legs,
    };
  };
  return {
    routing: {
      trip: async (points: readonly LonLat[]) => {
        if (hold(points))
          await new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
        return answer(points);
      },
      route: async (points: readonly LonLat[]) => answer(points),
    },
  };
}

function specFor(dir: string, client: ReturnType<typeof tripClient>, extra: Partial<RunSpec> = {}): RunSpec {
  return {
    job: createTripJob(client, { mapping: { trip: { column: 'trip' } } }),
    jobFingerprint: 'trip:v1',
    input: { path: join(dir, 'in.csv'), format: 'csv' },
    output: { path: join(dir, 'out.csv'), format: 'csv' },
    report: { path: join(dir, 'errors.csv'), format: 'csv' },
    logger: memoryLogger().logger,
    progress: { enabled: false },
    checkpoint: { intervalMs: 1 },
    ...extra,
  };
}

describe('a resumed run of groups', () => {
  it('fails a group that comes again after the resume point, as one pass does', async () => {
    const dir = tempDir();
    // Trip A, trip B, then A again: its row fails in one pass.
    const rows = [
      ['A', 8.4],
      ['A', 8.41],
      ['B', 8.5],
      ['B', 8.51],
      ['A', 8.42],
    ];
    write(join(dir, 'in.csv'), `trip,lon,lat\n${rows.map(([t, lon]) => `${t},${lon},49`).join('\n')}\n`);
    const statuses = () =>
      (parse(read(join(dir, 'out.csv')), { columns: true }) as Record<string, string>[]).map(
        (r) => `${r.trip}:${r.geobatch_status}:${r.geobatch_error}`,
      );

    const whole = await runJob(
      specFor(
        dir,
        tripClient(() => false),
      ),
    );
    expect(whole.rows).toMatchObject({ ok: 4, failed: 1 });
    const expected = statuses();
    expect(expected[4]).toBe('A:failed:FIELD_INVALID');

    // Stopped while trip B is asked: trip A's rows are committed, the run resumes at B.
    const other = tempDir();
    write(join(other, 'in.csv'), read(join(dir, 'in.csv')));
    const controller = new AbortController();
    const held = tripClient((points) => {
      if (points[0]?.[0] === 8.5) setTimeout(() => controller.abort(), 20);
      return points[0]?.[0] === 8.5;
    }, controller.signal);
    const stopped = await runJob(specFor(other, held, { signal: controller.signal }));
    expect(stopped).toMatchObject({ ended: 'stopped', resume: { fromRow: 0 } });
    const resumed = await runJob(
      specFor(
        other,
        tripClient(() => false),
        { resume: true },
      ),
    );
    expect(resumed.resume).toMatchObject({ resumed: true, fromRow: 2 });
    expect(read(join(other, 'out.csv'))).toBe(read(join(dir, 'out.csv')));
    expect(read(join(other, 'errors.csv'))).toBe(read(join(dir, 'errors.csv')));
  });
});

import type { LineString } from 'geojson';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCounters } from '../../src/engine/counters.js';
import { isGeobatchError, ServiceError } from '../../src/errors.js';
import { type Mapping, resolveMapping } from '../../src/jobs/_fields.js';
import { pathLength } from '../../src/jobs/_geometry.js';
import type { MatchResult } from '../../src/jobs/_ports.js';
import { createMatchJob, matchKind } from '../../src/jobs/match.js';
import type { Fields, LonLat, Outcome } from '../../src/types.js';
import { type Rig, rig } from '../client/_emulator.js';
import { codes, recordOf, runRows } from './_run.js';

const mapping: Mapping = { track: { column: 'track' }, time: { column: 'time' } };
const fix = (track: string, second: number, lon: number, lat = 49): Fields => ({
  track,
  time: new Date(Date.UTC(2024, 4, 6, 6, 0, second)).toISOString(),
  lon: String(lon),
  lat: String(lat),
});
/** A straight track east along 49°N, one fix every 0.001°. */
const track = (name: string, count: number, from = 8): Fields[] =>
  Array.from({ length: count }, (_, i) => fix(name, i, Number((from + i * 0.001).toFixed(3))));

const snap = (v: number) => Math.round(v * 500) / 500;

/**
 * A fake MATCH: snaps to a 0.002° grid; a fix east of 20° is unmatched. The line joins the matched
 * points; distance = its length, duration = distance / 10.
 */
function fakeClient(fail?: (call: number) => boolean) {
  const calls: (readonly LonLat[])[] = [];
  return {
    calls,
    routing: {
      match: async (points: readonly LonLat[]): Promise<MatchResult> => {
        calls.push(points);
        if (fail?.(calls.length) === true) {
          throw new ServiceError('HTTP_STATUS', 'routing answered 400', { status: 400, attempts: 1 });
        }
        const destinations = points.map((p) => {
          const matched = p[0] < 20;
          const m = matched ? [snap(p[0]), snap(p[1])] : [...p];
          return {
            isMatched: matched,
            distance: matched ? 12.3 : 0,
            inPoint: { type: 'Point' as const, coordinates: [...p] },
            matchedPoint: { type: 'Point' as const, coordinates: m },
          };
        });
        const line = destinations.filter((d) => d.isMatched).map((d) => d.matchedPoint.coordinates);
        const distance = pathLength(line);
        return {
          distance_m: distance,
          duration_s: distance / 10,
          geometry: line.length >= 2 ? { type: 'LineString', coordinates: line } : null,
          properties: {},
          legs: null,
          destinations,
        };
      },
    },
  };
}

const columns = (outcome: Outcome | undefined) => recordOf(outcome).columns;

describe('match job', () => {
  it('gives each fix its snapped position and offset; a fix off the roads is ok, unmatched, without one', async () => {
    const job = createMatchJob(fakeClient(), { mapping });
    const outcomes = await runRows(job, [fix('V', 0, 8.0011), fix('V', 1, 25), fix('V', 2, 8.0031)]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok']);
    expect(columns(outcomes[0])).toMatchObject({
      match_matched: true,
      match_lon: 8.002,
      match_lat: 49,
      match_offset_m: 12.3,
    });
    expect(recordOf(outcomes[0]).geometry).toEqual({ type: 'Point', coordinates: [8.002, 49] });
    expect(columns(outcomes[1])).toMatchObject({
      match_matched: false,
      match_lon: null,
      match_offset_m: null,
    });
    expect(recordOf(outcomes[1]).geometry).toBeNull();
  });

  it('matches a track longer than one request in overlapping windows, answering each fix once', async () => {
    const client = fakeClient();
    const job = createMatchJob(client, { mapping, maxPoints: 10, overlap: 3 });
    const outcomes = await runRows(job, track('V', 25));
    expect(codes(outcomes)).toEqual(Array(25).fill('ok'));
    // 7 new fixes a request, after the 3 before them: ceil(25 / 7) = 4 requests, none over 10 points.
    expect(client.calls.map((c) => c.length)).toEqual([7, 10, 10, 7]);
    expect(client.calls[1]?.[0]?.[0]).toBe(8.004);
    // Every fix is answered from its own window: its snapped position is its own.
    for (const [i, outcome] of outcomes.entries())
      expect(columns(outcome).match_lon).toBe(snap(8 + i * 0.001));
  });

  it('stitches the windows’ lines into the track’s line on its last row, with the whole track’s totals', async () => {
    const whole = await runRows(createMatchJob(fakeClient(), { mapping, wkt: true }), track('V', 25));
    const windowed = await runRows(
      createMatchJob(fakeClient(), { mapping, maxPoints: 10, overlap: 3, wkt: true }),
      track('V', 25),
    );
    const last = (outcomes: Outcome[]) => recordOf(outcomes[24]);
    expect(last(windowed).geometry).toEqual(last(whole).geometry);
    expect(last(windowed).columns).toEqual(last(whole).columns);
    expect(last(windowed).columns).toMatchObject({ match_track_fixes: 25, match_track_matched: 25 });
    expect(Number(last(windowed).columns.match_track_distance_m)).toBeCloseTo(
      pathLength((last(whole).geometry as LineString).coordinates),
      -1,
    );
    // Only the last row carries the track.
    expect(columns(windowed[23]).match_track_fixes).toBeNull();
    expect(recordOf(windowed[23]).geometry?.type).toBe('Point');
  });

  it('gives the track’s line also when its fixes fill its last window exactly', async () => {
    const job = createMatchJob(fakeClient(), { mapping, maxPoints: 10, overlap: 3 });
    const outcomes = await runRows(job, [...track('A', 14), ...track('B', 7, 9), ...track('C', 2, 10)]);
    expect(columns(outcomes[13]).match_track_fixes).toBe(14);
    expect(columns(outcomes[20]).match_track_fixes).toBe(7);
    expect(columns(outcomes[22]).match_track_fixes).toBe(2);
  });

  it('fails a fix earlier than the one before it, or without a readable time, and matches the rest', async () => {
    const client = fakeClient();
    const job = createMatchJob(client, { mapping });
    const outcomes = await runRows(job, [
      fix('V', 10, 8.0),
      fix('V', 20, 8.001),
      fix('V', 15, 8.002),
      { ...fix('V', 30, 8.003), time: 'n/a' },
      fix('V', 20, 8.004),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'FIELD_INVALID', 'FIELD_INVALID', 'ok']);
    expect(outcomes[2]).toMatchObject({
      issue: {
        field: 'time',
        message:
          "time: `2024-05-06T06:00:15.000Z` is earlier than the fix before it (row 2); a track's fixes must be in time order",
      },
    });
    expect(client.calls[0]).toHaveLength(3);
  });

  it('fails a fix whose time is a date alone: no moment to match it at', async () => {
    const client = fakeClient();
    const job = createMatchJob(client, { mapping });
    const at = (time: string, lon: string): Fields => ({ track: 'A', time, lon, lat: '49' });
    const outcomes = await runRows(job, [
      at('2024-05-06', '8.000'),
      at('2024-05-06T08:00:00Z', '8.001'),
      at('2024-05-06 08:05', '8.002'),
      at('2024-05-06T10:10:00+02:00', '8.003'),
    ]);
    expect(codes(outcomes)).toEqual(['FIELD_INVALID', 'ok', 'ok', 'ok']);
    expect(outcomes[0]).toMatchObject({
      issue: {
        code: 'FIELD_INVALID',
        field: 'time',
        message:
          'time: `2024-05-06` is a date without a time of day: expected an ISO 8601 date-time such as 2024-05-06T08:30:00Z, or a number',
      },
    });
  });

  it('reads fix times given as numbers with the decimal mark the input declares', async () => {
    const client = fakeClient();
    const job = createMatchJob(client, { mapping: resolveMapping(mapping, ',') });
    const at = (time: string, lon: string): Fields => ({ track: 'V', time, lon, lat: '49' });
    const outcomes = await runRows(job, [
      at('999,5', '8,000'),
      at('1.000', '8,001'),
      at('1.000,25', '8,002'),
      at('1000.5', '8,003'),
      at('1.001', '8,004'),
    ]);
    // Read as text, 1.000 would be 1 second, earlier than 999,5.
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'ok', 'FIELD_INVALID', 'ok']);
    expect(outcomes[3]).toMatchObject({
      issue: {
        field: 'time',
        message:
          'time: expected an ISO 8601 date-time or a number written with input.decimal "," (`.` only between ' +
          'groups of three digits, as in 1.500.000,25), got `1000.5`',
      },
    });
    expect(client.calls[0]).toHaveLength(4);
  });

  it('reads a time with a decimal comma without a declared mark, and asks about 1,000', async () => {
    const client = fakeClient();
    const job = createMatchJob(client, { mapping });
    const at = (time: string, lon: number): Fields => ({ track: 'V', time, lon: String(lon), lat: '49' });
    const outcomes = await runRows(job, [
      at('900', 8.0),
      at('900,5', 8.001),
      at('1,000', 8.002),
      at('1100', 8.003),
    ]);
    expect(codes(outcomes)).toEqual(['ok', 'ok', 'FIELD_INVALID', 'ok']);
    expect(outcomes[2]).toMatchObject({
      issue: {
        field: 'time',
        message: expect.stringContaining(
          'time: expected a time, got `1,000`: 1 with a decimal mark, 1000 with a thousands separator',
        ),
      },
    });
  });

  it('fails a track of one fix as NO_MATCH without a request, and counts none sent for it', async () => {
    const client = fakeClient();
    const counters = createCounters();
    const outcomes = await runRows(
      createMatchJob(client, { mapping }),
      [fix('A', 0, 8), fix('B', 0, 9), fix('B', 1, 9.001)],
      { counters },
    );
    expect(codes(outcomes)).toEqual(['NO_MATCH', 'ok', 'ok']);
    // Nothing was sent for it: the row is one the job cannot use, not a request that failed.
    const [alone] = outcomes;
    expect(alone?.status === 'failed' && alone.issue).toMatchObject({
      stage: 'input',
      message: 'track A: one fix alone cannot be matched to a road; a track needs two',
    });
    expect(client.calls).toHaveLength(1);
    // The summary's `sent` against the service's count: one more was read as a request that never
    // reached the service ("failed to connect").
    expect(counters).toMatchObject({ requestsSent: 1, itemsSent: 2, localHits: 0 });
  });

  it('leaves the track’s line and totals empty when one of its windows failed', async () => {
    const job = createMatchJob(
      fakeClient((call) => call === 2),
      { mapping, maxPoints: 10, overlap: 3 },
    );
    const outcomes = await runRows(job, track('V', 25));
    expect(codes(outcomes)).toEqual([
      ...Array(7).fill('ok'),
      ...Array(7).fill('HTTP_STATUS'),
      ...Array(11).fill('ok'),
    ]);
    expect(columns(outcomes[24])).toMatchObject({
      match_matched: true,
      match_track_fixes: null,
      match_track_distance_m: null,
    });
    expect(recordOf(outcomes[24]).geometry?.type).toBe('Point');
  });

  it('refuses an overlap of none or of more than half a window, and a mapping without the track column', () => {
    const refused = (build: () => unknown) => {
      try {
        build();
      } catch (error) {
        return isGeobatchError(error) ? { code: error.code, path: error.context.path } : error;
      }
      return undefined;
    };
    expect(refused(() => createMatchJob(fakeClient(), { mapping, maxPoints: 10, overlap: 6 }))).toEqual({
      code: 'CONFIG_INVALID',
      path: 'options.overlap',
    });
    // No overlap would leave the stretch between two windows out of the track's distance.
    expect(refused(() => createMatchJob(fakeClient(), { mapping, maxPoints: 10, overlap: 0 }))).toEqual({
      code: 'CONFIG_INVALID',
      path: 'options.overlap',
    });
    expect(
      refused(() => matchKind.create({ client: fakeClient() as never, mapping: {}, options: {} } as never)),
    ).toEqual({ code: 'CONFIG_INVALID', path: 'mapping.track' });
  });

  it('resumes only between tracks', async () => {
    const job = createMatchJob(fakeClient(), { mapping });
    await runRows(job, [...track('A', 3), ...track('B', 2)]);
    expect([0, 1, 2, 3, 4, 5].map((i) => job.resumableAt?.(i))).toEqual([
      true,
      false,
      false,
      true,
      false,
      true,
    ]);
  });
});

describe('match job against the emulator', () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig();
  });
  afterAll(async () => {
    await r.stop();
  });

  it('gives the same fixes and the same line whether a track goes in one request or in windows', async () => {
    const fixes = Array.from({ length: 60 }, (_, i) => fix('K', i, 8.4 + i * 0.0007, 49.0 + i * 0.0003));
    const one = await runRows(createMatchJob(r.client, { mapping }), fixes);
    const windows = await runRows(createMatchJob(r.client, { mapping, maxPoints: 12, overlap: 4 }), fixes);
    expect(codes(windows)).toEqual(Array(60).fill('ok'));
    expect(windows.map((o) => recordOf(o).geometry)).toEqual(one.map((o) => recordOf(o).geometry));
    const [a, b] = [columns(one[59]), columns(windows[59])];
    expect(b.match_track_fixes).toBe(60);
    expect(Math.abs(Number(a.match_track_distance_m) - Number(b.match_track_distance_m))).toBeLessThanOrEqual(
      1,
    );
  });
});

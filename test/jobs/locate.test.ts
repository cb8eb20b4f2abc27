/**
 * Job.locate for the jobs that read several points or a group's points: where the run report's
 * map draws a row of theirs that failed (a CSV row has no geometry of its own to draw).
 */
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/engine/job.js';
import type { IsochronePort, MatchPort, MatrixPort, RoutePort, TripPort } from '../../src/jobs/_ports.js';
import { createIsochroneJob } from '../../src/jobs/isochrone.js';
import { createMatchJob } from '../../src/jobs/match.js';
import { createMatrixJob } from '../../src/jobs/matrix.js';
import { createRouteJob } from '../../src/jobs/route.js';
import { createTripJob } from '../../src/jobs/trip.js';
import { row } from './_rows.js';

// locate reads the row only: no job here sends a request.
const client = {} as RoutePort & MatrixPort & TripPort & MatchPort & IsochronePort;

type AnyJob = Job<unknown, unknown>;

function locate(job: AnyJob, fields: Record<string, string>) {
  return job.locate?.(row(fields));
}

const ENDS = {
  originLon: { column: 'ox' },
  originLat: { column: 'oy' },
  destinationLon: { column: 'dx' },
  destinationLat: { column: 'dy' },
};

describe('where a failed row of a several-point job lies', () => {
  it('route: the line from origin through the via points to destination, skipping what is unreadable', () => {
    const job = createRouteJob(client, { mapping: { ...ENDS, via: { column: 'via' } } }) as AnyJob;
    expect(locate(job, { ox: '8.4', oy: '49', dx: '8.5', dy: '49.1', via: '8.45,49.05' })).toEqual({
      type: 'LineString',
      coordinates: [
        [8.4, 49],
        [8.45, 49.05],
        [8.5, 49.1],
      ],
    });
    // The via list does not read: the row failed on it, and is drawn from end to end.
    expect(locate(job, { ox: '8.4', oy: '49', dx: '8.5', dy: '49.1', via: 'nowhere' })).toEqual({
      type: 'LineString',
      coordinates: [
        [8.4, 49],
        [8.5, 49.1],
      ],
    });
    expect(locate(job, { ox: '8.4', oy: '49', dx: 'abc', dy: '49.1', via: '' })).toEqual({
      type: 'Point',
      coordinates: [8.4, 49],
    });
    expect(locate(job, { ox: '', oy: '', dx: '', dy: '', via: '' })).toBeUndefined();
  });

  it('matrix: a pair as its line, a row against fixed destinations as its origin', () => {
    const pairs = createMatrixJob(client, { mapping: ENDS }) as AnyJob;
    expect(locate(pairs, { ox: '8.4', oy: '49', dx: '8.5', dy: '49.1' })).toEqual({
      type: 'LineString',
      coordinates: [
        [8.4, 49],
        [8.5, 49.1],
      ],
    });
    const cross = createMatrixJob(client, {
      mapping: { lon: { column: 'x' }, lat: { column: 'y' } },
      destinations: [{ id: 'depot', point: [8.5, 49.1] }],
    }) as AnyJob;
    expect(locate(cross, { x: '8.4', y: '49' })).toEqual({ type: 'Point', coordinates: [8.4, 49] });
  });

  it.each([
    ['isochrone', createIsochroneJob(client, { mapping: { minutes: { value: '10' } } })],
    ['trip', createTripJob(client, { mapping: { trip: { column: 'tour' } } })],
    ['match', createMatchJob(client, { mapping: { track: { column: 'tour' } } })],
  ])('%s: the row own point', (_name, job) => {
    const located = locate(job as AnyJob, { tour: 'T1', lon: '8.4', lat: '49' });
    expect(located).toEqual({ type: 'Point', coordinates: [8.4, 49] });
    expect(locate(job as AnyJob, { tour: 'T1', lon: 'x', lat: '49' })).toBeUndefined();
  });
});

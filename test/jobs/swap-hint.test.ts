import { describe, expect, it } from 'vitest';
import type { ItemFailure, ItemResult, Job } from '../../src/engine/job.js';
import { swapHint, withSwapHint } from '../../src/jobs/_fields.js';
import { createAddressSearchJob } from '../../src/jobs/address-search.js';
import { createBoundariesJob } from '../../src/jobs/boundaries.js';
import { createElevationJob } from '../../src/jobs/elevation.js';
import { createIsochroneJob } from '../../src/jobs/isochrone.js';
import { createMatchJob } from '../../src/jobs/match.js';
import { createMatrixJob } from '../../src/jobs/matrix.js';
import { createReverseGeocodeJob } from '../../src/jobs/reverse-geocode.js';
import { createRouteJob } from '../../src/jobs/route.js';
import { createTripJob } from '../../src/jobs/trip.js';
import type { Fields } from '../../src/types.js';
import { row } from './_rows.js';

const HINT =
  'longitude and latitude swapped? (49.00937, 8.40444) lies outside Germany, (8.40444, 49.00937) inside';
const failure: ItemFailure = { code: 'HTTP_STATUS', stage: 'request', status: 400, message: 'refused' };
const failed: ItemResult<never> = { ok: false, failure };
const unused = {} as never;

// Karlsruhe with its columns the other way round, and a point that is simply elsewhere (Paris).
const SWAPPED = { lon: '49.00937', lat: '8.40444' };
const ELSEWHERE = { lon: '2.35', lat: '48.85' };

const jobs: [string, Job<unknown, unknown>, (fields: Fields) => Fields][] = [
  ['reverse-geocode', createReverseGeocodeJob(unused, { mapping: {} }) as Job<unknown, unknown>, (f) => f],
  ['elevation', createElevationJob(unused, { mapping: {} }) as Job<unknown, unknown>, (f) => f],
  [
    'address-search',
    createAddressSearchJob(unused, { mapping: {}, branches: '1' }) as Job<unknown, unknown>,
    (f) => f,
  ],
  ['boundaries', createBoundariesJob(unused, { mapping: {} }) as Job<unknown, unknown>, (f) => f],
  [
    'isochrone',
    createIsochroneJob(unused, { mapping: { minutes: { value: '10' } } }) as Job<unknown, unknown>,
    (f) => f,
  ],
  [
    'trip (a stop)',
    createTripJob(unused, { mapping: { trip: { column: 'trip' } } }) as Job<unknown, unknown>,
    (f) => ({ ...f, trip: 'T1' }),
  ],
  [
    'match (a fix)',
    createMatchJob(unused, { mapping: { track: { column: 'track' } } }) as Job<unknown, unknown>,
    (f) => ({ ...f, track: 'V1' }),
  ],
  [
    'matrix (origin)',
    createMatrixJob(unused, {
      mapping: { destinationLon: { column: 'to_lon' }, destinationLat: { column: 'to_lat' } },
    }) as Job<unknown, unknown>,
    (f) => ({ ...f, to_lon: '8.4', to_lat: '49.0' }),
  ],
  [
    'matrix (destination)',
    createMatrixJob(unused, {
      mapping: { destinationLon: { column: 'to_lon' }, destinationLat: { column: 'to_lat' } },
    }) as Job<unknown, unknown>,
    (f) => ({ lon: '8.4', lat: '49.0', to_lon: f.lon ?? '', to_lat: f.lat ?? '' }),
  ],
];

describe('the swapped-coordinates hint', () => {
  it.each(jobs)(
    '%s: a failed row whose point looks swapped gets the hint, another failed row does not',
    (_, job, fields) => {
      const swapped = job.render(row(fields(SWAPPED)), [failed]);
      expect(swapped).toMatchObject({
        ok: false,
        failure: { code: 'HTTP_STATUS', message: `refused; ${HINT}` },
      });
      const elsewhere = job.render(row(fields(ELSEWHERE)), [failed]);
      expect(elsewhere).toMatchObject({ ok: false, failure: { message: 'refused' } });
    },
  );

  it('reverse-geocode: a no-match for a swapped point carries the hint', () => {
    const job = createReverseGeocodeJob(unused, { mapping: {} });
    const noMatch = {
      ok: true as const,
      value: { match: null, candidates: 0, exception: { errCode: 'NO_RESULT', publicReport: 'none' } },
    };
    expect(job.render(row(SWAPPED), [noMatch])).toMatchObject({
      ok: false,
      failure: { code: 'NO_MATCH', message: `no match: none; ${HINT}` },
    });
  });

  it('goes on after a message that ends as a sentence without doubling the stop', () => {
    const sentence = { ok: false as const, failure: { ...failure, message: 'keine Route dorthin.' } };
    expect(withSwapHint(sentence, [[49.00937, 8.40444]])).toMatchObject({
      failure: { message: `keine Route dorthin; ${HINT}` },
    });
  });

  it('is a hint, never a swap: the point is not changed and an ok row is left alone', () => {
    expect(swapHint([49.00937, 8.40444])).toBe(HINT);
    expect(swapHint([8.40444, 49.00937])).toBeUndefined();
    expect(swapHint([2.35, 48.85])).toBeUndefined();
    const ok = { ok: true as const, records: [{ columns: {} }] };
    expect(withSwapHint(ok, [[49.00937, 8.40444]])).toBe(ok);
  });
});

describe('the swapped-coordinates hint of a route', () => {
  const mapping = {
    originLon: { column: 'from_lon' },
    originLat: { column: 'from_lat' },
    destinationLon: { column: 'to_lon' },
    destinationLat: { column: 'to_lat' },
    via: { column: 'stops' },
  };
  const job = createRouteJob(unused, { mapping });
  // Karlsruhe to Frankfurt, through Mannheim and Heidelberg.
  const fields = (extra: Fields = {}): Fields => ({
    from_lon: '8.40444',
    from_lat: '49.00937',
    to_lon: '8.68',
    to_lat: '50.11',
    stops: '8.47,49.48;8.69,49.41',
    ...extra,
  });

  it('names a swapped via point by its column and its place, as the origin and destination by theirs', () => {
    expect(job.render(row(fields({ stops: '8.47,49.48;49.41,8.69' })), [failed])).toMatchObject({
      ok: false,
      failure: {
        code: 'HTTP_STATUS',
        message:
          'refused; longitude and latitude swapped? stops point 2 (49.41, 8.69) lies outside Germany, (8.69, 49.41) inside',
      },
    });
    expect(job.render(row(fields({ from_lon: '49.00937', from_lat: '8.40444' })), [failed])).toMatchObject({
      failure: { message: `refused; ${HINT.replace('swapped? ', 'swapped? from_lon/from_lat ')}` },
    });
    expect(job.render(row(fields({ to_lon: '50.11', to_lat: '8.68' })), [failed])).toMatchObject({
      failure: {
        message:
          'refused; longitude and latitude swapped? to_lon/to_lat (50.11, 8.68) lies outside Germany, (8.68, 50.11) inside',
      },
    });
    // Nothing looks swapped: the failure as it came.
    expect(job.render(row(fields()), [failed])).toMatchObject({ failure: { message: 'refused' } });
  });

  it('checks a via point before any request as it checks the origin: the same code, the same words, its place named', () => {
    const origin = job.plan(row(fields({ from_lat: '95' })));
    const via = job.plan(row(fields({ stops: '8.47,49.48;8.69,95' })));
    expect(origin).toEqual({
      code: 'FIELD_INVALID',
      field: 'from_lat',
      message: 'from_lat: expected a latitude from -90 to 90, got `95` (longitude and latitude swapped?)',
    });
    expect(via).toEqual({
      code: 'FIELD_INVALID',
      field: 'stops',
      message:
        'stops: point 2: expected a latitude from -90 to 90, got `95` (longitude and latitude swapped?)',
    });
  });
});

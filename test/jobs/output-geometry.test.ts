/**
 * The geometry a point job writes for a row: a GeoJSON feature's own (a parcel, a road) kept, not
 * replaced by the point read from its properties; the point read where the row has none, for a
 * row that failed at the service as for an ok one (an analyst's map shows where the at-sea, foreign
 * and swapped points lie).
 */
import type { Geometry } from 'geojson';
import { describe, expect, it } from 'vitest';
import { processRows } from '../../src/engine/engine.js';
import type { AnyJob } from '../../src/engine/job.js';
import { ServiceError } from '../../src/errors.js';
import type { ElevationPort } from '../../src/jobs/_ports.js';
import { createBoundariesJob } from '../../src/jobs/boundaries.js';
import { createElevationJob } from '../../src/jobs/elevation.js';
import { createReverseGeocodeJob } from '../../src/jobs/reverse-geocode.js';
import { geometryOf } from '../../src/output/geojson.js';
import type { Fields, Outcome, ReadItem } from '../../src/types.js';
import { fileRig } from '../client/_emulator.js';
import { recordOf } from './_run.js';

const r = fileRig();

// Karlsruhe: inside the emulator's data for every one of the three services.
const PARCEL: Geometry = {
  type: 'Polygon',
  coordinates: [
    [
      [8.403, 49.009],
      [8.405, 49.009],
      [8.405, 49.011],
      [8.403, 49.009],
    ],
  ],
};
const ROAD: Geometry = {
  type: 'LineString',
  coordinates: [
    [8.4, 49.0],
    [8.41, 49.01],
  ],
};
const FIELDS = { lon: '8.4044', lat: '49.0094' };

async function run(
  job: AnyJob,
  geometries: readonly (Geometry | null | undefined)[],
  fields: Fields = FIELDS,
): Promise<Outcome[]> {
  async function* rows(): AsyncGenerator<ReadItem> {
    for (const [index, geometry] of geometries.entries())
      yield {
        kind: 'row',
        ref: { index, line: index + 2 },
        fields,
        ...(geometry === undefined ? {} : { geometry }),
      };
  }
  const outcomes: Outcome[] = [];
  for await (const outcome of processRows(rows(), job)) outcomes.push(outcome);
  return outcomes;
}

const jobs: [string, () => AnyJob][] = [
  ['elevation', () => createElevationJob(r.client, { mapping: {} }) as AnyJob],
  ['boundaries', () => createBoundariesJob(r.client, { mapping: {}, levels: [4] }) as AnyJob],
  ['reverse-geocode', () => createReverseGeocodeJob(r.client, { mapping: {} }) as AnyJob],
];

describe.each(jobs)('%s: the geometry of its output record', (_kind, make) => {
  it("keeps a feature's own Polygon or LineString, and writes the point read where a row has none", async () => {
    const outcomes = await run(make(), [PARCEL, ROAD, null, undefined]);
    // undefined keeps the input's geometry (OutputRecord.geometry): the parcel, the road.
    expect(outcomes.map((o) => recordOf(o).geometry)).toEqual([
      undefined,
      undefined,
      { type: 'Point', coordinates: [8.4044, 49.0094] },
      { type: 'Point', coordinates: [8.4044, 49.0094] },
    ]);
  });
});

// Paris: outside the data of boundaries and reverse geocoding, which fail it at the service.
const PARIS = { lon: '2.3522', lat: '48.8566' };
/** An elevation service that fails every request for good (its retries spent). */
const failing = {
  elevation: {
    points: async () => {
      throw new ServiceError('HTTP_STATUS', 'elevation answered 500 after 6 attempts', { status: 500 });
    },
  },
} as unknown as ElevationPort;

const failingJobs: [string, () => AnyJob, Fields, string][] = [
  ['elevation', () => createElevationJob(failing, { mapping: {} }) as AnyJob, FIELDS, 'HTTP_STATUS'],
  [
    'boundaries',
    () => createBoundariesJob(r.client, { mapping: {}, levels: [4] }) as AnyJob,
    PARIS,
    'OUTSIDE_COVERAGE',
  ],
  ['reverse-geocode', () => createReverseGeocodeJob(r.client, { mapping: {} }) as AnyJob, PARIS, 'NO_MATCH'],
];

describe.each(failingJobs)('%s: the geometry of a row failed at the service', (_kind, make, fields, code) => {
  it("is the point read where the row has none, and the feature's own where it has one", async () => {
    const outcomes = await run(make(), [undefined, null, PARCEL], fields);
    expect(outcomes.map((o) => (o.status === 'failed' ? o.issue.code : 'ok'))).toEqual([code, code, code]);
    const point = { type: 'Point', coordinates: [Number(fields.lon), Number(fields.lat)] };
    // As the GeoJSON and GeoPackage writers place a failed row, which has no record of its own.
    expect(outcomes.map((o) => geometryOf(o, 0))).toEqual([point, point, PARCEL]);
  });
});

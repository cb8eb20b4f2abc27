/**
 * elevation: lon/lat -> elevation_m, 500 points a request (the service's limit, never more).
 * When the service rejects a whole chunk with a 4xx, the chunk is split in halves until the
 * offending points are isolated, so only they fail: about 2 x log2(500) = 18 extra requests per
 * bad point instead of 500 rows lost.
 */

import { z } from 'zod';
import type { ItemResult, Job } from '../engine/job.js';
import type { LonLat } from '../types.js';
import { COORD_FORMAT_DOC, type CoordFormat, coordFormatOption, readsIn } from './_coord-format.js';
import {
  isPlanIssue,
  type Mapping,
  placedFailure,
  pointGeometry,
  pointKey,
  readPoint,
  recordGeometry,
  withSwapHint,
} from './_fields.js';
import { defineJobKind } from './_kind.js';
import { lingerMs, POINT_DOC, POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { ElevationPort } from './_ports.js';
import { prefixedColumns } from './_prefixed.js';
import { answerOf } from './_single.js';
import { sendSplitting } from './_split.js';
import type { SwappedPoints } from './_swapped.js';

export const MAX_POINTS_PER_REQUEST = 500;

export interface ElevationJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default '' (columns `elevation_m`, `elevation_nodata`) */
  readonly prefix?: string;
  /** Points per request, at most 500. @default 500 */
  readonly batchSize?: number;
  /** How long a partial chunk waits for more points. @default 50 */
  readonly lingerMs?: number;
  /** The point columns' format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormat;
}

export function createElevationJob(
  client: ElevationPort,
  options: ElevationJobOptions,
): Job<LonLat, number | null> {
  const output = prefixedColumns(options.prefix ?? '', ['elevation_m', 'elevation_nodata']);
  const batchSize = Math.min(options.batchSize ?? MAX_POINTS_PER_REQUEST, MAX_POINTS_PER_REQUEST);
  const at = { format: options.coordFormat };

  return {
    kind: 'elevation',
    columns: [...output.names],
    plan(row) {
      const point = readPoint(row, options.mapping, at);
      if (isPlanIssue(point)) return point;
      options.points?.note(row, point[0], point[1]);
      return [point];
    },
    key: pointKey,
    locate: (row) => pointGeometry(row, options.mapping, at),
    batching: { maxItems: batchSize, lingerMs: options.lingerMs ?? 50 },
    async execute(items, signal, keys) {
      const out = new Map<string, ItemResult<number | null>>();
      await sendSplitting(
        items,
        async (part) =>
          (await client.elevation.points(part, { signal })).map((value) => ({ ok: true, value })),
        (point, result, i) => out.set(keys?.[i] ?? pointKey(point), result),
        'point',
      );
      return out;
    },
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer)
        return placedFailure(
          withSwapHint(answer.failed, [readPoint(row, options.mapping, at)]),
          row,
          options.mapping,
          at,
        );
      // No data is an empty cell and a flag, never 0: 0 m is a real elevation on the coast.
      const value = answer.value;
      return {
        ok: true,
        records: [
          {
            columns: output.fields({ elevation_m: value, elevation_nodata: value === null }),
            geometry: recordGeometry(row, options.mapping, at),
          },
        ],
      };
    },
  };
}

export const elevationKind = defineJobKind({
  name: 'elevation',
  summary: 'coordinates -> metres above sea level',
  mappingFields: POINT_FIELDS,
  mappingRequired: false,
  options: z.strictObject({
    prefix,
    batchSize: positiveInt
      .max(MAX_POINTS_PER_REQUEST, 'the service takes at most 500 points a request')
      .optional(),
    lingerMs,
    coordFormat: coordFormatOption,
  }),
  services: ['elevation'],
  docs: {
    mapping: POINT_DOC,
    options: { prefix: 'none', batchSize: '500, at most 500', lingerMs: '50', coordFormat: COORD_FORMAT_DOC },
  },
  coordinates: (options) => ({ reads: [readsIn([POINT_FIELDS], options.coordFormat)] }),
  create: ({ client, mapping, options, points }) =>
    createElevationJob(client, { mapping, ...options, points }),
});

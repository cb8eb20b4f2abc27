/**
 * elevation: lon/lat -> elevation_m, 500 points a request (the service's limit, never more).
 * When the service rejects a whole chunk with a 4xx, the chunk is split in halves until the
 * offending points are isolated, so only they fail: about 2 x log2(500) = 18 extra requests per
 * bad point instead of 500 rows lost.
 */

import { z } from 'zod';
import type { ItemFailure, ItemResult, Job } from '../engine/job.js';
import { GeobatchError } from '../errors.js';
import type { LonLat } from '../types.js';
import { isPlanIssue, type Mapping, pointGeometry, pointKey, readPoint } from './_fields.js';
import { defineJobKind } from './_kind.js';
import { lingerMs, POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { ElevationPort } from './_ports.js';
import { answerOf } from './_single.js';

export const MAX_POINTS_PER_REQUEST = 500;

export interface ElevationJobOptions {
  readonly mapping: Mapping;
  /** @default '' (columns `elevation_m`, `elevation_nodata`) */
  readonly prefix?: string;
  /** Points per request, at most 500. @default 500 */
  readonly batchSize?: number;
  /** How long a partial chunk waits for more points. @default 50 */
  readonly lingerMs?: number;
}

/** A 4xx that names the request, not the service or our key: splitting can isolate its cause. */
function isRejection(error: unknown): error is GeobatchError {
  return (
    error instanceof GeobatchError &&
    error.code === 'HTTP_STATUS' &&
    error.context.status !== undefined &&
    error.context.status >= 400 &&
    error.context.status < 500
  );
}

function rejected(error: GeobatchError): ItemFailure {
  return {
    code: 'ITEM_REJECTED',
    stage: 'request',
    status: error.context.status,
    attempts: error.context.attempts,
    message: `the service rejected this point: ${error.message}`,
  };
}

export function createElevationJob(
  client: ElevationPort,
  options: ElevationJobOptions,
): Job<LonLat, number | null> {
  const prefix = options.prefix ?? '';
  const batchSize = Math.min(options.batchSize ?? MAX_POINTS_PER_REQUEST, MAX_POINTS_PER_REQUEST);

  async function fetchChunk(
    chunk: readonly LonLat[],
    signal: AbortSignal,
    out: Map<string, ItemResult<number | null>>,
  ): Promise<void> {
    try {
      const values = await client.elevation.points(chunk, { signal });
      for (const [i, point] of chunk.entries())
        out.set(pointKey(point), { ok: true, value: values[i] ?? null });
    } catch (error) {
      if (!isRejection(error)) throw error;
      if (chunk.length === 1) {
        const [point] = chunk as [LonLat];
        out.set(pointKey(point), { ok: false, failure: rejected(error) });
        return;
      }
      const middle = Math.ceil(chunk.length / 2);
      await fetchChunk(chunk.slice(0, middle), signal, out);
      await fetchChunk(chunk.slice(middle), signal, out);
    }
  }

  return {
    kind: 'elevation',
    columns: [`${prefix}elevation_m`, `${prefix}elevation_nodata`],
    plan(row) {
      const point = readPoint(row, options.mapping);
      return isPlanIssue(point) ? point : [point];
    },
    key: pointKey,
    batching: { maxItems: batchSize, lingerMs: options.lingerMs ?? 50 },
    async execute(items, signal) {
      const out = new Map<string, ItemResult<number | null>>();
      await fetchChunk(items, signal, out);
      return out;
    },
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return answer.failed;
      // No data is an empty cell and a flag, never 0: 0 m is a real elevation on the coast.
      const value = answer.value;
      return {
        ok: true,
        records: [
          {
            columns: { [`${prefix}elevation_m`]: value, [`${prefix}elevation_nodata`]: value === null },
            geometry: pointGeometry(row, options.mapping),
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
  }),
  optionsRequired: false,
  services: ['elevation'],
  docs: {
    mapping: '`lon`, `lat` (as above)',
    options: { prefix: 'none', batchSize: '500, at most 500', lingerMs: '50' },
  },
  create: ({ client, mapping, options }) => createElevationJob(client, { mapping, ...options }),
});

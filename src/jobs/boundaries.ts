/**
 * boundaries: lon/lat -> the administrative areas at one or more levels (name, key, level).
 *
 * Points travel in batches through the POST points form; every area that comes back is kept in a
 * spatial index, so a later point inside a known area is answered locally. On real data most rows
 * cost nothing: Germany has 16 states and 401 districts, and a file has far more rows than that.
 * With `spatialIndex: false` every row and level costs one GET, for comparison and for a service
 * without the POST form; both modes give the same answers (the same border rule).
 */

import { z } from 'zod';
import { AREA_MAX_POINTS } from '../contract/index.js';
import type { ItemResult, Job } from '../engine/job.js';
import type { Fields, LonLat } from '../types.js';
import { AreaIndex, coveringArea } from './_area-index.js';
import { isPlanIssue, type Mapping, pointGeometry, pointKey, readPoint } from './_fields.js';
import { defineJobKind } from './_kind.js';
import { lingerMs, POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { AreaFeature, BoundariesPort } from './_ports.js';
import { answerOf } from './_single.js';

export interface BoundariesJobOptions {
  readonly mapping: Mapping;
  /** Column prefix; columns are `<prefix><level>_name|_key|_level`. @default 'admin' */
  readonly prefix?: string;
  /** Administrative levels (Germany: 2 country, 4 state, 6 district). @default [4, 6] */
  readonly levels?: readonly number[];
  /** Points per POST. @default 100 */
  readonly batchSize?: number;
  /** @default true */
  readonly spatialIndex?: boolean;
  /** @default 50 */
  readonly lingerMs?: number;
}

export interface BoundaryItem {
  readonly point: LonLat;
  readonly level: number;
}

const itemKey = (item: BoundaryItem) => `${item.level}:${pointKey(item.point)}`;

export function createBoundariesJob(
  client: BoundariesPort,
  options: BoundariesJobOptions,
): Job<BoundaryItem, AreaFeature> {
  const prefix = options.prefix ?? 'admin';
  const levels = [...new Set(options.levels ?? [4, 6])].sort((a, b) => a - b);
  const indexed = options.spatialIndex ?? true;
  const indexes = new Map(levels.map((level) => [level, new AreaIndex()]));
  const columns = levels.flatMap((level) => [
    `${prefix}${level}_name`,
    `${prefix}${level}_key`,
    `${prefix}${level}_level`,
  ]);

  const outside = (item: BoundaryItem): ItemResult<AreaFeature> => ({
    ok: false,
    failure: {
      code: 'OUTSIDE_COVERAGE',
      stage: 'response',
      message: `no level-${item.level} area covers ${item.point[0]}, ${item.point[1]}`,
    },
  });

  async function executeIndexed(items: readonly BoundaryItem[], signal: AbortSignal) {
    const level = items[0]?.level ?? levels[0] ?? 0;
    const index = indexes.get(level) ?? new AreaIndex();
    const answer = await client.area.points(
      { level, points: items.map(({ point }) => ({ latitude: point[1], longitude: point[0] })) },
      { signal },
    );
    index.add(answer.features);
    const out = new Map<string, ItemResult<AreaFeature>>();
    for (const item of items) {
      const area = index.lookup(item.point);
      out.set(itemKey(item), area === undefined ? outside(item) : { ok: true, value: area });
    }
    return out;
  }

  async function executeEach(items: readonly BoundaryItem[], signal: AbortSignal) {
    const out = new Map<string, ItemResult<AreaFeature>>();
    for (const item of items) {
      const query = { level: item.level, latitude: item.point[1], longitude: item.point[0] };
      const area = coveringArea(item.point, (await client.area.point(query, { signal })).features);
      out.set(itemKey(item), area === undefined ? outside(item) : { ok: true, value: area });
    }
    return out;
  }

  return {
    kind: 'boundaries',
    columns,
    plan(row) {
      const point = readPoint(row, options.mapping);
      return isPlanIssue(point) ? point : levels.map((level) => ({ point, level }));
    },
    key: itemKey,
    ...(indexed
      ? {
          batching: {
            maxItems: options.batchSize ?? 100,
            lingerMs: options.lingerMs ?? 50,
            group: (item) => String(item.level),
            // Each answer teaches the index; the level's next request carries only what it cannot answer.
            serial: true,
          },
          resolveLocally: (item) => indexes.get(item.level)?.lookup(item.point),
          execute: executeIndexed,
        }
      : { execute: executeEach }),
    render(row, results) {
      const columnsOut: Fields = {};
      for (const [i, level] of levels.entries()) {
        const result = results[i];
        const answer = answerOf(result);
        if ('failed' in answer) return answer.failed;
        columnsOut[`${prefix}${level}_name`] = answer.value.name;
        columnsOut[`${prefix}${level}_key`] = answer.value.key;
        columnsOut[`${prefix}${level}_level`] = answer.value.level;
      }
      return { ok: true, records: [{ columns: columnsOut, geometry: pointGeometry(row, options.mapping) }] };
    },
  };
}

export const boundariesKind = defineJobKind({
  name: 'boundaries',
  summary: 'coordinates -> the administrative areas that cover them',
  mappingFields: POINT_FIELDS,
  mappingRequired: false,
  options: z.strictObject({
    prefix,
    levels: z.array(z.number().int().min(0).max(11)).min(1).optional(),
    batchSize: positiveInt.max(AREA_MAX_POINTS).optional(),
    /** false: one GET per row and level, for comparison and for services without the POST form. */
    spatialIndex: z.boolean().optional(),
    lingerMs,
  }),
  optionsRequired: false,
  services: ['area'],
  docs: {
    mapping: '`lon`, `lat` (as above)',
    options: {
      prefix: '`admin`',
      levels: '[4, 6]',
      batchSize: '100',
      spatialIndex: 'true',
      lingerMs: '50',
    },
  },
  create: ({ client, mapping, options }) => createBoundariesJob(client, { mapping, ...options }),
});

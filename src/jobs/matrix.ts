/**
 * matrix: distance and travel time per origin/destination pair, from one MATRIX request per
 * origin with its destinations tiled (`tileSize` per request) and stitched back by key.
 *
 * Two input shapes:
 * - pairs: each row holds an origin and a destination; rows sharing an origin share requests;
 * - cross: each row is an origin, the destinations come from a second file; each origin row
 *   becomes one output row per destination (long form).
 * Requests: origins x ceil(destinations / tileSize).
 */
import type { LineString } from 'geojson';
import { z } from 'zod';
import type { SpeedProfile } from '../contract/index.js';
import { SPEED_PROFILES } from '../contract/index.js';
import type { ItemResult, Job, RenderResult } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import { DEFAULT_MAX_DESTINATIONS, type Destination, readDestinations } from './_destinations.js';
import { isPlanIssue, type Mapping, pointKey, readPoint, resolveMapping } from './_fields.js';
import { defineJobKind, type SideInput } from './_kind.js';
import {
  DELIMITERS,
  ENCODINGS,
  INPUT_FORMATS,
  lingerMs,
  mappingSchema,
  positiveInt,
  prefix,
} from './_options.js';
import type { MatrixCell, MatrixPort } from './_ports.js';
import { answerOf } from './_single.js';

export interface MatrixJobOptions {
  readonly mapping: Mapping;
  /** @default '' */
  readonly prefix?: string;
  /** Cross mode: every origin row against these destinations, in this order. */
  readonly destinations?: readonly Destination[];
  /** Destinations per MATRIX request. @default 100 */
  readonly tileSize?: number;
  /** @default 'FAST' */
  readonly speedProfile?: SpeedProfile;
  /** @default 50 */
  readonly lingerMs?: number;
}

export interface PairItem {
  readonly origin: LonLat;
  readonly destination: LonLat;
}

function line(origin: LonLat, destination: LonLat): LineString {
  return { type: 'LineString', coordinates: [[...origin], [...destination]] };
}

export function createMatrixJob(client: MatrixPort, options: MatrixJobOptions): Job<PairItem, MatrixCell> {
  const prefix = options.prefix ?? '';
  const profile = options.speedProfile ?? 'FAST';
  const destinations = options.destinations;
  const key = (item: PairItem) => `${pointKey(item.origin)}>${pointKey(item.destination)}`;
  const cross = destinations !== undefined;
  const names = cross
    ? ['destination_id', 'destination_lon', 'destination_lat', 'distance_m', 'duration_s']
    : ['distance_m', 'duration_s'];

  const origin = (row: Row) =>
    readPoint(row, options.mapping, cross ? {} : { lon: 'originLon', lat: 'originLat', geometry: false });

  function renderCross(point: LonLat, results: readonly ItemResult<MatrixCell>[]): RenderResult {
    const records = [];
    for (const [i, destination] of (destinations ?? []).entries()) {
      const result = results[i];
      const answer = answerOf(result);
      if ('failed' in answer) return answer.failed;
      records.push({
        columns: {
          [`${prefix}destination_id`]: destination.id,
          [`${prefix}destination_lon`]: destination.point[0],
          [`${prefix}destination_lat`]: destination.point[1],
          [`${prefix}distance_m`]: answer.value.distance_m,
          [`${prefix}duration_s`]: answer.value.duration_s,
        },
        geometry: line(point, destination.point),
      });
    }
    // A row with no destinations still leaves one output row, so every input row is accounted for.
    if (records.length === 0) records.push({ columns: {}, geometry: null });
    return { ok: true, records };
  }

  return {
    kind: 'matrix',
    columns: names.map((name) => `${prefix}${name}`),
    plan(row) {
      const from = origin(row);
      if (isPlanIssue(from)) return from;
      if (destinations !== undefined)
        return destinations.map((d) => ({ origin: from, destination: d.point }));
      const to = readPoint(row, options.mapping, {
        lon: 'destinationLon',
        lat: 'destinationLat',
        geometry: false,
      });
      return isPlanIssue(to) ? to : [{ origin: from, destination: to }];
    },
    key,
    batching: {
      maxItems: options.tileSize ?? 100,
      lingerMs: options.lingerMs ?? 50,
      group: (item) => pointKey(item.origin),
    },
    async execute(items, signal) {
      const first = items[0];
      const out = new Map<string, ItemResult<MatrixCell>>();
      if (first === undefined) return out;
      const cells = await client.routing.matrix(
        first.origin,
        items.map((item) => item.destination),
        { signal, speedProfile: profile },
      );
      items.forEach((item, i) => {
        const value = cells[i];
        out.set(
          key(item),
          value === undefined
            ? {
                ok: false,
                failure: {
                  code: 'RESPONSE_INVALID',
                  stage: 'response',
                  message: `matrix answer has no entry ${i}`,
                },
              }
            : { ok: true, value },
        );
      });
      return out;
    },
    render(row, results) {
      const from = origin(row);
      if (isPlanIssue(from))
        return { ok: false, failure: { code: 'INTERNAL', stage: 'response', message: from.message } };
      if (cross) return renderCross(from, results);
      const [result] = results;
      const answer = answerOf(result);
      if ('failed' in answer) return answer.failed;
      const to = readPoint(row, options.mapping, {
        lon: 'destinationLon',
        lat: 'destinationLat',
        geometry: false,
      }) as LonLat;
      return {
        ok: true,
        records: [
          {
            columns: {
              [`${prefix}distance_m`]: answer.value.distance_m,
              [`${prefix}duration_s`]: answer.value.duration_s,
            },
            geometry: line(from, to),
          },
        ],
      };
    },
  };
}

/** Reads the destination id for cross mode: the mapped id column, else the 1-based row number. */

const destinationsSchema = z.strictObject({
  path: z.string().min(1),
  format: z.enum(INPUT_FORMATS).optional(),
  delimiter: z.enum(DELIMITERS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  mapping: mappingSchema(['lon', 'lat', 'id']).optional(),
  /** Refuse destination files bigger than this many rows: they are held in memory. */
  maxRows: positiveInt.optional(),
});

export const matrixKind = defineJobKind({
  name: 'matrix',
  summary: 'distance and travel time per origin/destination pair',
  /** Pairs mode: origin and destination columns; cross mode: the origin's lon/lat. */
  mappingFields: ['originLon', 'originLat', 'destinationLon', 'destinationLat', 'lon', 'lat'],
  mappingRequired: false,
  options: z.strictObject({
    prefix,
    /** Origins file x destinations file, instead of one origin/destination pair per row. */
    destinations: destinationsSchema.optional(),
    tileSize: positiveInt.max(1000).optional(),
    speedProfile: z
      .enum(SPEED_PROFILES as readonly SpeedProfile[] as [SpeedProfile, ...SpeedProfile[]])
      .optional(),
    lingerMs,
  }),
  optionsRequired: false,
  services: ['geojson'],
  docs: {
    mapping:
      'pairs: `originLon`, `originLat`, `destinationLon`, `destinationLat`; cross: `lon`, `lat` of the origin',
    options: {
      prefix: 'none',
      destinations: `{ \`path\`, \`format\`, \`delimiter\`, \`encoding\`, \`mapping\` { \`lon\`, \`lat\`, \`id\` }, \`maxRows\` (${DEFAULT_MAX_DESTINATIONS}) }`,
      tileSize: '100',
      speedProfile: '`FAST`',
      lingerMs: '50',
    },
  },
  sideInputs(options) {
    const inputs: Record<string, SideInput> = {};
    if (options.destinations !== undefined) inputs.destinations = options.destinations;
    return inputs;
  },
  async create({ client, mapping, options, readRows, resolvePath }) {
    const { destinations: file, ...rest } = options;
    const destinations =
      file === undefined
        ? undefined
        : await readDestinations(readRows(file), file, resolvePath(file.path), resolveMapping(file.mapping));
    return createMatrixJob(client, { mapping, ...rest, destinations });
  },
});

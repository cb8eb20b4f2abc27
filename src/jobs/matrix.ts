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
import type { SpeedProfile } from '../contract/index.js';
import type { ItemResult, Job, RenderResult } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import { isPlanIssue, type Mapping, pointKey, readPoint, readText } from './_fields.js';
import type { MatrixCell, MatrixPort } from './_ports.js';
import { answerOf } from './_single.js';

export interface Destination {
  readonly id: string;
  readonly point: LonLat;
}

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
export function destinationId(row: Row, mapping: Mapping): string {
  return readText(row, mapping, 'id') ?? String(row.ref.index + 1);
}

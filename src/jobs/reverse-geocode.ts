/**
 * reverse-geocode: lon/lat (columns or Point geometry) -> the address the service places there.
 * One request per distinct point (to 1e-6 degrees).
 */
import type { ItemResult, Job } from '../engine/job.js';
import type { LonLat } from '../types.js';
import { isPlanIssue, type Mapping, pointGeometry, pointKey, readPoint } from './_fields.js';
import type { GeocodeResult, ReverseGeocodePort } from './_ports.js';
import { matchColumnNames, matchColumns, noMatch } from './geocode.js';

export interface ReverseGeocodeJobOptions {
  readonly mapping: Mapping;
  /** @default 'rev_' */
  readonly prefix?: string;
}

export function createReverseGeocodeJob(
  client: ReverseGeocodePort,
  options: ReverseGeocodeJobOptions,
): Job<LonLat, GeocodeResult> {
  const prefix = options.prefix ?? 'rev_';
  return {
    kind: 'reverse-geocode',
    columns: matchColumnNames(prefix),
    plan(row) {
      const point = readPoint(row, options.mapping);
      return isPlanIssue(point) ? point : [point];
    },
    key: pointKey,
    async execute(items, signal) {
      const results = new Map<string, ItemResult<GeocodeResult>>();
      for (const item of items) {
        results.set(pointKey(item), { ok: true, value: await client.reverseGeocode(item, { signal }) });
      }
      return results;
    },
    render(row, [result]) {
      if (result === undefined || !result.ok) {
        return {
          ok: false,
          failure: result?.failure ?? { code: 'INTERNAL', stage: 'response', message: 'no result' },
        };
      }
      const match = result.value.match;
      if (match === null) return { ok: false, failure: noMatch(result.value) };
      // The row keeps its own position; the matched place's coordinates are columns.
      return {
        ok: true,
        records: [{ columns: matchColumns(prefix, match), geometry: pointGeometry(row, options.mapping) }],
      };
    },
  };
}

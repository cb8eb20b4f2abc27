/**
 * Elevation: one point by GET, up to 500 by POST. The response field names are not shown in the
 * spec, so the answer is read defensively and normalised to one number (metres) or null per point.
 */

import type { ElevationRequest } from '../contract/index.js';
import { ELEVATION_MAX_POINTS } from '../contract/index.js';
import { UsageError } from '../errors.js';
import type { LonLat } from '../types.js';
import type { CallOptions, ClientContext } from './_context.js';
import { invalid, toNumber } from './_parse.js';
import { buildQuery } from './_query.js';
import { checkPoints } from './coords.js';

const PATH = '/api/v2/Elevation/point';
/** Where the list of values may sit (contract/elevation.ts EMULATOR CHOICE: `points`). */
const LIST_KEYS = ['points', 'elevations', 'results', 'heights', 'data'] as const;
/** What one value may be called. */
const VALUE_KEYS = ['elevation', 'height', 'altitude', 'value', 'elevationInMeters'] as const;
/** SRTM void and a common "no data" marker: not heights. */
const NO_DATA: ReadonlySet<number> = new Set([-32768, -9999]);

/** The elevation of one point in metres, or null where the service has no data. */
export async function elevationPoint(ctx: ClientContext, p: LonLat, o?: CallOptions): Promise<number | null> {
  checkPoints('elevation', [p]);
  const query = buildQuery({ latitude: p[1], longitude: p[0], channel: ctx.options.channel });
  const values = await ctx.transport.call(
    {
      service: 'elevation',
      method: 'GET',
      base: ctx.base('elevation'),
      path: PATH,
      query,
      parse: (json) => readElevations(json, 1),
    },
    o?.signal,
  );
  return values[0] ?? null;
}

/** Elevations of up to 500 points, in the order given. More throws a UsageError before sending. */
export async function elevationPoints(
  ctx: ClientContext,
  ps: readonly LonLat[],
  o?: CallOptions,
): Promise<(number | null)[]> {
  if (ps.length > ELEVATION_MAX_POINTS) {
    throw new UsageError(
      `elevation takes at most ${ELEVATION_MAX_POINTS} points per request, got ${ps.length}: split the batch`,
      { service: 'elevation', expected: `<= ${ELEVATION_MAX_POINTS} points`, received: String(ps.length) },
    );
  }
  if (ps.length === 0) return [];
  checkPoints('elevation', ps);
  const body: ElevationRequest = { points: ps.map((p) => ({ latitude: p[1], longitude: p[0] })) };
  const channel = ctx.options.channel;
  return ctx.transport.call(
    {
      service: 'elevation',
      method: 'POST',
      base: ctx.base('elevation'),
      path: PATH,
      query: buildQuery({ channel }),
      body: JSON.stringify(body),
      parse: (json) => readElevations(json, ps.length),
    },
    o?.signal,
  );
}

/**
 * Reads `expected` values from an answer shaped `{ points: [...] }` (or `elevations`/`results`),
 * a top-level array, or, for one point, an object holding the value itself. Each value may be a
 * bare number or an object with `elevation`/`height`/`altitude`/`value`.
 */
export function readElevations(json: unknown, expected: number): (number | null)[] {
  let list: unknown[] | undefined;
  let key: string | undefined;
  if (Array.isArray(json)) list = json;
  else if (json !== null && typeof json === 'object') {
    const record = json as Record<string, unknown>;
    key = LIST_KEYS.find((k) => Array.isArray(record[k]));
    if (key !== undefined) list = record[key] as unknown[];
    else if (expected === 1 && VALUE_KEYS.some((k) => k in record)) list = [record];
  } else if (expected === 1 && typeof json === 'number') list = [json];
  if (list === undefined) {
    return invalid('elevation', [], `an object with ${LIST_KEYS.join('/')} or an array`, json);
  }
  const base = key === undefined ? [] : [key];
  if (list.length !== expected) return invalid('elevation', base, `${expected} values`, list);
  const values = new Array<number | null>(list.length);
  for (let i = 0; i < list.length; i++) values[i] = readValue(list[i], base, i);
  return values;
}

/** The value of `list[i]`; its path in the answer is built only to name a failure (500 a request). */
function readValue(item: unknown, base: readonly string[], i: number): number | null {
  let value: unknown = item;
  let key: string | undefined;
  if (item !== null && typeof item === 'object' && !Array.isArray(item)) {
    const record = item as Record<string, unknown>;
    key = VALUE_KEYS.find((k) => k in record);
    if (key === undefined) return invalid('elevation', [...base, i], `one of ${VALUE_KEYS.join('/')}`, item);
    value = record[key];
  }
  if (value === null) return null;
  const n = toNumber(value);
  if (n === undefined) {
    return invalid(
      'elevation',
      key === undefined ? [...base, i] : [...base, i, key],
      'a number or null',
      value,
    );
  }
  return NO_DATA.has(n) ? null : n;
}

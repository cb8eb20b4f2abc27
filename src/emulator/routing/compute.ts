/** ROUTE, MATRIX and TRIP answers (feature layouts: the EMULATOR CHOICE comment in contract/routing.ts). */
import type { CoordFormat } from '../../contract/index.js';
import { toFormat } from '../lib/_coords.js';
import type { Leg, Profile } from './profiles.js';
import { leg, rounded, sum } from './profiles.js';
import type { Position } from './request.js';

export interface Collection {
  type: 'FeatureCollection';
  bbox?: number[];
  properties?: Record<string, unknown>;
  features: {
    type: 'Feature';
    geometry: { type: string; coordinates: unknown } | null;
    properties: Record<string, unknown>;
  }[];
}

export const out = (format: CoordFormat, p: readonly number[]): number[] =>
  toFormat(format, p[0] ?? 0, p[1] ?? 0);

/** Bounding box in the output format of every position given. */
export function outBox(format: CoordFormat, points: readonly (readonly number[])[]): number[] | undefined {
  if (points.length === 0) return undefined;
  const xs = points.map((p) => out(format, p));
  return [
    Math.min(...xs.map((p) => p[0] ?? 0)),
    Math.min(...xs.map((p) => p[1] ?? 0)),
    Math.max(...xs.map((p) => p[0] ?? 0)),
    Math.max(...xs.map((p) => p[1] ?? 0)),
  ];
}

function path(profile: Profile, points: readonly Position[]): { legs: Leg[]; total: Leg } {
  const legs: Leg[] = [];
  for (let i = 0; i + 1 < points.length; i++)
    legs.push(leg(profile, points[i] as Position, points[i + 1] as Position));
  return { legs, total: sum(legs) };
}

/** One LineString through `line`, with the total on the collection and on the feature. */
function lineCollection(
  format: CoordFormat,
  box: readonly Position[],
  line: readonly Position[],
  total: Leg,
  extra: Record<string, unknown>,
): Collection {
  return {
    type: 'FeatureCollection',
    bbox: outBox(format, box),
    properties: { ...rounded(total) },
    features: [
      {
        type: 'Feature',
        geometry: { type: 'LineString', coordinates: line.map((p) => out(format, p)) },
        properties: { ...rounded(total), ...extra },
      },
    ],
  };
}

export function route(profile: Profile, format: CoordFormat, points: Position[]): Collection {
  const { legs, total } = path(profile, points);
  return lineCollection(format, points, points, total, { legs: legs.map(rounded) });
}

export function matrix(profile: Profile, format: CoordFormat, start: Position, ends: Position[]): Collection {
  return {
    type: 'FeatureCollection',
    bbox: outBox(format, [start, ...ends]),
    features: ends.map((end, index) => ({
      type: 'Feature',
      geometry: { type: 'Point', coordinates: out(format, end) },
      properties: { index, ...rounded(leg(profile, start, end)) },
    })),
  };
}

/** Nearest-neighbour tour from the first point; with roundTrip it returns to the start. */
export function trip(
  profile: Profile,
  format: CoordFormat,
  points: Position[],
  roundTrip: boolean,
): Collection {
  const order = [0];
  const left = new Set(points.keys());
  left.delete(0);
  while (left.size > 0) {
    const here = points[order[order.length - 1] as number] as Position;
    let best = -1;
    let bestD = Number.POSITIVE_INFINITY;
    for (const i of left) {
      const d = leg(profile, here, points[i] as Position).distance;
      if (d < bestD) {
        best = i;
        bestD = d;
      }
    }
    order.push(best);
    left.delete(best);
  }
  if (roundTrip) order.push(0);
  const visited = order.map((i) => points[i] as Position);
  const { legs, total } = path(profile, visited);
  // EMULATOR CHOICE: legs in visiting order, as ROUTE gives them, so a stop's arrival can be told.
  return lineCollection(format, points, visited, total, { order, legs: legs.map(rounded) });
}

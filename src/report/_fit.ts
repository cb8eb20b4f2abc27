/**
 * Fits a geometry into a vertex budget for the map: coordinates rounded to 1e-5° (about 1 m),
 * lines and rings simplified (Douglas-Peucker, @turf/simplify) with a tolerance doubled until the
 * budget holds, parts and holes smaller than the tolerance dropped (a coastline of ten thousand
 * islands cannot be simplified below four vertices an island otherwise). Whatever cannot be
 * brought under the budget becomes its bounding box: the map shows where it is, never nothing.
 */
import { simplify } from '@turf/simplify';
import type { Geometry, Polygon, Position } from 'geojson';

const MAX_ROUNDS = 40;

export function countVertices(geometry: Geometry): number {
  switch (geometry.type) {
    case 'Point':
      return 1;
    case 'MultiPoint':
    case 'LineString':
      return geometry.coordinates.length;
    case 'MultiLineString':
    case 'Polygon':
      return sum(geometry.coordinates.map((line) => line.length));
    case 'MultiPolygon':
      return sum(geometry.coordinates.map((polygon) => sum(polygon.map((ring) => ring.length))));
    case 'GeometryCollection':
      return sum(geometry.geometries.map(countVertices));
  }
}

export function fitGeometry(geometry: Geometry, maxVertices: number): Geometry {
  const rounded = roundGeometry(geometry);
  if (countVertices(rounded) <= maxVertices) return rounded;
  if (rounded.type === 'GeometryCollection') {
    const share = Math.max(1, Math.floor(maxVertices / Math.max(rounded.geometries.length, 1)));
    const geometries = rounded.geometries.map((member) => fitGeometry(member, share));
    const fitted: Geometry = { type: 'GeometryCollection', geometries };
    return countVertices(fitted) <= maxVertices ? fitted : boxOf(rounded);
  }
  if (rounded.type === 'MultiPoint')
    return { type: 'MultiPoint', coordinates: thin(rounded.coordinates, maxVertices) };
  let tolerance = diagonal(rounded) / (maxVertices * 4) || 1e-5;
  for (let attempt = 0; attempt < MAX_ROUNDS; attempt++, tolerance *= 2) {
    const simplified = simplifyOnce(rounded, tolerance);
    if (simplified !== undefined && countVertices(simplified) <= maxVertices) return simplified;
  }
  return boxOf(rounded);
}

/** One pass at `tolerance`; undefined when @turf/simplify refuses the shape (a ring of < 4 positions). */
function simplifyOnce(geometry: Geometry, tolerance: number): Geometry | undefined {
  const pruned = prune(geometry, tolerance);
  try {
    return roundGeometry(simplify(pruned, { tolerance, highQuality: false }));
  } catch {
    return undefined;
  }
}

/** Drops lines, polygon parts and holes whose extent is below the tolerance (keeping the largest). */
function prune(geometry: Geometry, tolerance: number): Geometry {
  switch (geometry.type) {
    case 'MultiLineString':
      return {
        type: 'MultiLineString',
        coordinates: keepLarge(geometry.coordinates, extent, tolerance),
      };
    case 'Polygon':
      return { type: 'Polygon', coordinates: withoutSmallHoles(geometry.coordinates, tolerance) };
    case 'MultiPolygon': {
      const parts = keepLarge(geometry.coordinates, (p) => extent(p[0] ?? []), tolerance);
      return { type: 'MultiPolygon', coordinates: parts.map((p) => withoutSmallHoles(p, tolerance)) };
    }
    default:
      return geometry;
  }
}

function keepLarge<T>(items: readonly T[], size: (item: T) => number, tolerance: number): T[] {
  const large = items.filter((item) => size(item) >= tolerance);
  if (large.length > 0) return large;
  const largest = items.reduce<T | undefined>(
    (a, b) => (a === undefined || size(b) > size(a) ? b : a),
    undefined,
  );
  return largest === undefined ? [] : [largest];
}

function withoutSmallHoles(rings: Polygon['coordinates'], tolerance: number): Polygon['coordinates'] {
  const [outer, ...holes] = rings;
  return outer === undefined ? [] : [outer, ...holes.filter((ring) => extent(ring) >= tolerance)];
}

/** Evenly spaced members, first and last included. */
function thin(points: readonly Position[], max: number): Position[] {
  if (points.length <= max) return points.slice();
  if (max <= 1) return points.slice(0, Math.max(max, 1));
  const step = (points.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => points[Math.round(i * step)] as Position);
}

/** A copy with every coordinate rounded to `decimals` places (5: about 1 m). */
export function roundGeometry(geometry: Geometry, decimals = 5): Geometry {
  const factor = 10 ** decimals;
  const roundDeep = (value: unknown): unknown =>
    typeof value === 'number'
      ? Math.round(value * factor) / factor
      : Array.isArray(value)
        ? value.map(roundDeep)
        : value;
  if (geometry.type === 'GeometryCollection')
    return {
      type: 'GeometryCollection',
      geometries: geometry.geometries.map((g) => roundGeometry(g, decimals)),
    };
  return { ...geometry, coordinates: roundDeep(geometry.coordinates) } as Geometry;
}

function positions(geometry: Geometry): Position[] {
  if (geometry.type === 'GeometryCollection') return geometry.geometries.flatMap(positions);
  return flatten(geometry.coordinates);
}

function flatten(value: unknown): Position[] {
  if (Array.isArray(value) && typeof value[0] === 'number') return [value as Position];
  return Array.isArray(value) ? value.flatMap(flatten) : [];
}

function bounds(geometry: Geometry): [number, number, number, number] | undefined {
  const all = positions(geometry);
  if (all.length === 0) return undefined;
  let [w, s, e, n] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x = 0, y = 0] of all)
    [w, s, e, n] = [Math.min(w, x), Math.min(s, y), Math.max(e, x), Math.max(n, y)];
  return [w, s, e, n];
}

function extent(ring: readonly Position[]): number {
  return diagonal({ type: 'LineString', coordinates: ring as Position[] });
}

function diagonal(geometry: Geometry): number {
  const b = bounds(geometry);
  return b === undefined ? 0 : Math.hypot(b[2] - b[0], b[3] - b[1]);
}

function boxOf(geometry: Geometry): Geometry {
  const b = bounds(geometry);
  if (b === undefined) return geometry;
  const [w, s, e, n] = b;
  if (w === e && s === n) return { type: 'Point', coordinates: [w, s] };
  return {
    type: 'Polygon',
    coordinates: [
      [
        [w, s],
        [e, s],
        [e, n],
        [w, n],
        [w, s],
      ],
    ],
  };
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

/**
 * The geometry the routing kinds write: areas, lengths, WKT for CSV, and cutting a line where a
 * point lies on it (stitching a track matched in windows). Rings are wound in _polygons.ts.
 */
import type { Geometry, LineString, MultiLineString, MultiPolygon, Polygon, Position } from 'geojson';

/** WGS84 semi-major axis: the sphere @turf/area and most GIS tools measure areas on. */
const RADIUS = 6_378_137;
/** Mean radius, for lengths (the emulator's great circles use it too). */
const MEAN_RADIUS = 6_371_008.8;

const rad = (deg: number) => (deg * Math.PI) / 180;

/**
 * The longitude step from `from` to `to` the short way round, in degrees: a ring or a line that
 * crosses the antimeridian goes from 179.9 to -179.9, a step of 0.2°, not of -359.8°.
 */
export function lonStep(from: number, to: number): number {
  const step = to - from;
  if (step > 180) return step - 360;
  if (step < -180) return step + 360;
  return step;
}

/**
 * Area of a ring on the sphere, in m² (the spherical-excess sum @turf/area uses), its longitudes
 * taken step by step the short way round (lonStep): summed as written, a ring across the
 * antimeridian measured 883,799 km² for a 418 km² isochrone. A ring whose steps go once round the
 * globe encloses a pole, and the sum is then the area between it and the equator: the ring's own
 * is the hemisphere's less that.
 */
function ringArea(ring: readonly Position[]): number {
  const n = ring.length;
  if (n < 3) return 0;
  let total = 0;
  let round = 0;
  for (let i = 0; i < n; i++) {
    const lower = ring[i] as Position;
    const middle = ring[(i + 1) % n] as Position;
    const upper = ring[(i + 2) % n] as Position;
    const before = lonStep(lower[0] ?? 0, middle[0] ?? 0);
    total += rad(before + lonStep(middle[0] ?? 0, upper[0] ?? 0)) * Math.sin(rad(middle[1] ?? 0));
    round += before;
  }
  const area = Math.abs((total * RADIUS * RADIUS) / 2);
  return Math.abs(round) > 180 ? 2 * Math.PI * RADIUS * RADIUS - area : area;
}

function polygonArea(rings: readonly (readonly Position[])[]): number {
  const [outer, ...holes] = rings;
  if (outer === undefined) return 0;
  return Math.max(0, ringArea(outer) - holes.reduce((sum, hole) => sum + ringArea(hole), 0));
}

/** Area in km², holes subtracted. */
export function areaKm2(geometry: Polygon | MultiPolygon): number {
  const m2 =
    geometry.type === 'Polygon'
      ? polygonArea(geometry.coordinates)
      : geometry.coordinates.reduce((sum, polygon) => sum + polygonArea(polygon), 0);
  return m2 / 1e6;
}

/** Great-circle metres between two positions. */
export function metres(a: Position, b: Position): number {
  const dLat = rad((b[1] ?? 0) - (a[1] ?? 0));
  const dLon = rad((b[0] ?? 0) - (a[0] ?? 0));
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(rad(a[1] ?? 0)) * Math.cos(rad(b[1] ?? 0)) * Math.sin(dLon / 2) ** 2;
  return 2 * MEAN_RADIUS * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Length of a path in metres. */
export function pathLength(path: readonly Position[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < path.length; i++) sum += metres(path[i] as Position, path[i + 1] as Position);
  return sum;
}

/** The positions of a line, a multi-line read as one path. */
export function pathOf(line: LineString | MultiLineString | null): Position[] {
  if (line === null) return [];
  return line.type === 'LineString' ? line.coordinates : line.coordinates.flat();
}

/**
 * The part of `path` after the point nearest to `at` (that point first). Segments are measured in a
 * plane scaled by cos(latitude), fine at the metre scale of a seam; on a tie the earlier segment
 * wins, so a track that passes the same place twice is cut at its first pass.
 */
export function pathAfter(path: readonly Position[], at: Position): Position[] {
  if (path.length < 2) return path.map((p) => [...p]);
  const k = Math.cos(rad(at[1] ?? 0));
  let best = { distance: Number.POSITIVE_INFINITY, segment: 0, point: path[0] as Position };
  for (let i = 0; i + 1 < path.length; i++) {
    const a = path[i] as Position;
    const b = path[i + 1] as Position;
    const [ax, ay, bx, by, px, py] = [
      (a[0] ?? 0) * k,
      a[1] ?? 0,
      (b[0] ?? 0) * k,
      b[1] ?? 0,
      (at[0] ?? 0) * k,
      at[1] ?? 0,
    ];
    const dx = bx - ax;
    const dy = by - ay;
    const t =
      dx === 0 && dy === 0
        ? 0
        : Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
    const cx = ax + t * dx;
    const cy = ay + t * dy;
    const distance = (px - cx) ** 2 + (py - cy) ** 2;
    // On a vertex, the vertex itself (bit for bit), so that joining the pieces drops the duplicate.
    const point = t <= 1e-12 ? [...a] : t >= 1 - 1e-12 ? [...b] : [cx / k, cy];
    if (distance < best.distance) best = { distance, segment: i, point };
  }
  const rest = path.slice(best.segment + 1).map((p) => [...p]);
  const [next] = rest;
  const same = next !== undefined && next[0] === best.point[0] && next[1] === best.point[1];
  return same ? rest : [best.point, ...rest];
}

function wktPositions(positions: readonly Position[]): string {
  return positions.map((p) => `${p[0]} ${p[1]}`).join(', ');
}

function wktRings(rings: readonly (readonly Position[])[]): string {
  return rings.map((ring) => `(${wktPositions(ring)})`).join(', ');
}

/** The geometry as WKT (OGC simple features), for CSV cells; null for none. */
export function toWkt(geometry: Geometry | null): string | null {
  if (geometry === null) return null;
  switch (geometry.type) {
    case 'Point':
      return `POINT (${wktPositions([geometry.coordinates])})`;
    case 'LineString':
      return `LINESTRING (${wktPositions(geometry.coordinates)})`;
    case 'MultiLineString':
      return `MULTILINESTRING (${wktRings(geometry.coordinates)})`;
    case 'Polygon':
      return geometry.coordinates.length === 0
        ? 'POLYGON EMPTY'
        : `POLYGON (${wktRings(geometry.coordinates)})`;
    case 'MultiPolygon':
      if (geometry.coordinates.length === 0) return 'MULTIPOLYGON EMPTY';
      return `MULTIPOLYGON (${geometry.coordinates.map((p) => `(${wktRings(p)})`).join(', ')})`;
    default:
      return null;
  }
}

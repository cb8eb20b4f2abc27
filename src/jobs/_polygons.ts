/**
 * Polygons as geobatch writes them: wound as RFC 7946 section 3.1.6 asks (exterior rings
 * counter-clockwise, holes clockwise; the service does not promise either), and as WKT text for a
 * CSV column, in the output's coordinate format.
 */
import type { MultiPolygon, Polygon, Position } from 'geojson';
import type { CoordFormat } from '../contract/index.js';
import { outputXY } from './_coord-format.js';

/** Twice the signed area of a ring in the lon/lat plane: positive when counter-clockwise. */
function signedArea(ring: readonly Position[]): number {
  let sum = 0;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[j] as Position;
    const b = ring[i] as Position;
    sum += ((a[0] as number) - (b[0] as number)) * ((a[1] as number) + (b[1] as number));
  }
  return sum;
}

function wound(ring: readonly Position[], counterClockwise: boolean): Position[] {
  const ccw = signedArea(ring) > 0;
  return ccw === counterClockwise ? [...ring] : [...ring].reverse();
}

function rewindRings(rings: readonly (readonly Position[])[]): Position[][] {
  return rings.map((ring, i) => wound(ring, i === 0));
}

/** The same polygon with its exterior rings counter-clockwise and its holes clockwise. */
export function rewind<G extends Polygon | MultiPolygon>(geometry: G): G {
  if (geometry.type === 'Polygon') return { ...geometry, coordinates: rewindRings(geometry.coordinates) };
  return { ...geometry, coordinates: geometry.coordinates.map(rewindRings) };
}

/** West, south, east, north of every position. */
export function bboxOf(geometry: Polygon | MultiPolygon): [number, number, number, number] | null {
  const box: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  for (const polygon of polygons)
    for (const ring of polygon)
      for (const [x, y] of ring as [number, number][]) {
        box[0] = Math.min(box[0], x);
        box[1] = Math.min(box[1], y);
        box[2] = Math.max(box[2], x);
        box[3] = Math.max(box[3], y);
      }
  return Number.isFinite(box[0]) ? box : null;
}

/** The geometry with every position converted to `format` (GEODECIMAL_POINT: as it is). */
export function inFormat<G extends Polygon | MultiPolygon>(geometry: G, format: CoordFormat): G {
  if (format === 'GEODECIMAL_POINT') return geometry;
  const ring = (r: Position[]) => r.map((p) => outputXY([p[0] as number, p[1] as number], format));
  if (geometry.type === 'Polygon') return { ...geometry, coordinates: geometry.coordinates.map(ring) };
  return { ...geometry, coordinates: geometry.coordinates.map((polygon) => polygon.map(ring)) };
}

function wktRings(rings: readonly Position[][]): string {
  return `(${rings.map((ring) => `(${ring.map((p) => `${p[0]} ${p[1]}`).join(', ')})`).join(', ')})`;
}

/** OGC Well-Known Text (`POLYGON ((x y, ...))`), positions as they are in `geometry`. */
export function toWkt(geometry: Polygon | MultiPolygon): string {
  const name = geometry.type === 'Polygon' ? 'POLYGON' : 'MULTIPOLYGON';
  if (geometry.coordinates.length === 0) return `${name} EMPTY`;
  if (geometry.type === 'Polygon') return `POLYGON ${wktRings(geometry.coordinates)}`;
  return `MULTIPOLYGON (${geometry.coordinates.map(wktRings).join(', ')})`;
}

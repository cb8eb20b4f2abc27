/**
 * Polygons as geobatch writes them: wound as RFC 7946 section 3.1.6 asks (exterior rings
 * counter-clockwise, holes clockwise; the service does not promise either), their bounding box,
 * and in the output's coordinate format.
 */
import type { MultiPolygon, Polygon, Position } from 'geojson';
import type { CoordFormat } from '../contract/index.js';
import { outputXY } from './_coord-format.js';
import { lonStep } from './_geometry.js';
import { boxEdges } from './_rectangle.js';

/**
 * Twice the signed area of a ring in the lon/lat plane: positive when counter-clockwise. Its
 * longitudes are unwrapped step by step (lonStep), so that a ring across the antimeridian is
 * wound by its shape, not by the 360° jump in its numbers.
 */
function signedArea(ring: readonly Position[]): number {
  let sum = 0;
  let x = ring[0]?.[0] ?? 0;
  // From each position to the next, and from the last back to the first (nothing, when closed).
  for (let i = 1; i <= ring.length; i++) {
    const a = ring[i - 1] as Position;
    const b = ring[i % ring.length] as Position;
    const next = x + lonStep(a[0] as number, b[0] as number);
    sum += (x - next) * ((a[1] as number) + (b[1] as number));
    x = next;
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

/**
 * The box of `shape` (in `format`), grown to hold the area's own box (`area`, WGS84) where the
 * service sent one. A simplified outline (reduceGeometry, zoom) keeps a subset of the area's
 * corners, so its box falls short of the area's: a Karlsruhe district at zoom 3 lost 2 km in the
 * south. Its corners are converted one by one, which is exact for degrees and Mercator. Not for
 * SUPERKONFORM, whose lines of latitude bend: the converted corners of Germany's box put its west
 * edge 23 km west of any point of it. There a full outline's own box is exact and is kept
 * (`simplified` false); a simplified one's is grown to the area's box with its edges converted
 * point by point, which holds the area but may pass it by the edges' bend (some 80 m for a
 * district, kilometres for a state).
 */
export function areaBox(
  shape: Polygon | MultiPolygon,
  area: readonly [number, number, number, number] | undefined,
  format: CoordFormat,
  simplified = true,
): [number, number, number, number] | null {
  const box = bboxOf(shape);
  if (box === null || area === undefined) return box;
  if (format === 'SUPERKONFORM' && !simplified) return box;
  // SUPERKONFORM's edges bend: points along them, not the corners alone.
  for (const corner of boxEdges(area, format === 'SUPERKONFORM' ? 64 : 1)) {
    const [x, y] = outputXY(corner, format);
    box[0] = Math.min(box[0], x);
    box[1] = Math.min(box[1], y);
    box[2] = Math.max(box[2], x);
    box[3] = Math.max(box[3], y);
  }
  return box;
}

/** The geometry with every position converted to `format` (GEODECIMAL_POINT: as it is). */
export function inFormat<G extends Polygon | MultiPolygon>(geometry: G, format: CoordFormat): G {
  if (format === 'GEODECIMAL_POINT') return geometry;
  const ring = (r: Position[]) => r.map((p) => outputXY([p[0] as number, p[1] as number], format));
  if (geometry.type === 'Polygon') return { ...geometry, coordinates: geometry.coordinates.map(ring) };
  return { ...geometry, coordinates: geometry.coordinates.map((polygon) => polygon.map(ring)) };
}

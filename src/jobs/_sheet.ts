/**
 * Whether an area meets a SUPERKONFORM sheet (_rectangle.ts): the area interface takes a box of
 * degrees only, and the box holding a sheet meets areas the sheet does not (a band of districts
 * 100 km tall took in five wholly outside it). Tested in the sheet's own plane, where it is a
 * rectangle: an area meets it when a corner of the area lies in it, a corner of the sheet lies in
 * the area, or an edge of the area crosses the sheet. An edge between two of the area's corners is
 * taken as straight in the plane; boundaries have corners every few hundred metres.
 */
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import { fromWgs84 } from '../client/coords.js';
import { boxEdges, type Sheet } from './_rectangle.js';

export function meetsSheet(geometry: Polygon | MultiPolygon, sheet: Sheet): boolean {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  const planar = polygons.map((rings) =>
    rings.map((ring) => ring.map((p) => fromWgs84([p[0] as number, p[1] as number], sheet.format))),
  );
  const { west, south, east, north } = sheet;
  const inside = ([x, y]: readonly number[]) =>
    (x as number) >= west && (x as number) <= east && (y as number) >= south && (y as number) <= north;
  for (const rings of planar)
    for (const ring of rings) {
      if (ring.some(inside)) return true;
      for (let i = 1; i < ring.length; i++)
        if (crosses(ring[i - 1] as Position, ring[i] as Position, sheet)) return true;
    }
  const corners = [
    [west, south],
    [east, south],
    [east, north],
    [west, north],
  ];
  const shape = { type: 'MultiPolygon' as const, coordinates: planar };
  return corners.some((corner) => booleanPointInPolygon(corner, shape));
}

/** Points per edge of a box of degrees taken to the sheet's plane, where its edges bend. */
const BOX_EDGE_POINTS = 64;

/** Whether a box of degrees, [west, south, east, north], meets the sheet. */
export function boxMeetsSheet(box: readonly number[], sheet: Sheet): boolean {
  const ring: Position[] = boxEdges(box as [number, number, number, number], BOX_EDGE_POINTS);
  ring.push(ring[0] as Position);
  return meetsSheet({ type: 'Polygon', coordinates: [ring] }, sheet);
}

/** Whether the segment from `a` to `b` passes through the sheet (Liang-Barsky clipping). */
function crosses(a: Position, b: Position, { west, south, east, north }: Sheet): boolean {
  const [x0, y0] = a as [number, number];
  const dx = (b[0] as number) - x0;
  const dy = (b[1] as number) - y0;
  let low = 0;
  let high = 1;
  for (const [p, q] of [
    [-dx, x0 - west],
    [dx, east - x0],
    [-dy, y0 - south],
    [dy, north - y0],
  ] as const) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) low = Math.max(low, t);
    else high = Math.min(high, t);
    if (low > high) return false;
  }
  return true;
}

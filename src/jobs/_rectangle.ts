/**
 * A rectangle from four mapped columns (`west`, `south`, `east`, `north`), as the address search
 * and area interfaces take it: always WGS84 on the wire, whatever format the columns are in.
 */
import { fromWgs84, readCoordinateNumber, toWgs84 } from '../client/coords.js';
import type { CoordFormat } from '../contract/index.js';
import type { PlanIssue } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import { columnName } from './_column-name.js';
import type { ConstantCheck } from './_constants.js';
import { columnOf, fieldMark, isPlanIssue, type Mapping, readPoint, readText } from './_fields.js';

export interface Rectangle {
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
  /**
   * The rectangle as the columns give it, when they give it in SUPERKONFORM: there its edges are
   * curves in degrees, and the box above only holds it. What the service answers for the box is
   * taken back to the sheet (_sheet.ts), or the sheet itself is sent where the service takes it.
   */
  readonly sheet?: Sheet;
}

/** A rectangle in a projected format whose straight edges are not lines of longitude and latitude. */
export interface Sheet {
  readonly format: 'SUPERKONFORM';
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
}

/**
 * Points per edge converted to find the degree box holding a SUPERKONFORM sheet: a north edge of
 * 600 km bends 0.08 degrees between its corners and its middle; at 256 points the part of the
 * curve between two of them bends by a few decimetres, which MARGIN covers.
 */
const EDGE_POINTS = 256;
/** Degrees added around the box of the converted outline (about a metre). */
const MARGIN = 1e-5;

export const RECTANGLE_FIELDS = ['west', 'south', 'east', 'north'] as const;

/**
 * The WGS84 rectangle four columns describe. Each corner value is checked as a coordinate of
 * `format`; west must be less than east and south less than north (a swapped pair, or a rectangle
 * of no width or height, is named). GEODECIMAL and MERCATOR map a rectangle to a rectangle of
 * degrees, corner to corner. SUPERKONFORM does not: its edges bend in degrees, so the box of the
 * four converted corners left out a strip of the sheet (52.2027 N where the corners said 52.1226)
 * and took in land outside it. Its edges are converted point by point, the box holding them all
 * is taken, and the sheet is kept beside it, for the answers to be taken back to it.
 */
export function readRectangle(row: Row, mapping: Mapping, format?: CoordFormat): Rectangle | PlanIssue {
  const corner = (lon: string, lat: string) =>
    readPoint(row, mapping, { lon, lat, geometry: false, conventional: false, format });
  const sw = corner('west', 'south');
  if (isPlanIssue(sw)) return sw;
  const ne = corner('east', 'north');
  if (isPlanIssue(ne)) return ne;
  const order = misordered(row, mapping);
  if (order !== undefined) return order;
  if (format === undefined || format === 'GEODECIMAL_POINT') {
    return { west: sw[0], south: sw[1], east: ne[0], north: ne[1] };
  }
  const [x0, y0] = fromWgs84(sw, format);
  const [x1, y1] = fromWgs84(ne, format);
  if (format !== 'SUPERKONFORM') {
    const corners = [sw, ne, toWgs84([x0, y1], format), toWgs84([x1, y0], format)];
    return boxOf(corners);
  }
  const sheet: Sheet = { format, west: x0, south: y0, east: x1, north: y1 };
  const box = boxOf(sheetOutline(sheet));
  return {
    west: box.west - MARGIN,
    south: box.south - MARGIN,
    east: box.east + MARGIN,
    north: box.north + MARGIN,
    sheet,
  };
}

/**
 * `perEdge` points along each edge of a box, counter-clockwise from its south-west corner, the
 * corners included once: a box whose edges are to be taken to a plane where they bend.
 */
export function boxEdges(
  [west, south, east, north]: readonly [number, number, number, number],
  perEdge: number,
): [number, number][] {
  const edges = [
    [west, south, east, south],
    [east, south, east, north],
    [east, north, west, north],
    [west, north, west, south],
  ] as const;
  const points: [number, number][] = [];
  for (const [xa, ya, xb, yb] of edges)
    for (let i = 0; i < perEdge; i++) {
      const t = i / perEdge;
      points.push([xa + (xb - xa) * t, ya + (yb - ya) * t]);
    }
  return points;
}

/** The sheet's outline in degrees, EDGE_POINTS points an edge, counter-clockwise from south-west. */
export function sheetOutline(sheet: Sheet): LonLat[] {
  const { west, south, east, north } = sheet;
  return boxEdges([west, south, east, north], EDGE_POINTS).map((p) => toWgs84(p, sheet.format));
}

function boxOf(points: readonly (readonly [number, number])[]): Rectangle {
  return {
    west: Math.min(...points.map((c) => c[0])),
    south: Math.min(...points.map((c) => c[1])),
    east: Math.max(...points.map((c) => c[0])),
    north: Math.max(...points.map((c) => c[1])),
  };
}

/** Whether a point in degrees lies on or inside the sheet. */
export function inSheet(sheet: Sheet, point: LonLat): boolean {
  const [x, y] = fromWgs84(point, sheet.format);
  return x >= sheet.west && x <= sheet.east && y >= sheet.south && y <= sheet.north;
}

/**
 * West must be less than east and south less than north, compared as the columns give them (in a
 * projected format the converted corners' longitudes differ even for equal x). Equal values are a
 * rectangle of no width or height, not a swapped pair.
 */
function misordered(row: Row, mapping: Mapping): PlanIssue | undefined {
  const shown = (field: string) => `${columnOf(mapping, field) ?? field} ${readText(row, mapping, field)}`;
  // Already read as coordinates by readRectangle: only a number can come back here.
  const value = (field: string) =>
    readCoordinateNumber(readText(row, mapping, field), 'lon', field, '', fieldMark(row, mapping, field));
  const check = (low: 'west' | 'south', high: 'east' | 'north', side: string): PlanIssue | undefined => {
    const [a, b] = [value(low), value(high)];
    if (typeof a !== 'number' || typeof b !== 'number' || a < b) return undefined;
    const field = columnOf(mapping, low) ?? low;
    const why = a === b ? `the rectangle has no ${side}` : 'swapped?';
    return {
      code: 'FIELD_INVALID',
      field,
      message: `${columnName(field)}: expected ${low} to be less than ${high}, got ${shown(low)} and ${shown(high)} (${why})`,
    };
  };
  return check('west', 'east', 'width') ?? check('south', 'north', 'height');
}

/**
 * West before east and south before north, for constants: two constants in the wrong order fail
 * every row whatever the other two columns hold (each corner's range is checked as a point).
 */
export const RECTANGLE_CONSTANTS: readonly ConstantCheck[] = [
  { keys: ['west', 'east'], read: misordered },
  { keys: ['south', 'north'], read: misordered },
];

/** Rectangles equal to 1e-6 degrees are one request. */
export function rectangleKey(r: Rectangle): string {
  return [r.west, r.south, r.east, r.north].map((v) => v.toFixed(6)).join(',');
}

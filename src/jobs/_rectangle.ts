/**
 * A rectangle from four mapped columns (`west`, `south`, `east`, `north`), as the address search
 * and area interfaces take it: always WGS84 on the wire, whatever format the columns are in.
 */
import { fromWgs84, readCoordinateNumber, toWgs84 } from '../client/coords.js';
import type { CoordFormat } from '../contract/index.js';
import type { PlanIssue } from '../engine/job.js';
import type { Row } from '../types.js';
import type { ConstantCheck } from './_constants.js';
import { columnOf, fieldMark, isPlanIssue, type Mapping, readPoint, readText } from './_fields.js';

export interface Rectangle {
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
}

export const RECTANGLE_FIELDS = ['west', 'south', 'east', 'north'] as const;

/**
 * The WGS84 rectangle four columns describe. Each corner value is checked as a coordinate of
 * `format`; west must be less than east and south less than north (a swapped pair, or a rectangle
 * of no width or height, is named). In a projected format the rectangle's four corners are
 * converted and the WGS84 rectangle holding them all is taken (SUPERKONFORM's grid is not aligned
 * with meridians).
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
  const corners = [sw, ne, toWgs84([x0, y1], format), toWgs84([x1, y0], format)];
  return {
    west: Math.min(...corners.map((c) => c[0])),
    south: Math.min(...corners.map((c) => c[1])),
    east: Math.max(...corners.map((c) => c[0])),
    north: Math.max(...corners.map((c) => c[1])),
  };
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
      message: `${field}: expected ${low} to be less than ${high}, got ${shown(low)} and ${shown(high)} (${why})`,
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

/**
 * Whether a feature's geometry is one RFC 7946 allows, so that no output (GeoJSON, GeoPackage)
 * copies one a GIS cannot draw: positions of two or three finite numbers on the globe, a
 * LineString of two positions or more, Polygon rings closed and of four positions or more
 * (sections 3.1.1 to 3.1.7). Empty `coordinates` pass, as the RFC lets them stand for no geometry
 * (the reader then gives the row none: isEmptyGeometry);
 * ring orientation is only a SHOULD there, and self-intersection needs more than a reader
 * should spend a row on, so neither is checked.
 */
import type { Geometry } from 'geojson';
import { isPlainObject } from './_values.js';

/** Why `value` is not a valid GeoJSON geometry, or undefined when it is one. */
export function geometryProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'geometry is not an object';
  const { type, coordinates: c } = value;
  switch (type) {
    case 'GeometryCollection':
      return collectionProblem(value.geometries);
    case 'Point':
      if (Array.isArray(c) && c.length === 0) return undefined;
      return isPosition(c) ? rangeProblem(c, true) : structureProblem(c, type, 0);
    case 'MultiPoint':
      return list(c, type, 1) ?? first(c as number[][], (p) => rangeProblem(p));
    case 'LineString':
      return list(c, type, 1) ?? lineProblem(c as number[][], 'the LineString');
    case 'MultiLineString':
      return (
        list(c, type, 2) ??
        first(c as number[][][], (line, i) => lineProblem(line, `part ${i + 1} of the ${type}`))
      );
    case 'Polygon':
      return list(c, type, 2) ?? polygonProblem(c as number[][][], 'the Polygon');
    case 'MultiPolygon':
      return (
        list(c, type, 3) ??
        first(c as number[][][][], (p, i) => polygonProblem(p, `part ${i + 1} of the ${type}`))
      );
    default:
      return `unknown geometry type ${JSON.stringify(type)}`;
  }
}

function collectionProblem(geometries: unknown): string | undefined {
  if (!Array.isArray(geometries)) return 'GeometryCollection has no geometries array';
  return first(geometries, geometryProblem);
}

function isPosition(value: unknown): value is number[] {
  return (
    Array.isArray(value) &&
    value.length >= 2 &&
    value.length <= 3 &&
    value.every((n) => typeof n === 'number' && Number.isFinite(n))
  );
}

/** The structure: positions nested `depth` arrays deep, as the type says. */
function list(value: unknown, type: string, depth: number): string | undefined {
  const ok = (v: unknown, d: number): boolean =>
    d === 0 ? isPosition(v) : Array.isArray(v) && v.every((inner) => ok(inner, d - 1));
  return ok(value, depth) ? undefined : structureProblem(value, type, depth);
}

/** Longest part of a value a message quotes: a stray string may be a whole file. */
const QUOTED = 80;

/**
 * Where coordinates that are not positions nested `depth` arrays deep first go wrong, and what
 * they hold there: `expected coordinates[1] of the LineString to be a position of two or three
 * numbers, got [13.5]` (numbers as strings, `["13.4","52.5"]`, are the commonest).
 */
function structureProblem(value: unknown, type: string, depth: number): string {
  let at = value;
  let path = '';
  for (let d = depth; d > 0; d--) {
    if (!Array.isArray(at)) return `expected ${where(path, type)} to be an array, got ${quoted(at)}`;
    const i = at.findIndex((inner) => !fits(inner, d - 1));
    at = at[i];
    path += `[${i}]`;
  }
  return `expected ${where(path, type)} to be a position of two or three numbers, got ${quoted(at)}`;
}

function fits(value: unknown, depth: number): boolean {
  return depth === 0
    ? isPosition(value)
    : Array.isArray(value) && value.every((inner) => fits(inner, depth - 1));
}

const where = (path: string, type: string) =>
  path === '' ? `the coordinates of the ${type}` : `coordinates${path} of the ${type}`;

function quoted(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > QUOTED ? `${text.slice(0, QUOTED - 1)}…` : text;
}

/** The first problem of `items`, in order (an indexed loop: a polygon may have 100,000 positions). */
function first<T>(items: readonly T[], problem: (item: T, i: number) => string | undefined) {
  for (let i = 0; i < items.length; i++) {
    const found = problem(items[i] as T, i);
    if (found !== undefined) return found;
  }
  return undefined;
}

const shown = (position: readonly number[]) => JSON.stringify(position);

function rangeProblem(position: readonly number[], point = false): string | undefined {
  const [lon, lat] = position as [number, number];
  if (Math.abs(lon) <= 180 && Math.abs(lat) <= 90) return undefined;
  // As for coordinate columns: the commonest cause is a file written latitude first (a Point's
  // guess only: one corner of a polygon tells nothing of the others).
  const swapped =
    point && Math.abs(lat) <= 180 && Math.abs(lon) <= 90 ? ' (longitude and latitude swapped?)' : '';
  return `expected positions of a longitude from -180 to 180 and a latitude from -90 to 90, got ${shown(position)}${swapped}`;
}

function lineProblem(line: readonly number[][], name: string): string | undefined {
  if (line.length === 1) return `expected ${name} to have two positions or more, got one`;
  return first(line, (p) => rangeProblem(p));
}

function polygonProblem(rings: readonly number[][][], name: string): string | undefined {
  return first(rings, (ring, i) => {
    const [start] = ring;
    const end = ring[ring.length - 1];
    if (start === undefined || end === undefined)
      return `expected ring ${i + 1} of ${name} to have four positions or more, got none`;
    if (ring.length < 4)
      return `expected ring ${i + 1} of ${name} to have four positions or more, got ${ring.length}`;
    if (start.length !== end.length || start.some((n, k) => n !== end[k]))
      return `expected ring ${i + 1} of ${name} to be closed, ending at its first position ${shown(start)}, got ${shown(end)}`;
    return first(ring, (p) => rangeProblem(p));
  });
}

/**
 * A geometry whose `coordinates` are empty, which RFC 7946 (section 3.1) lets a reader take as a
 * null geometry: a Point `[]` then gives no lon/lat, and no output writes an empty shape.
 */
export function isEmptyGeometry(geometry: Geometry): boolean {
  return (
    'coordinates' in geometry && Array.isArray(geometry.coordinates) && geometry.coordinates.length === 0
  );
}

/** Checks one GeoJSON Feature (RFC 7946 structure, not geometry validity) and turns it into a row. */
import type { Geometry } from 'geojson';
import type { ReadItem, RowRef } from '../types.js';
import { isPlainObject, loneSurrogate, toFields } from './_values.js';

/** Nesting depth of positions in `coordinates`, per geometry type. */
const POSITION_DEPTH: Readonly<Record<string, number>> = {
  Point: 0,
  MultiPoint: 1,
  LineString: 1,
  MultiLineString: 2,
  Polygon: 2,
  MultiPolygon: 3,
};

function isPosition(value: unknown): boolean {
  return (
    Array.isArray(value) &&
    value.length >= 2 &&
    value.length <= 3 &&
    value.every((n) => typeof n === 'number' && Number.isFinite(n))
  );
}

function positionsOk(value: unknown, depth: number): boolean {
  if (depth === 0) return isPosition(value);
  return Array.isArray(value) && value.every((inner) => positionsOk(inner, depth - 1));
}

/** Why `value` is not a GeoJSON geometry, or undefined when it is one. */
export function geometryProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'geometry is not an object';
  const type = value.type;
  if (type === 'GeometryCollection') {
    if (!Array.isArray(value.geometries)) return 'GeometryCollection has no geometries array';
    for (const part of value.geometries) {
      const problem = geometryProblem(part);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  const depth = typeof type === 'string' ? POSITION_DEPTH[type] : undefined;
  if (depth === undefined) return `unknown geometry type ${JSON.stringify(type)}`;
  if (!positionsOk(value.coordinates, depth)) return `${type} coordinates are not valid positions`;
  return undefined;
}

function featureProblem(value: unknown): string | undefined {
  if (!isPlainObject(value)) return 'not an object';
  if (value.type !== 'Feature') return `type is ${JSON.stringify(value.type)}, not "Feature"`;
  if (!('geometry' in value)) return 'no geometry member';
  if (value.geometry !== null) {
    const problem = geometryProblem(value.geometry);
    if (problem !== undefined) return problem;
  }
  if (value.properties !== undefined && value.properties !== null && !isPlainObject(value.properties)) {
    return 'properties is not an object';
  }
  return undefined;
}

export function featureToItem(value: unknown, ref: RowRef): ReadItem {
  const problem = featureProblem(value);
  if (problem !== undefined) return invalid(value, ref, problem);
  const feature = value as { geometry: Geometry | null; properties?: Record<string, unknown> | null };
  const fields = toFields(feature.properties ?? {});
  const lone = loneSurrogate(fields, 'property');
  if (lone !== undefined) return invalid(value, ref, lone.message, lone.field);
  return { kind: 'row', ref, fields, geometry: feature.geometry };
}

function invalid(value: unknown, ref: RowRef, problem: string, field?: string): ReadItem {
  return {
    kind: 'issue',
    ref,
    stage: 'input',
    code: 'INPUT_MALFORMED',
    message: `Invalid GeoJSON feature: ${problem}`,
    // JSON text: raw numbers as written, a lone surrogate as its escape.
    raw: JSON.stringify(value) ?? String(value),
    ...(field === undefined ? {} : { field }),
  };
}

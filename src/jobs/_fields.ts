/**
 * Reading a job's request fields out of a row: mapped columns or constants, points from columns
 * or from a GeoJSON Point geometry. Every problem is a PlanIssue naming the field and what was
 * expected, so the row fails at stage `input` without costing a request.
 */

import type { Point } from 'geojson';
import type { FieldSource } from '../config/load.js';
import type { PlanIssue } from '../engine/job.js';
import type { FieldValue, LonLat, Row } from '../types.js';

export type Mapping = Readonly<Record<string, FieldSource>>;

/** The column a field is read from, for messages; constants have none. */
export function columnOf(mapping: Mapping, field: string): string | undefined {
  const source = mapping[field];
  return source !== undefined && 'column' in source ? source.column : undefined;
}

function asText(value: FieldValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value).trim();
  return text === '' ? undefined : text;
}

/** A mapped field's trimmed text, or undefined when unmapped, absent or blank. */
export function readText(row: Row, mapping: Mapping, field: string): string | undefined {
  const source = mapping[field];
  if (source === undefined) return undefined;
  if ('value' in source) return asText(source.value);
  return asText(row.fields[source.column]);
}

export function isPlanIssue(value: unknown): value is PlanIssue {
  return typeof value === 'object' && value !== null && 'code' in value && 'message' in value;
}

/**
 * Parses a coordinate written with a decimal point or, as German spreadsheets write it, a single
 * decimal comma (`8,4278`). Anything else is not a number.
 */
export function parseCoordinate(value: FieldValue | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  const text = asText(value);
  if (text === undefined) return undefined;
  const normalised = /^[-+]?\d+,\d+$/.test(text) ? text.replace(',', '.') : text;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(normalised)) return Number.NaN;
  return Number(normalised);
}

const LON_COLUMNS = ['lon', 'lng', 'longitude', 'x'];
const LAT_COLUMNS = ['lat', 'latitude', 'y'];

function pickColumn(row: Row, candidates: readonly string[]): string | undefined {
  const keys = Object.keys(row.fields);
  for (const candidate of candidates) {
    const found = keys.find((key) => key.toLowerCase() === candidate);
    if (found !== undefined) return found;
  }
  return undefined;
}

export interface PointFields {
  /** Mapping keys to read from (e.g. `originLon`/`originLat`); default `lon`/`lat`. */
  readonly lon?: string;
  readonly lat?: string;
  /** Use the row's GeoJSON Point geometry when the columns are absent. @default true */
  readonly geometry?: boolean;
}

function missing(field: string, expected: string): PlanIssue {
  return { code: 'FIELD_MISSING', field, message: `${field}: missing; expected ${expected}` };
}

function invalid(field: string, raw: FieldValue | undefined, expected: string): PlanIssue {
  return { code: 'FIELD_INVALID', field, message: `${field}: expected ${expected}, got \`${String(raw)}\`` };
}

/**
 * A [lon, lat] from the mapped columns, else from conventionally named columns (lon/lng/longitude,
 * lat/latitude), else from a Point geometry. Ranges are checked: a swapped or out-of-range pair is
 * a FIELD_INVALID naming the column.
 */
export function readPoint(row: Row, mapping: Mapping, names: PointFields = {}): LonLat | PlanIssue {
  const lonKey = names.lon ?? 'lon';
  const latKey = names.lat ?? 'lat';
  const lonColumn = columnOf(mapping, lonKey) ?? (mapping[lonKey] ? undefined : pickColumn(row, LON_COLUMNS));
  const latColumn = columnOf(mapping, latKey) ?? (mapping[latKey] ? undefined : pickColumn(row, LAT_COLUMNS));
  const lonRaw =
    mapping[lonKey] && 'value' in mapping[lonKey]
      ? mapping[lonKey].value
      : lonColumn && row.fields[lonColumn];
  const latRaw =
    mapping[latKey] && 'value' in mapping[latKey]
      ? mapping[latKey].value
      : latColumn && row.fields[latColumn];
  const lonName = lonColumn ?? lonKey;
  const latName = latColumn ?? latKey;
  if (asText(lonRaw ?? undefined) === undefined && asText(latRaw ?? undefined) === undefined) {
    const geometry = row.geometry;
    if (names.geometry !== false && geometry?.type === 'Point') {
      const [lon, lat] = geometry.coordinates;
      if (lon !== undefined && lat !== undefined) return checkRange(lon, lat, 'geometry', 'geometry');
    }
    return missing(
      lonName,
      `a longitude column (${lonKey}) and a latitude column (${latKey}), or a Point geometry`,
    );
  }
  const lon = parseCoordinate(lonRaw ?? undefined);
  const lat = parseCoordinate(latRaw ?? undefined);
  if (lon === undefined) return missing(lonName, 'a longitude in degrees');
  if (lat === undefined) return missing(latName, 'a latitude in degrees');
  if (Number.isNaN(lon)) return invalid(lonName, lonRaw ?? undefined, 'a longitude in decimal degrees');
  if (Number.isNaN(lat)) return invalid(latName, latRaw ?? undefined, 'a latitude in decimal degrees');
  return checkRange(lon, lat, lonName, latName);
}

function checkRange(lon: number, lat: number, lonName: string, latName: string): LonLat | PlanIssue {
  if (lat < -90 || lat > 90) {
    const hint = lon >= -90 && lon <= 90 && Math.abs(lat) <= 180 ? ' (latitude and longitude swapped?)' : '';
    return invalid(latName, lat, `a latitude between -90 and 90${hint}`);
  }
  if (lon < -180 || lon > 180) return invalid(lonName, lon, 'a longitude between -180 and 180');
  return [lon, lat];
}

/** Coordinates rounded to 1e-6 degrees (about 0.1 m): the precision two rows must share to be one request. */
export function pointKey([lon, lat]: LonLat): string {
  return `${lon.toFixed(6)},${lat.toFixed(6)}`;
}

/** A number for an output cell, or null (an empty cell) when there is none. */
export function cell(value: number | string | null | undefined): FieldValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return value;
}

/** The row's own point as a GeoJSON geometry (input geometry first), for GeoJSON output. */
export function pointGeometry(row: Row, mapping: Mapping, names: PointFields = {}): Point | undefined {
  if (row.geometry?.type === 'Point') return row.geometry;
  const point = readPoint(row, mapping, names);
  return isPlanIssue(point) ? undefined : { type: 'Point', coordinates: [point[0], point[1]] };
}

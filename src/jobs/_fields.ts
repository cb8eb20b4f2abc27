/**
 * Reading a job's request fields out of a row: mapped columns or constants, points from columns
 * or from a GeoJSON Point geometry. Every problem is a PlanIssue naming the field and what was
 * expected, so the row fails at stage `input` without costing a request.
 */

import type { Geometry, LineString, MultiPoint, Point, Position } from 'geojson';
import { type DecimalMark, isCoordIssue, type PairMarks, readLonLat } from '../client/coords.js';
import type { CoordFormat } from '../contract/index.js';
import type { PlanIssue, RenderResult } from '../engine/job.js';
import { fieldOf, hasField } from '../fields.js';
import { nearest } from '../nearest-word.js';
import { numberTextKeys } from '../number-texts.js';
import type { FieldValue, LonLat, Row } from '../types.js';
import { axisOfName } from './_axis-names.js';
import { columnName } from './_column-name.js';
import { readProjected } from './_coord-format.js';
import { unfilled } from './_unfilled.js';

export type { DecimalMark } from '../client/coords.js';
export { columnName, shownColumn } from './_column-name.js';

/** Where a request field's value comes from: a column of the row, or a constant. */
export type FieldSource = { readonly column: string } | { readonly value: string };

/**
 * The key under which a mapping carries the decimal mark of the input's cells (`input.decimal`):
 * a symbol, so that it is no field, and every job that reads through the mapping reads with it.
 */
export const INPUT_DECIMAL: unique symbol = Symbol('input.decimal');

export type Mapping = Readonly<Record<string, FieldSource>> & {
  /** How the input writes the numbers in its cells; absent: either mark (see DecimalMark). */
  readonly [INPUT_DECIMAL]?: DecimalMark;
};

/**
 * A mapping as the job file writes it (`zip: plz`, `{ column: plz }`, `{ value: DE }`), resolved;
 * with `decimal`, the input's cells are read as numbers with that decimal mark.
 */
export function resolveMapping(
  mapping: Readonly<Record<string, unknown>> | undefined,
  decimal?: DecimalMark,
): Mapping {
  const out: Record<string, FieldSource> & { [INPUT_DECIMAL]?: DecimalMark } = {};
  if (decimal !== undefined) out[INPUT_DECIMAL] = decimal;
  for (const [field, source] of Object.entries(mapping ?? {})) {
    if (source === undefined) continue;
    if (typeof source === 'string') out[field] = { column: source };
    else if (typeof source === 'object' && source !== null && 'column' in source)
      out[field] = { column: String(source.column) };
    else if (typeof source === 'object' && source !== null && 'value' in source)
      out[field] = { value: String(source.value) };
  }
  return out;
}

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
  return asText(fieldOf(row.fields, source.column));
}

/**
 * The decimal mark a cell of `column` is read with: the input's declared one (input.decimal), but
 * none for a column an earlier step added, which geobatch wrote and reads as it writes it, nor for
 * a JSON number kept as its text (`1.50`: src/number-texts.ts), which is no cell's writing.
 */
export function markOf(row: Row, mapping: Mapping, column: string | undefined): DecimalMark | undefined {
  const mark = mapping[INPUT_DECIMAL];
  if (mark === undefined || column === undefined) return undefined;
  if (row.added !== undefined && Object.hasOwn(row.added, column)) return undefined;
  return numberTextKeys((row.source ?? row).fields)?.includes(column) === true ? undefined : mark;
}

/** The decimal mark a mapped field's number is read with (markOf); none for a constant. */
export function fieldMark(row: Row, mapping: Mapping, field: string): DecimalMark | undefined {
  return markOf(row, mapping, columnOf(mapping, field));
}

export function isPlanIssue(value: unknown): value is PlanIssue {
  return typeof value === 'object' && value !== null && 'code' in value && 'message' in value;
}

const LON_COLUMNS = ['lon', 'lng', 'longitude', 'x'];
const LAT_COLUMNS = ['lat', 'latitude', 'y'];

/** Whether a point's default lon (or lat) column may be `column`: lon/lng/longitude/x, lat/latitude/y. */
export function isDefaultColumn(column: string, axis: 'lon' | 'lat'): boolean {
  return (axis === 'lon' ? LON_COLUMNS : LAT_COLUMNS).includes(column.trim().toLowerCase());
}

/**
 * The header's columns that a point's default lon (or lat) may be read from, the one read first:
 * `pickColumn` takes the first name of the list (lon before lng, longitude and x) the header has.
 */
export function defaultColumnsIn(header: readonly string[], axis: 'lon' | 'lat'): string[] {
  const candidates = axis === 'lon' ? LON_COLUMNS : LAT_COLUMNS;
  const rank = (column: string) => candidates.indexOf(column.trim().toLowerCase());
  return header.filter((column) => rank(column) >= 0).sort((a, b) => rank(a) - rank(b));
}

function pickColumn(keys: readonly string[], candidates: readonly string[]): string | undefined {
  for (const candidate of candidates) {
    // `id, lon, lat`: a header written with a space after each comma names ` lon`.
    const found = keys.find((key) => key.trim().toLowerCase() === candidate);
    if (found !== undefined) return found;
  }
  return undefined;
}

interface DefaultPair {
  readonly lon?: string;
  readonly lat?: string;
  /** Set when the two were found only apart: which of them is a column an earlier step added. */
  readonly fromStep?: 'lon' | 'lat';
}

/**
 * The conventionally named lon and lat columns of a row, as one pair from one source. In a
 * pipeline's later step a row holds the input's columns and those the earlier steps added
 * (`Row.added`), and a longitude from one with a latitude from the other is no point anyone has
 * (`Lat` and `Lng` in the input, `lon` and `lat` from a geocode step). The steps' pair is taken
 * when they added one (as a step's column already wins over an input column of its name), else
 * the input's. When neither has a whole pair but both together would, `fromStep` says so.
 */
function defaultPair(row: Row): DefaultPair {
  const keys = Object.keys(row.fields);
  const added = row.added;
  const all = { lon: pickColumn(keys, LON_COLUMNS), lat: pickColumn(keys, LAT_COLUMNS) };
  if (added === undefined) return all;
  const fromSteps = Object.keys(added);
  const fromInput = keys.filter((key) => !Object.hasOwn(added, key));
  for (const source of [fromSteps, fromInput]) {
    const lon = pickColumn(source, LON_COLUMNS);
    const lat = pickColumn(source, LAT_COLUMNS);
    if (lon !== undefined && lat !== undefined) return { lon, lat };
  }
  if (all.lon === undefined || all.lat === undefined) return all;
  return { ...all, fromStep: Object.hasOwn(added, all.lon) ? 'lon' : 'lat' };
}

export interface PointFields {
  /** Mapping keys to read from (e.g. `originLon`/`originLat`); default `lon`/`lat`. */
  readonly lon?: string;
  readonly lat?: string;
  /** Use the row's GeoJSON Point geometry when the columns are absent. @default true */
  readonly geometry?: boolean;
  /** Look for conventionally named columns (lon, lat, ...) when the keys are not mapped. @default true */
  readonly conventional?: boolean;
  /**
   * What the columns are written in; the point is converted to WGS84. A geometry is always WGS84
   * (RFC 7946). @default 'GEODECIMAL_POINT'
   */
  readonly format?: CoordFormat;
}

/** Two column values in `format` as a WGS84 point, or what is wrong with them. */
function readColumns(lon: unknown, lat: unknown, format: CoordFormat | undefined, marks: PairMarks) {
  return format === undefined || format === 'GEODECIMAL_POINT'
    ? readLonLat(lon, lat, marks)
    : readProjected(lon, lat, format, marks);
}

/**
 * A WGS84 [lon, lat] from the mapped columns (in `names.format`), else from the row's Point
 * geometry, else from conventionally named columns (lon/lng/longitude/x, lat/latitude/y). Ranges are checked: a
 * swapped or out-of-range pair is a FIELD_INVALID naming the column.
 */
export function readPoint(row: Row, mapping: Mapping, names: PointFields = {}): LonLat | PlanIssue {
  const lonKey = names.lon ?? 'lon';
  const latKey = names.lat ?? 'lat';
  const feature = names.geometry === false ? undefined : singlePoint(row.geometry);
  // A feature's Point is where the row is (and what its output shows): columns merely named like
  // coordinates (`x`/`y` holding Gauss-Krüger metres, a stale `lon`) do not override it; a mapping does.
  if (feature?.type === 'Point' && mapping[lonKey] === undefined && mapping[latKey] === undefined)
    return geometryPoint(feature);
  const guess = names.conventional !== false;
  // Neither mapped: one pair of default columns, from one source (see defaultPair).
  const pair =
    guess && mapping[lonKey] === undefined && mapping[latKey] === undefined ? defaultPair(row) : {};
  if (pair.fromStep !== undefined) return mixedSources(pair, lonKey, latKey);
  const lon = locate(row, mapping, lonKey, guess ? LON_COLUMNS : [], pair.lon);
  const lat = locate(row, mapping, latKey, guess ? LAT_COLUMNS : [], pair.lat);
  const marks = { lon: markOf(row, mapping, lon.column), lat: markOf(row, mapping, lat.column) };
  const point = readColumns(lon.value, lat.value, names.format, marks);
  const where = { lon: lon.name, lat: lat.name };
  if (isCoordIssue(point) && asText(lon.value) === undefined && asText(lat.value) === undefined) {
    const feature = singlePoint(fallbackGeometry(row, mapping, names));
    if (feature?.type === 'MultiPoint') return severalPoints(feature, lonKey, latKey);
    if (feature?.type !== 'Point') {
      // Only a feature can bring a geometry instead: a CSV row is told of its columns alone.
      const or =
        names.geometry === false || feature === undefined
          ? ''
          : `, or a Point geometry${geometryGot(feature)}`;
      // Columns that are there but empty are not "missing columns": say which they are.
      if (lon.value !== undefined && lat.value !== undefined) {
        const message = `${columnName(lon.name)} and ${columnName(lat.name)}: both empty; expected a longitude and a latitude${or}`;
        return { code: 'FIELD_MISSING', field: lon.name, message };
      }
      if (lon.value === undefined && lat.value === undefined) {
        // Both: a mapping's two columns, or the default keys a record has neither of.
        const message = `${columnName(lon.name)} and ${columnName(lat.name)}: missing; expected a longitude column (${lonKey}) and a latitude column (${latKey})${or}`;
        return { code: 'FIELD_MISSING', field: lon.name, message };
      }
      // One column is not there at all, the other is empty in this row: the absent one is the news.
      const [gone, empty, axis, key] =
        lon.value === undefined ? [lon, lat, 'longitude', lonKey] : [lat, lon, 'latitude', latKey];
      const message = `${columnName(gone.name)}: missing; expected a ${axis} column (${key}) beside ${columnName(empty.name)}, which is empty here${or}`;
      return { code: 'FIELD_MISSING', field: gone.name, message };
    }
    return geometryPoint(feature);
  }
  if (!isCoordIssue(point)) return point;
  const field = where[point.axis];
  // A column the row does not have at all (`id,lat,latitude`): missing, not "an empty value".
  const [failing, other] = point.axis === 'lon' ? [lon, lat] : [lat, lon];
  // A mapped column the row does not have is missing too, not empty (`geo_lati` for geo_lat).
  if (
    failing.value === undefined &&
    (failing.column === undefined || !hasField(row.fields, failing.column))
  ) {
    const [axis, key] = point.axis === 'lon' ? ['longitude', lonKey] : ['latitude', latKey];
    const message = `${columnName(field)}: missing; expected a ${axis} column (${key}) beside ${columnName(other.name)}`;
    return { code: 'FIELD_MISSING', field, message };
  }
  // The latitude too, when it is wrong as well (`N 52.5;E 13.4`): said at once, so that a fix of
  // the longitude alone does not run into the next failure. Read beside a longitude of 180, which
  // no latitude makes look swapped.
  const latIssue =
    point.axis === 'lon' && (names.format === undefined || names.format === 'GEODECIMAL_POINT')
      ? readLonLat(180, lat.value, { lat: marks.lat })
      : undefined;
  const also =
    latIssue !== undefined && isCoordIssue(latIssue) && asText(lat.value) !== undefined
      ? `; ${columnName(lat.name)}: ${latIssue.message}`
      : '';
  // A latitude out of range is found before the longitude's range is looked at: a longitude out of
  // range as well (`49,009;8,404` read with input.decimal ".") is said with it, first.
  const lonIssue =
    point.axis === 'lat' &&
    point.code === 'FIELD_INVALID' &&
    (names.format === undefined || names.format === 'GEODECIMAL_POINT')
      ? readLonLat(lon.value, 0, { lon: marks.lon })
      : undefined;
  if (lonIssue !== undefined && isCoordIssue(lonIssue) && asText(lon.value) !== undefined)
    return {
      code: lonIssue.code,
      field: lon.name,
      message: `${columnName(lon.name)}: ${lonIssue.message}; ${columnName(field)}: ${point.message}`,
    };
  return { code: point.code, field, message: `${columnName(field)}: ${point.message}${also}` };
}

/** A point a row gives, as read, with what a message calls it (`origin`). */
export interface ReadPointOf {
  readonly names: PointFields;
  readonly point: LonLat | PlanIssue;
  readonly label: string;
}

/**
 * The issue of a row whose points (a route's origin and destination), read together, are not all
 * read; call it with at least one PlanIssue among them. Two and more points that are each
 * unfilled, both their cells empty or absent, are one FIELD_MISSING naming every column: naming the
 * origin's alone had a user fill them and fail again on the destination's. Else the first issue.
 */
export function pointsIssue(row: Row, mapping: Mapping, read: readonly ReadPointOf[]): PlanIssue {
  const first = read.map(({ point }) => point).find(isPlanIssue) as PlanIssue;
  const unfilledPoints = read.flatMap(({ names, point, label }) => {
    if (!isPlanIssue(point) || point.code !== 'FIELD_MISSING') return [];
    const source = pointSource(row, mapping, names);
    if (source === 'geometry') return [];
    const columns = [source.lon, source.lat];
    const blank = columns.every((name) => asText(fieldOf(row.fields, name)) === undefined);
    return blank ? [{ columns, label }] : [];
  });
  if (unfilledPoints.length < 2) return first;
  const columns = unfilledPoints.flatMap((p) => p.columns);
  const labels = unfilledPoints.map((p) => `the ${p.label}'s`);
  const whose = `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
  return {
    code: 'FIELD_MISSING',
    field: columns[0] as string,
    message: `${unfilled(row, columns, columns[0] as string)}; expected ${whose} longitude and latitude`,
  };
}

/**
 * Where readPoint reads a row's point: `geometry` (the feature's Point), or the columns (or the
 * mapping keys of constants) it takes the longitude and latitude from. For messages about a point
 * already read; not for the hot path.
 */
export function pointSource(
  row: Row,
  mapping: Mapping,
  names: PointFields = {},
): 'geometry' | { readonly lon: string; readonly lat: string; readonly columns: boolean } {
  const lonKey = names.lon ?? 'lon';
  const latKey = names.lat ?? 'lat';
  const unmapped = mapping[lonKey] === undefined && mapping[latKey] === undefined;
  if (names.geometry !== false && singlePoint(row.geometry)?.type === 'Point' && unmapped) return 'geometry';
  const guess = names.conventional !== false;
  const pair = guess && unmapped ? defaultPair(row) : {};
  const lon = locate(row, mapping, lonKey, guess ? LON_COLUMNS : [], pair.lon);
  const lat = locate(row, mapping, latKey, guess ? LAT_COLUMNS : [], pair.lat);
  // Mapped columns the feature does not have, or has empty: readPoint read its Point instead, and
  // advice to exchange those columns would change nothing.
  if (
    singlePoint(fallbackGeometry(row, mapping, names))?.type === 'Point' &&
    asText(lon.value) === undefined &&
    asText(lat.value) === undefined
  )
    return 'geometry';
  return { lon: lon.name, lat: lat.name, columns: lon.column !== undefined && lat.column !== undefined };
}

/**
 * The geometry a row's point is read from when its columns are empty or absent: with no column
 * mapped, the row's (in a later step, the point an earlier step gave it, as the README has it);
 * with a mapped one, only the feature's own as read from the input. A point an earlier step gave
 * is another place: a row whose mapped columns are empty (an address search that found nothing)
 * was written ok with the search's origin.
 */
function fallbackGeometry(row: Row, mapping: Mapping, names: PointFields): Geometry | null | undefined {
  if (names.geometry === false) return undefined;
  const mapped = mapping[names.lon ?? 'lon'] !== undefined || mapping[names.lat ?? 'lat'] !== undefined;
  return mapped ? (row.source ?? row).geometry : row.geometry;
}

/**
 * A feature's geometry as a point job reads it: a MultiPoint of one point is that point (GIS
 * exports write every point layer as MultiPoints); any other geometry as it is.
 */
export function singlePoint<G extends Geometry | null | undefined>(geometry: G): G | Point {
  if (geometry?.type !== 'MultiPoint' || geometry.coordinates.length !== 1) return geometry;
  return { type: 'Point', coordinates: geometry.coordinates[0] as Position };
}

/** A MultiPoint of several points where one point was wanted: which of them is meant cannot be told. */
function severalPoints(geometry: MultiPoint, lonKey: string, latKey: string): PlanIssue {
  const n = geometry.coordinates.length;
  return {
    code: 'FIELD_INVALID',
    field: 'geometry',
    message: `geometry: a MultiPoint of ${n === 0 ? 'no' : n} point${n === 1 ? '' : 's'}; expected a single point (a Point, or a MultiPoint of one point), or ${lonKey} and ${latKey} mapped to columns`,
  };
}

/** A Point geometry's position, or what is wrong with it under the name `geometry`. */
function geometryPoint(geometry: Point): LonLat | PlanIssue {
  const point = readLonLat(geometry.coordinates[0], geometry.coordinates[1]);
  if (!isCoordIssue(point)) return point;
  return { code: point.code, field: 'geometry', message: `geometry: ${point.message}` };
}

/**
 * What a feature's geometry was, where a Point was wanted. Nothing for a row that is not a feature
 * (CSV, a plain NDJSON object): it has no geometry to speak of.
 */
function geometryGot(geometry: Geometry | null | undefined): string {
  if (geometry === undefined) return '';
  return geometry === null
    ? '; this feature has no geometry'
    : `; this feature's geometry is a ${geometry.type}`;
}

/**
 * A row whose default lon and lat columns are one the input's and the other an earlier step's:
 * which one is meant cannot be told, so the row asks for a mapping rather than mix them.
 */
function mixedSources(pair: DefaultPair, lonKey: string, latKey: string): PlanIssue {
  const lon = pair.lon as string;
  const lat = pair.lat as string;
  const [stepColumn, inputColumn] = pair.fromStep === 'lon' ? [lon, lat] : [lat, lon];
  return {
    code: 'FIELD_MISSING',
    field: inputColumn,
    message:
      `${columnName(lon)} and ${columnName(lat)}: ${columnName(stepColumn)} is a column an earlier step added, ${columnName(inputColumn)} the input's; ` +
      `expected a longitude and a latitude from one of them: map ${lonKey} and ${latKey} in this step's mapping`,
  };
}

/**
 * A point field's value and the name to report it under (its column, or the mapping key).
 * `guessed`: the default column already chosen for an unmapped key (see defaultPair).
 */
function locate(row: Row, mapping: Mapping, key: string, conventional: readonly string[], guessed?: string) {
  const source = mapping[key];
  if (source !== undefined && 'value' in source) return { value: source.value as FieldValue, name: key };
  const column =
    source === undefined ? (guessed ?? pickColumn(Object.keys(row.fields), conventional)) : source.column;
  return {
    value: column === undefined ? undefined : fieldOf(row.fields, column),
    name: column ?? key,
    column,
  };
}

/**
 * The names of `header` a person would take for `column`: the same but for case or the spaces
 * around it (`" lon"` for `lon`), for the hint of a mapping that names a column the file lacks.
 */
export function nearColumns(header: readonly string[], column: string): string[] {
  // NFC: `Länge` typed on one machine and written decomposed (a + U+0308) by another.
  const loose = (name: string) => name.normalize('NFC').trim().toLowerCase();
  const same = header.filter((name) => name !== column && loose(name) === loose(column));
  if (same.length > 0) return same;
  // Else a typo (`geo_lta` for geo_lat): the nearest name within a few edits, if any.
  const typo = nearest(column, header);
  if (typo !== undefined) return [typo];
  // Else another name for the same half of a point (`lng` where the records say `lon`), when one
  // column alone says that half: too far apart in letters for a typo, plainly the one meant.
  const axis = axisOfName(column);
  const sameAxis = axis === undefined ? [] : header.filter((name) => axisOfName(name) === axis);
  return sameAxis.length === 1 ? sameAxis : [];
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

/**
 * The geometry of the record a point job (elevation, boundaries, reverse geocoding) writes for a
 * row: none of its own (undefined keeps the input's) when the row has a geometry, else the point it
 * read. A parcel's Polygon or a road's LineString with the point to ask about in its properties
 * stays the parcel or the road in a GeoJSON or GeoPackage output, not a point in place of it.
 */
export function recordGeometry(row: Row, mapping: Mapping, names: PointFields = {}): Point | undefined {
  return row.geometry === undefined || row.geometry === null ? pointGeometry(row, mapping, names) : undefined;
}

/**
 * A failed render of a row read at one point, placed at that point when the row has no geometry of
 * its own: the failed row is then written where an ok row's record would be (recordGeometry).
 */
export function placedFailure(
  result: RenderResult,
  row: Row,
  mapping: Mapping,
  names: PointFields = {},
): RenderResult {
  if (result.ok || result.geometry !== undefined) return result;
  const geometry = recordGeometry(row, mapping, names);
  return geometry === undefined ? result : { ...result, geometry };
}

/** The row's own point as a GeoJSON geometry (its Point geometry first): where the row lies. */
export function pointGeometry(row: Row, mapping: Mapping, names: PointFields = {}): Point | undefined {
  const own = singlePoint(row.geometry);
  if (own?.type === 'Point') return own;
  const point = readPoint(row, mapping, names);
  return isPlanIssue(point) ? undefined : { type: 'Point', coordinates: [point[0], point[1]] };
}

/**
 * Where a row of several points lies, for the run report's map of failed rows (Job.locate): the
 * line through those it names readably, in order, or the one point; undefined when none is.
 */
export function pathGeometry(points: readonly (LonLat | PlanIssue)[]): Point | LineString | undefined {
  const readable = points.filter((p): p is LonLat => !isPlanIssue(p)).map((p) => [p[0], p[1]]);
  if (readable.length === 0) return undefined;
  return readable.length === 1
    ? { type: 'Point', coordinates: readable[0] as number[] }
    : { type: 'LineString', coordinates: readable };
}

/**
 * The coverage the jobs know the service has: Germany's bounding box (the emulator's data; the
 * real service covers at least Germany). Used only to hint, never to refuse or swap a point.
 */
export const KNOWN_COVERAGE = { west: 5.86, south: 47.27, east: 15.05, north: 55.06 } as const;

function covered([lon, lat]: LonLat): boolean {
  const c = KNOWN_COVERAGE;
  return lon >= c.west && lon <= c.east && lat >= c.south && lat <= c.north;
}

/**
 * A hint for a point whose coordinates look swapped: outside the known coverage as given, inside
 * it the other way round. Undefined when the point does not look swapped.
 */
export function swapHint(point: LonLat, label?: string): string | undefined {
  if (covered(point) || !covered([point[1], point[0]])) return undefined;
  const which = label === undefined ? '' : `${label} `;
  return `longitude and latitude swapped? ${which}(${point[0]}, ${point[1]}) lies outside Germany, (${point[1]}, ${point[0]}) inside`;
}

/** A point of a row with what names it in a hint (`from_lon/from_lat`, `via point 2`). */
export interface LabelledPoint {
  readonly point: LonLat | PlanIssue;
  readonly label?: string;
}

/**
 * A failed row whose point (or one of its points) looks swapped gets the hint appended to its
 * message, whatever the job and whatever the failure; an ok row is left as it is. A row of several
 * points (a route's origin, via points and destination) labels them, so that the hint says which.
 */
export function withSwapHint(
  result: RenderResult,
  points: readonly (LonLat | PlanIssue | LabelledPoint)[],
): RenderResult {
  if (result.ok) return result;
  for (const item of points) {
    const { point, label }: LabelledPoint = 'point' in item ? item : { point: item };
    const hint = isPlanIssue(point) ? undefined : swapHint(point, label);
    if (hint !== undefined) {
      // A service's message ends as a sentence; the hint goes on after it ("...dorthin; longitude ...").
      const message = `${result.failure.message.replace(/\.$/u, '')}; ${hint}`;
      return { ...result, failure: { ...result.failure, message } };
    }
  }
  return result;
}

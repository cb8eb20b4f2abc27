/**
 * GeoJSON geometries as GeoPackage geometry blobs: the "StandardGeoPackageBinary" header (magic
 * `GP`, version 0, flags, srs_id, envelope) followed by ISO WKB, little-endian throughout.
 * Positions carry at most one value past longitude and latitude (RFC 7946 3.1.1: elevation).
 */
import type { Geometry, Position } from 'geojson';

/** WGS 84 longitude/latitude, the only CRS RFC 7946 allows. */
export const WGS84_SRS_ID = 4326;

export type GeometryTypeName =
  | 'POINT'
  | 'LINESTRING'
  | 'POLYGON'
  | 'MULTIPOINT'
  | 'MULTILINESTRING'
  | 'MULTIPOLYGON'
  | 'GEOMETRYCOLLECTION';

const WKB_CODE: Readonly<Record<Geometry['type'], number>> = {
  Point: 1,
  LineString: 2,
  Polygon: 3,
  MultiPoint: 4,
  MultiLineString: 5,
  MultiPolygon: 6,
  GeometryCollection: 7,
};

/** [minX, minY, maxX, maxY]. */
export type Envelope = [number, number, number, number];

export interface EncodedGeometry {
  readonly blob: Uint8Array;
  readonly type: GeometryTypeName;
  readonly hasZ: boolean;
  /** Null for an empty geometry (no position at all). */
  readonly envelope: Envelope | null;
}

const HEADER = 8;
const ENVELOPE_XY = 32;

export function encodeGeometry(geometry: Geometry): EncodedGeometry {
  const hasZ = anyZ(geometry);
  const box: Envelope = [Infinity, Infinity, -Infinity, -Infinity];
  const empty = !visitBox(geometry, box);
  // Points carry no envelope (it would repeat the point), as GDAL writes them; others carry XY.
  const envelopeBytes = empty || geometry.type === 'Point' ? 0 : ENVELOPE_XY;
  const bytes = new Uint8Array(HEADER + envelopeBytes + sizeOf(geometry, hasZ ? 24 : 16));
  const view = new DataView(bytes.buffer);
  bytes[0] = 0x47; // G
  bytes[1] = 0x50; // P
  bytes[2] = 0; // version 1 of the binary format
  // Bit 0: little-endian; bits 1-3: envelope kind (1 = XY); bit 4: empty geometry.
  bytes[3] = 1 | ((envelopeBytes === 0 ? 0 : 1) << 1) | ((empty ? 1 : 0) << 4);
  view.setInt32(4, WGS84_SRS_ID, true);
  if (envelopeBytes > 0) {
    view.setFloat64(8, box[0], true);
    view.setFloat64(16, box[2], true);
    view.setFloat64(24, box[1], true);
    view.setFloat64(32, box[3], true);
  }
  writeWkb(view, HEADER + envelopeBytes, geometry, hasZ);
  return {
    blob: bytes,
    type: geometry.type.toUpperCase() as GeometryTypeName,
    hasZ,
    envelope: empty ? null : box,
  };
}

/** Whether any position has an elevation: then every position is written with one (0 when absent, as GDAL does). */
function anyZ(geometry: Geometry): boolean {
  if (geometry.type === 'GeometryCollection') return geometry.geometries.some(anyZ);
  return positionsHaveZ(geometry.coordinates);
}

function positionsHaveZ(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  if (typeof value[0] === 'number') return value.length >= 3;
  return value.some(positionsHaveZ);
}

/** Grows `box` by every position; false when there was none. */
function visitBox(geometry: Geometry, box: Envelope): boolean {
  if (geometry.type === 'GeometryCollection') {
    let any = false;
    for (const part of geometry.geometries) any = visitBox(part, box) || any;
    return any;
  }
  return growBox(geometry.coordinates, box);
}

function growBox(value: unknown, box: Envelope): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  if (typeof value[0] === 'number') {
    if (value.length < 2) return false;
    const [x, y] = value as [number, number];
    if (x < box[0]) box[0] = x;
    if (y < box[1]) box[1] = y;
    if (x > box[2]) box[2] = x;
    if (y > box[3]) box[3] = y;
    return true;
  }
  let any = false;
  for (const inner of value) any = growBox(inner, box) || any;
  return any;
}

/** WKB byte length; `point` is the size of one position. */
function sizeOf(geometry: Geometry, point: number): number {
  const head = 5;
  switch (geometry.type) {
    case 'Point':
      return head + point;
    case 'LineString':
    case 'MultiPoint':
      return head + 4 + geometry.coordinates.length * (geometry.type === 'MultiPoint' ? head + point : point);
    case 'Polygon':
      return head + ringsSize(geometry.coordinates, point);
    case 'MultiLineString':
      return head + 4 + geometry.coordinates.reduce((n, line) => n + head + 4 + line.length * point, 0);
    case 'MultiPolygon':
      return head + 4 + geometry.coordinates.reduce((n, rings) => n + head + ringsSize(rings, point), 0);
    case 'GeometryCollection':
      return head + 4 + geometry.geometries.reduce((n, part) => n + sizeOf(part, point), 0);
  }
}

function ringsSize(rings: Position[][], point: number): number {
  return 4 + rings.reduce((n, ring) => n + 4 + ring.length * point, 0);
}

function writeWkb(view: DataView, at: number, geometry: Geometry, hasZ: boolean): number {
  view.setUint8(at, 1);
  view.setUint32(at + 1, WKB_CODE[geometry.type] + (hasZ ? 1000 : 0), true);
  let o = at + 5;
  switch (geometry.type) {
    case 'Point':
      return writePosition(view, o, geometry.coordinates, hasZ);
    case 'LineString':
      return writePositions(view, o, geometry.coordinates, hasZ);
    case 'Polygon':
      return writeRings(view, o, geometry.coordinates, hasZ);
    case 'MultiPoint':
      view.setUint32(o, geometry.coordinates.length, true);
      o += 4;
      for (const p of geometry.coordinates) o = writeWkb(view, o, { type: 'Point', coordinates: p }, hasZ);
      return o;
    case 'MultiLineString':
      view.setUint32(o, geometry.coordinates.length, true);
      o += 4;
      for (const l of geometry.coordinates)
        o = writeWkb(view, o, { type: 'LineString', coordinates: l }, hasZ);
      return o;
    case 'MultiPolygon':
      view.setUint32(o, geometry.coordinates.length, true);
      o += 4;
      for (const r of geometry.coordinates) o = writeWkb(view, o, { type: 'Polygon', coordinates: r }, hasZ);
      return o;
    case 'GeometryCollection':
      view.setUint32(o, geometry.geometries.length, true);
      o += 4;
      for (const part of geometry.geometries) o = writeWkb(view, o, part, hasZ);
      return o;
  }
}

function writeRings(view: DataView, at: number, rings: Position[][], hasZ: boolean): number {
  view.setUint32(at, rings.length, true);
  let o = at + 4;
  for (const ring of rings) o = writePositions(view, o, ring, hasZ);
  return o;
}

function writePositions(view: DataView, at: number, positions: Position[], hasZ: boolean): number {
  view.setUint32(at, positions.length, true);
  let o = at + 4;
  for (const p of positions) o = writePosition(view, o, p, hasZ);
  return o;
}

/** An empty point (no coordinates) is written as NaN coordinates, the WKB convention. */
function writePosition(view: DataView, at: number, p: Position, hasZ: boolean): number {
  const empty = p.length < 2;
  view.setFloat64(at, empty ? Number.NaN : (p[0] as number), true);
  view.setFloat64(at + 8, empty ? Number.NaN : (p[1] as number), true);
  if (!hasZ) return at + 16;
  view.setFloat64(at + 16, empty ? Number.NaN : (p[2] ?? 0), true);
  return at + 24;
}

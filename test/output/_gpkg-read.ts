/**
 * Reads a GeoPackage back for the tests, independently of the writer: its own node:sqlite
 * connection, and its own decoder of the geometry blob (header, then WKB in either byte order).
 */
import { DatabaseSync } from 'node:sqlite';
import type { Geometry, Position } from 'geojson';

export interface DecodedBlob {
  readonly magic: string;
  readonly version: number;
  readonly littleEndian: boolean;
  /** 0 none, 1 XY, 2 XYZ, 3 XYM, 4 XYZM. */
  readonly envelopeCode: number;
  readonly empty: boolean;
  readonly srsId: number;
  readonly envelope: number[];
  readonly geometry: Geometry;
}

const ENVELOPE_DOUBLES = [0, 4, 6, 6, 8];
const TYPES = [
  '',
  'Point',
  'LineString',
  'Polygon',
  'MultiPoint',
  'MultiLineString',
  'MultiPolygon',
  'GeometryCollection',
];

export function decodeBlob(blob: Uint8Array): DecodedBlob {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const flags = view.getUint8(3);
  const littleEndian = (flags & 1) === 1;
  const envelopeCode = (flags >> 1) & 7;
  const envelope: number[] = [];
  for (let i = 0; i < (ENVELOPE_DOUBLES[envelopeCode] ?? 0); i++)
    envelope.push(view.getFloat64(8 + i * 8, littleEndian));
  const reader = { view, at: 8 + envelope.length * 8 };
  return {
    magic: String.fromCharCode(view.getUint8(0), view.getUint8(1)),
    version: view.getUint8(2),
    littleEndian,
    envelopeCode,
    empty: ((flags >> 4) & 1) === 1,
    srsId: view.getInt32(4, littleEndian),
    envelope,
    geometry: readWkb(reader),
  };
}

interface Reader {
  view: DataView;
  at: number;
}

function readWkb(r: Reader): Geometry {
  const le = r.view.getUint8(r.at) === 1;
  const code = r.view.getUint32(r.at + 1, le);
  r.at += 5;
  const dims = code > 1000 ? 3 : 2;
  const type = TYPES[code % 1000] as Geometry['type'];
  const count = () => {
    const n = r.view.getUint32(r.at, le);
    r.at += 4;
    return n;
  };
  const position = (): Position => {
    const p: number[] = [];
    for (let d = 0; d < dims; d++) p.push(r.view.getFloat64(r.at + d * 8, le));
    r.at += dims * 8;
    return p;
  };
  const positions = () => Array.from({ length: count() }, position);
  const parts = () => Array.from({ length: count() }, () => readWkb(r));
  switch (type) {
    case 'Point':
      return { type, coordinates: position() };
    case 'LineString':
      return { type, coordinates: positions() };
    case 'Polygon':
      return { type, coordinates: Array.from({ length: count() }, positions) };
    case 'GeometryCollection':
      return { type, geometries: parts() };
    default:
      // Multi-geometries hold whole WKB geometries of the single type.
      return {
        type,
        coordinates: parts().map((g) => (g as { coordinates: unknown }).coordinates),
      } as unknown as Geometry;
  }
}

export function openGpkg(path: string): DatabaseSync {
  return new DatabaseSync(path, { readOnly: true });
}

export function rows(
  db: DatabaseSync,
  sql: string,
  ...params: (string | number)[]
): Record<string, unknown>[] {
  return db.prepare(sql).all(...params) as Record<string, unknown>[];
}

export function columnTypes(db: DatabaseSync, table: string): Record<string, string> {
  const info = rows(db, `PRAGMA table_info("${table}")`) as { name: string; type: string }[];
  return Object.fromEntries(info.map((c) => [c.name, c.type]));
}

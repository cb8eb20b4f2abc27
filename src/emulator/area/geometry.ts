/** Geometry work for the area interface: rectangle intersection and (cached) simplification. */
import booleanPointInPolygon from '@turf/boolean-point-in-polygon';
import simplify from '@turf/simplify';
import type { Area, AreaGeometry } from '../datasets/boundaries.js';
import { featureJson } from '../datasets/boundaries.js';
import { ringsOf } from '../lib/_polygon-index.js';

export interface Rect {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** True when the polygon and the rectangle share at least one point (edges crossing or containment). */
export function intersectsRect(geometry: AreaGeometry, r: Rect): boolean {
  for (const ring of ringsOf(geometry)) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const a = ring[i] as number[];
      const b = ring[i + 1] as number[];
      if (segmentHitsRect(a[0] ?? 0, a[1] ?? 0, b[0] ?? 0, b[1] ?? 0, r)) return true;
    }
  }
  // No edge touches the rectangle: it is either wholly inside the polygon or apart from it.
  return booleanPointInPolygon([r.west, r.south], geometry);
}

/** Liang-Barsky clipping: does the segment have any point inside the rectangle? */
function segmentHitsRect(x1: number, y1: number, x2: number, y2: number, r: Rect): boolean {
  const dx = x2 - x1;
  const dy = y2 - y1;
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, x1 - r.west],
    [dx, r.east - x1],
    [-dy, y1 - r.south],
    [dy, r.north - y1],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return false;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return false;
  }
  return true;
}

/** Degrees of tolerance at reduceGeometry = 1 (~2 km): coarse but still recognisable. */
const MAX_TOLERANCE_DEG = 0.02;
const CACHE_LIMIT = 4000;
const cache = new Map<string, string>();

/**
 * Simplification tolerance in degrees: reduceGeometry scales linearly up to MAX_TOLERANCE_DEG; zoom
 * asks for one 256-pixel-tile pixel at that zoom; the coarser of the two wins; 0 = full geometry.
 */
export function tolerance(reduceGeometry: number, zoom: number | undefined): number {
  const byZoom = zoom === undefined ? 0 : 360 / (256 * 2 ** zoom);
  return Math.max(reduceGeometry * MAX_TOLERANCE_DEG, byZoom);
}

/** The feature JSON of `area`, simplified to `tol` degrees (cached: simplification is the slow part). */
export function areaJson(area: Area, tol: number): string {
  if (tol <= 0) return area.json;
  const key = `${area.properties.osmid}:${tol}`;
  let text = cache.get(key);
  if (text === undefined) {
    let geometry = area.geometry;
    try {
      geometry = simplify(area.geometry, { tolerance: tol, highQuality: false }) as AreaGeometry;
    } catch {
      // turf cannot simplify some tiny rings below 4 positions; the full geometry is still a correct answer.
    }
    text = featureJson(area.properties, geometry, area.bbox);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, text);
  }
  return text;
}

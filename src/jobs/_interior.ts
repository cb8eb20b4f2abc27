/**
 * A point strictly inside an area, far from its outline: how a coarser level's area is found for a
 * finer one ("the state that contains this district"), without relying on how keys are spelt.
 *
 * Method: a few horizontal scanlines across each polygon; along each, the crossings with every ring
 * (holes included) bound the inside intervals (even-odd); the midpoint of the widest interval wins.
 * Scanlines through a vertex are skipped, so the midpoint never sits on an edge.
 */
import type { MultiPolygon, Polygon, Position } from 'geojson';
import type { LonLat } from '../types.js';

const SCANLINES = [0.5, 0.3, 0.7, 0.4, 0.6, 0.2, 0.8] as const;

function crossings(rings: readonly Position[][], y: number): number[] | undefined {
  const xs: number[] = [];
  for (const ring of rings) {
    for (let i = 1; i < ring.length; i++) {
      const [x1 = 0, y1 = 0] = ring[i - 1] as Position;
      const [x2 = 0, y2 = 0] = ring[i] as Position;
      if (y1 === y || y2 === y) return undefined;
      if (y1 > y !== y2 > y) xs.push(x1 + ((y - y1) * (x2 - x1)) / (y2 - y1));
    }
  }
  return xs.sort((a, b) => a - b);
}

export function interiorPoint(geometry: Polygon | MultiPolygon): LonLat | undefined {
  const polygons = geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates;
  let best: { x: number; y: number; width: number } | undefined;
  for (const rings of polygons) {
    const ys = (rings[0] ?? []).map((p) => p[1] ?? 0);
    const low = Math.min(...ys);
    const high = Math.max(...ys);
    for (const f of SCANLINES) {
      const y = low + (high - low) * f;
      const xs = crossings(rings, y);
      if (xs === undefined) continue;
      for (let i = 0; i + 1 < xs.length; i += 2) {
        const [a = 0, b = 0] = [xs[i], xs[i + 1]];
        if (b - a > (best?.width ?? 0)) best = { x: (a + b) / 2, y, width: b - a };
      }
    }
  }
  return best === undefined ? undefined : [best.x, best.y];
}

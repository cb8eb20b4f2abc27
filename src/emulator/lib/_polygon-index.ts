/**
 * Exact point-in-(multi)polygon with the boundary counted as inside, in O(log n) per point: the
 * edges sit in a flatbush index and a ray cast to the east only meets the edges it crosses.
 * Used where many points per request meet one big polygon (Germany, ~2,900 vertices).
 */
import Flatbush from 'flatbush';

type Ring = readonly (readonly number[])[];

export class PolygonIndex {
  readonly #edges: Float64Array;
  readonly #index: Flatbush;
  readonly #maxX: number;

  /** `rings`: every ring of every polygon (outer rings and holes alike: parity handles holes). */
  constructor(rings: readonly Ring[]) {
    const count = rings.reduce((n, ring) => n + Math.max(0, ring.length - 1), 0);
    this.#edges = new Float64Array(count * 4);
    this.#index = new Flatbush(Math.max(1, count));
    let e = 0;
    let maxX = Number.NEGATIVE_INFINITY;
    for (const ring of rings) {
      for (let i = 0; i + 1 < ring.length; i++) {
        const [x1 = 0, y1 = 0] = ring[i] as number[];
        const [x2 = 0, y2 = 0] = ring[i + 1] as number[];
        this.#edges.set([x1, y1, x2, y2], e * 4);
        this.#index.add(Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2));
        maxX = Math.max(maxX, x1, x2);
        e++;
      }
    }
    if (count === 0) this.#index.add(0, 0, 0, 0);
    this.#index.finish();
    this.#maxX = maxX;
  }

  contains(x: number, y: number): boolean {
    if (x > this.#maxX) return false;
    const hits = this.#index.search(x, y, this.#maxX, y);
    let inside = false;
    const ed = this.#edges;
    for (const h of hits) {
      const x1 = ed[h * 4] as number;
      const y1 = ed[h * 4 + 1] as number;
      const x2 = ed[h * 4 + 2] as number;
      const y2 = ed[h * 4 + 3] as number;
      if (onSegment(x, y, x1, y1, x2, y2)) return true;
      if (y1 > y !== y2 > y && x < ((x2 - x1) * (y - y1)) / (y2 - y1) + x1) inside = !inside;
    }
    return inside;
  }
}

function onSegment(x: number, y: number, x1: number, y1: number, x2: number, y2: number): boolean {
  const cross = (x2 - x1) * (y - y1) - (y2 - y1) * (x - x1);
  if (Math.abs(cross) > 1e-12) return false;
  return (
    x >= Math.min(x1, x2) - 1e-12 &&
    x <= Math.max(x1, x2) + 1e-12 &&
    y >= Math.min(y1, y2) - 1e-12 &&
    y <= Math.max(y1, y2) + 1e-12
  );
}

/** All rings of a Polygon or MultiPolygon geometry. */
export function ringsOf(geometry: { type: string; coordinates: unknown }): Ring[] {
  if (geometry.type === 'Polygon') return geometry.coordinates as Ring[];
  if (geometry.type === 'MultiPolygon') return (geometry.coordinates as Ring[][]).flat();
  return [];
}

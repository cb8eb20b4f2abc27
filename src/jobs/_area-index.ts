/**
 * Administrative areas already received, indexed for point lookups, so that a point inside an
 * area fetched before costs no request. Areas partition the land at one level, so a point covered
 * by a known area is answered exactly as the service would answer it.
 *
 * Border rule (stated, tested, and the same as the emulator's): a point on a border is covered by
 * every area that shares the border (ST_Covers, not ST_Contains); of several covering areas the one
 * with the lowest key wins. A row is never duplicated because it matched two areas.
 */
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import Flatbush from 'flatbush';
import type { MultiPolygon, Polygon, Position } from 'geojson';
import type { LonLat } from '../types.js';
import type { AreaFeature } from './_ports.js';

type Box = [minX: number, minY: number, maxX: number, maxY: number];

function boxOf(geometry: Polygon | MultiPolygon): Box {
  const box: Box = [Infinity, Infinity, -Infinity, -Infinity];
  const rings: Position[][] =
    geometry.type === 'Polygon' ? geometry.coordinates : geometry.coordinates.flat();
  for (const ring of rings) {
    for (const [x, y] of ring) {
      if (x === undefined || y === undefined) continue;
      if (x < box[0]) box[0] = x;
      if (y < box[1]) box[1] = y;
      if (x > box[2]) box[2] = x;
      if (y > box[3]) box[3] = y;
    }
  }
  return box;
}

/** Picks the covering area by the border rule: lowest key among those that cover the point. */
export function coveringArea(point: LonLat, candidates: Iterable<AreaFeature>): AreaFeature | undefined {
  let best: AreaFeature | undefined;
  for (const area of candidates) {
    if (best !== undefined && area.key >= best.key) continue;
    if (booleanPointInPolygon([point[0], point[1]], area.geometry, { ignoreBoundary: false })) best = area;
  }
  return best;
}

export class AreaIndex {
  readonly #areas: AreaFeature[] = [];
  readonly #boxes: Box[] = [];
  readonly #known = new Set<string>();
  #tree: Flatbush | undefined;

  get size(): number {
    return this.#areas.length;
  }

  /** Adds areas not seen before (by key); the tree is rebuilt on the next lookup. */
  add(areas: Iterable<AreaFeature>): void {
    for (const area of areas) {
      if (this.#known.has(area.key)) continue;
      this.#known.add(area.key);
      this.#areas.push(area);
      this.#boxes.push(boxOf(area.geometry));
      this.#tree = undefined;
    }
  }

  lookup(point: LonLat): AreaFeature | undefined {
    if (this.#areas.length === 0) return undefined;
    // Flatbush is static; areas arrive in a few bursts, so rebuilding (n log n, n in the hundreds) is cheap.
    if (this.#tree === undefined) {
      const tree = new Flatbush(this.#areas.length);
      for (const box of this.#boxes) tree.add(box[0], box[1], box[2], box[3]);
      tree.finish();
      this.#tree = tree;
    }
    const hits = this.#tree.search(point[0], point[1], point[0], point[1]);
    return coveringArea(
      point,
      hits.map((i) => this.#areas[i] as AreaFeature),
    );
  }
}

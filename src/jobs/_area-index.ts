/**
 * Administrative areas already received, indexed for point lookups, so that a point inside an
 * area fetched before costs no request. Areas partition the land at one level, so a point strictly
 * inside a known area is covered by no other area: `inside` answers it exactly as the service
 * would. A point on a known area's border may also be covered by an area not yet received, one
 * with a lower key, so only the service can answer it; `covering` is for after its answer.
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

/** The area whose interior holds the point (borders excluded); at most one, as areas partition a level. */
function containingArea(point: LonLat, candidates: Iterable<AreaFeature>): AreaFeature | undefined {
  for (const area of candidates) {
    if (booleanPointInPolygon([point[0], point[1]], area.geometry, { ignoreBoundary: true })) return area;
  }
  return undefined;
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

  /** The known area whose interior holds the point: the service's answer too, whatever it has not sent yet. */
  inside(point: LonLat): AreaFeature | undefined {
    return containingArea(point, this.#candidates(point));
  }

  /** The known area covering the point by the border rule; exact once the service answered this point. */
  covering(point: LonLat): AreaFeature | undefined {
    return coveringArea(point, this.#candidates(point));
  }

  #candidates(point: LonLat): AreaFeature[] {
    if (this.#areas.length === 0) return [];
    // Flatbush is static; areas arrive in a few bursts, so rebuilding (n log n, n in the hundreds) is cheap.
    if (this.#tree === undefined) {
      const tree = new Flatbush(this.#areas.length);
      for (const box of this.#boxes) tree.add(box[0], box[1], box[2], box[3]);
      tree.finish();
      this.#tree = tree;
    }
    return this.#tree
      .search(point[0], point[1], point[0], point[1])
      .map((i) => this.#areas[i] as AreaFeature);
  }
}

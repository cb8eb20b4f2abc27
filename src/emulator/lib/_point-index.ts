/**
 * Nearest-neighbour search over points in degrees (flatbush kNN), refined by great-circle distance.
 * x is scaled by cos(51°) so that flatbush's planar distance ranks points almost as the sphere does
 * over Germany; a few extra candidates absorb the remaining distortion.
 */
import Flatbush from 'flatbush';
import { haversine, KNN_X_SCALE } from './_geo.js';

const METRES_PER_DEGREE = 111195;
const OVERSAMPLE = 6;
/** Planar distance underestimates at the southern edge of Germany by up to ~10%. */
const MAX_DISTANCE_MARGIN = 1.25;

export interface Neighbour {
  index: number;
  distance: number;
}

export class PointIndex {
  readonly #lons: Float64Array;
  readonly #lats: Float64Array;
  readonly #index: Flatbush;

  constructor(points: readonly { lon: number; lat: number }[]) {
    this.#lons = Float64Array.from(points, (p) => p.lon);
    this.#lats = Float64Array.from(points, (p) => p.lat);
    this.#index = new Flatbush(Math.max(1, points.length));
    for (const p of points) this.#index.add(p.lon * KNN_X_SCALE, p.lat);
    if (points.length === 0) this.#index.add(0, 0);
    this.#index.finish();
  }

  /** Up to `k` points within `maxMetres`, nearest first. */
  nearest(lon: number, lat: number, k: number, maxMetres = Number.POSITIVE_INFINITY): Neighbour[] {
    if (this.#lons.length === 0) return [];
    const maxDeg = Number.isFinite(maxMetres)
      ? (maxMetres / METRES_PER_DEGREE) * MAX_DISTANCE_MARGIN
      : Number.POSITIVE_INFINITY;
    const ids = this.#index.neighbors(lon * KNN_X_SCALE, lat, k + OVERSAMPLE, maxDeg);
    const found: Neighbour[] = [];
    for (const index of ids) {
      const distance = haversine(lon, lat, this.#lons[index] as number, this.#lats[index] as number);
      if (distance <= maxMetres) found.push({ index, distance });
    }
    found.sort((a, b) => a.distance - b.distance || a.index - b.index);
    return found.slice(0, k);
  }

  /** Indices of points inside a lon/lat box. */
  within(minLon: number, minLat: number, maxLon: number, maxLat: number): number[] {
    if (this.#lons.length === 0) return [];
    return this.#index.search(minLon * KNN_X_SCALE, minLat, maxLon * KNN_X_SCALE, maxLat);
  }
}

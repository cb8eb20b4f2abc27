/**
 * Points in degrees with two queries: nearest neighbours (a uniform grid searched ring by ring,
 * stored as flat arrays: faster than a tree for these small, dense data sets) and boxes (flatbush).
 */
import Flatbush from 'flatbush';
import { haversine } from './_geo.js';

const CELL_DEG = 0.1;
/** 2πR/360 with R = 6371008.8 m; a degree of longitude is never longer. */
const METRES_PER_DEGREE = 111_195;

export interface Neighbour {
  index: number;
  distance: number;
}

export class PointIndex {
  readonly #lons: Float64Array;
  readonly #lats: Float64Array;
  readonly #box: Flatbush;
  /** Points of cell c are #items[#starts[c] .. #starts[c + 1]). */
  readonly #starts: Int32Array;
  readonly #items: Int32Array;
  readonly #rows: number;
  readonly #cols: number;
  readonly #minLon: number;
  readonly #minLat: number;

  constructor(points: readonly { lon: number; lat: number }[]) {
    this.#lons = Float64Array.from(points, (p) => p.lon);
    this.#lats = Float64Array.from(points, (p) => p.lat);
    this.#box = new Flatbush(Math.max(1, points.length));
    for (const p of points) this.#box.add(p.lon, p.lat);
    if (points.length === 0) this.#box.add(0, 0);
    this.#box.finish();
    this.#minLon = points.length ? Math.min(...this.#lons) : 0;
    this.#minLat = points.length ? Math.min(...this.#lats) : 0;
    this.#cols = points.length ? this.#col(Math.max(...this.#lons)) + 1 : 1;
    this.#rows = points.length ? this.#row(Math.max(...this.#lats)) + 1 : 1;
    const cellOf = Int32Array.from(points, (p) => this.#row(p.lat) * this.#cols + this.#col(p.lon));
    this.#starts = new Int32Array(this.#rows * this.#cols + 1);
    for (const c of cellOf) this.#starts[c + 1] = (this.#starts[c + 1] as number) + 1;
    for (let c = 0; c < this.#rows * this.#cols; c++) {
      this.#starts[c + 1] = (this.#starts[c + 1] as number) + (this.#starts[c] as number);
    }
    const fill = this.#starts.slice(0, -1);
    this.#items = new Int32Array(points.length);
    cellOf.forEach((c, i) => {
      const at = fill[c] as number;
      this.#items[at] = i;
      fill[c] = at + 1;
    });
  }

  /**
   * Up to `k` points within `maxMetres`, nearest first. Candidates are ranked by an equirectangular
   * distance, so two points within 0.1% of the same distance may come in either order.
   */
  nearest(lon: number, lat: number, k: number, maxMetres = Number.POSITIVE_INFINITY): Neighbour[] {
    const found: Neighbour[] = [];
    const row = this.#row(lat);
    const col = this.#col(lon);
    // Equirectangular distances: within the tens of kilometres searched they are within 0.1% of the
    // great circle, and they need no trigonometry per point.
    const kx = METRES_PER_DEGREE * Math.cos((lat * Math.PI) / 180);
    // Nothing in ring r (cells r steps away) is nearer than r - 1 cells of the shorter side.
    const cellMetres =
      CELL_DEG * METRES_PER_DEGREE * Math.cos((Math.min(89, Math.abs(lat) + 1) * Math.PI) / 180);
    const maxRing = Math.max(this.#rows, this.#cols) + Math.abs(row) + Math.abs(col);
    for (let r = 0; r <= maxRing; r++) {
      const bound = (r - 1) * cellMetres;
      if (bound > maxMetres || (found.length >= k && bound > (found[k - 1] as Neighbour).distance)) break;
      for (let y = row - r; y <= row + r; y++) {
        if (y < 0 || y >= this.#rows) continue;
        const edge = y === row - r || y === row + r;
        for (let x = col - r; x <= col + r; x += edge || r === 0 ? 1 : 2 * r) {
          if (x < 0 || x >= this.#cols) continue;
          const c = y * this.#cols + x;
          for (let j = this.#starts[c] as number; j < (this.#starts[c + 1] as number); j++) {
            const i = this.#items[j] as number;
            const dx = ((this.#lons[i] as number) - lon) * kx;
            const dy = ((this.#lats[i] as number) - lat) * METRES_PER_DEGREE;
            const distance = Math.sqrt(dx * dx + dy * dy);
            if (distance <= maxMetres) insert(found, i, distance, k);
          }
        }
      }
    }
    // Report great-circle metres, as every other distance in the emulator is.
    for (const n of found)
      n.distance = haversine(lon, lat, this.#lons[n.index] as number, this.#lats[n.index] as number);
    return found.sort((a, b) => a.distance - b.distance || a.index - b.index);
  }

  /** Indices of points inside a lon/lat box. */
  within(minLon: number, minLat: number, maxLon: number, maxLat: number): number[] {
    if (this.#lons.length === 0) return [];
    return this.#box.search(minLon, minLat, maxLon, maxLat);
  }

  #row(lat: number): number {
    return Math.floor((lat - this.#minLat) / CELL_DEG);
  }

  #col(lon: number): number {
    return Math.floor((lon - this.#minLon) / CELL_DEG);
  }
}

/** Keeps `list` sorted by distance (then index) and at most `k` long. */
function insert(list: Neighbour[], index: number, distance: number, k: number): void {
  let at = list.length;
  while (at > 0) {
    const prev = list[at - 1] as Neighbour;
    if (prev.distance < distance || (prev.distance === distance && prev.index < index)) break;
    at--;
  }
  if (at >= k) return;
  list.splice(at, 0, { index, distance });
  if (list.length > k) list.pop();
}

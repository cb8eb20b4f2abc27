/**
 * The output's geometries for the report's map, bounded whatever the size of the output: an even
 * sample (every k-th record, k doubling whenever the buffer fills, so the sample spreads over the
 * whole file and the same output gives the same map) with the totals counted exactly. Failed and
 * ok records are sampled apart, so that three failures among a million rows are still on the map.
 * Geometries are simplified as they are kept, under one vertex budget for all of them, after their
 * lines and rings are unwrapped across the antimeridian (_dateline.ts): simplified or boxed as
 * written, a ring from 179.9 to -179.9 would span the world. The sample handed to the map is
 * gathered across the antimeridian as a whole (gatherGeometries), so that neighbours on either
 * side of it, a failed row's point among them, are drawn side by side.
 */
import type { Geometry } from 'geojson';
import { ConfigError, type ErrorCode } from '../errors.js';
import { gatherGeometries, unwrapGeometry } from './_dateline.js';
import { countVertices, fitGeometry } from './_fit.js';
import type { MapSample, ReportFeature } from './data.js';

export interface FeatureSampleOptions {
  /** Geometries on the map at most. @default 5000 */
  readonly maxFeatures?: number;
  /** Vertices on the map at most, all geometries together (about 20 bytes of HTML each). @default 120000 */
  readonly maxVertices?: number;
}

export interface FeatureSample {
  /** One output record: its geometry (null or undefined: none), status, 1-based row and error code. */
  add(
    geometry: Geometry | null | undefined,
    status: 'ok' | 'failed',
    row: number,
    code?: ErrorCode | null,
  ): void;
  result(): MapSample;
}

const DEFAULTS = { maxFeatures: 5000, maxVertices: 120_000 } as const;
/** A shape keeps at least this many vertices; below it, it is better shown as its box. */
const MIN_VERTICES = 8;
/** What one geometry may keep while the budget is far from spent. */
const MAX_VERTICES_PER_FEATURE = 5000;

interface Kept {
  readonly index: number;
  feature: ReportFeature;
  vertices: number;
}

interface Stratum {
  seen: number;
  stride: number;
  kept: Kept[];
}

export function createFeatureSample(options: FeatureSampleOptions = {}): FeatureSample {
  const maxFeatures = positiveInteger('maxFeatures', options.maxFeatures ?? DEFAULTS.maxFeatures);
  const maxVertices = positiveInteger('maxVertices', options.maxVertices ?? DEFAULTS.maxVertices);
  const strata = { ok: stratum(), failed: stratum() };
  const without = { ok: 0, failed: 0 };
  const offTheGlobe = { ok: 0, failed: 0 };
  let perFeature = Math.max(MIN_VERTICES, Math.min(MAX_VERTICES_PER_FEATURE, maxVertices));
  let vertices = 0;

  function keep(s: Stratum, item: Kept): void {
    s.kept.push(item);
    vertices += item.vertices;
    if (s.kept.length > maxFeatures) {
      s.stride *= 2;
      s.kept = s.kept.filter((k) => k.index % s.stride === 0);
      vertices = total();
    }
    while (vertices > maxVertices && perFeature > MIN_VERTICES) {
      perFeature = Math.max(MIN_VERTICES, Math.floor(perFeature / 2));
      refit();
    }
  }

  function refit(): void {
    for (const k of [...strata.ok.kept, ...strata.failed.kept]) {
      if (k.vertices <= perFeature) continue;
      k.feature = { ...k.feature, geometry: fitGeometry(k.feature.geometry, perFeature) };
      k.vertices = countVertices(k.feature.geometry);
    }
    vertices = total();
  }

  function total(): number {
    let n = 0;
    for (const k of [...strata.ok.kept, ...strata.failed.kept]) n += k.vertices;
    return n;
  }

  return {
    add(geometry, status, row, code = null) {
      if (geometry === null || geometry === undefined) {
        without[status]++;
        return;
      }
      if (!onTheGlobe(geometry)) {
        offTheGlobe[status]++;
        return;
      }
      const s = strata[status];
      const index = s.seen++;
      if (index % s.stride !== 0) return;
      const fitted = fitGeometry(unwrapGeometry(geometry), perFeature);
      keep(s, { index, feature: { geometry: fitted, status, row, code }, vertices: countVertices(fitted) });
    },
    result() {
      const ok = strata.ok.kept;
      const failed = strata.failed.kept;
      // Failures are the point of looking; they keep at least half of the map when there are that many.
      const okShare = Math.min(ok.length, maxFeatures - Math.min(failed.length, Math.floor(maxFeatures / 2)));
      const failedShare = Math.min(failed.length, maxFeatures - okShare);
      const shown = [...spread(ok, okShare), ...spread(failed, failedShare)].map((k) => k.feature);
      const gathered = gatherGeometries(shown.map((f) => f.geometry));
      return {
        features: shown.map((f, i) => {
          const geometry = gathered[i] as Geometry;
          return geometry === f.geometry ? f : { ...f, geometry };
        }),
        withGeometry: { ok: strata.ok.seen, failed: strata.failed.seen },
        withoutGeometry: { ...without },
        offTheGlobe: { ...offTheGlobe },
      };
    },
  };
}

/**
 * Whether the geometry's first position can be a longitude and a latitude: projected metres (UTM,
 * Gauss-Krüger) cannot. One position, not all: the sample sees every record of the run, and an
 * area's polygon has thousands. Longitudes up to ±360 pass, as a shape unwrapped across the
 * antimeridian writes them.
 */
function onTheGlobe(geometry: Geometry): boolean {
  if (geometry.type === 'GeometryCollection') return geometry.geometries.every(onTheGlobe);
  let value: unknown = geometry.coordinates;
  while (Array.isArray(value) && Array.isArray(value[0])) value = value[0];
  if (!Array.isArray(value)) return true;
  const [lon, lat] = value as unknown[];
  return typeof lon === 'number' && typeof lat === 'number' && Math.abs(lon) <= 360 && Math.abs(lat) <= 90;
}

function stratum(): Stratum {
  return { seen: 0, stride: 1, kept: [] };
}

/** `count` items evenly spread over `items`, in their order. */
function spread<T>(items: readonly T[], count: number): T[] {
  if (count >= items.length) return items.slice();
  if (count <= 0) return [];
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)] as T);
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw new ConfigError(`Expected \`${name}\` to be a positive integer, got \`${value}\``);
  return value;
}

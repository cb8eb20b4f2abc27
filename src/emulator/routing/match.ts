/**
 * MATCH: each GPS point is snapped to a 0.0005° grid (a stand-in for the road network) when it lies
 * in Germany within MATCH_MAX_METRES of a known place; otherwise it stays unmatched.
 */
import type { CoordFormat, MatchDestination } from '../../contract/index.js';
import type { Datasets } from '../datasets/index.js';
import { haversine } from '../lib/_geo.js';
import type { Collection } from './compute.js';
import { out, outBox } from './compute.js';
import type { Profile } from './profiles.js';
import type { Position } from './request.js';

const GRID_DEG = 0.0005;
export const MATCH_MAX_METRES = 25_000;

const snap = (v: number) => Math.round(Math.round(v / GRID_DEG) * GRID_DEG * 1e6) / 1e6;

export function match(data: Datasets, profile: Profile, format: CoordFormat, points: Position[]): Collection {
  const matched: Position[] = [];
  const destinations = points.map((p): MatchDestination => {
    const ok =
      data.boundaries.country.contains(p[0], p[1]) &&
      data.postal.placeIndex.nearest(p[0], p[1], 1, MATCH_MAX_METRES).length > 0;
    const m: Position = ok ? [snap(p[0]), snap(p[1])] : p;
    if (ok) matched.push(m);
    return {
      isMatched: ok,
      distance: ok ? Math.round(haversine(p[0], p[1], m[0], m[1]) * 10) / 10 : 0,
      // inPoint is the GPS point as sent; matchedPoint is in coordFormatOut.
      inPoint: { type: 'Point', coordinates: [p[0], p[1]] },
      matchedPoint: { type: 'Point', coordinates: out(format, m) },
    };
  });
  let distance = 0;
  for (let i = 0; i + 1 < matched.length; i++) {
    const a = matched[i] as Position;
    const b = matched[i + 1] as Position;
    distance += haversine(a[0], a[1], b[0], b[1]);
  }
  const totals = { distance: Math.round(distance), duration: Math.round(distance / profile.speed) };
  return {
    type: 'FeatureCollection',
    bbox: outBox(format, matched),
    properties: totals,
    features: [
      {
        type: 'Feature',
        // Fewer than two matched points make no line; GeoJSON forbids a LineString with one position.
        geometry:
          matched.length >= 2
            ? { type: 'LineString', coordinates: matched.map((p) => out(format, p)) }
            : null,
        properties: { ...totals, matchDestinations: destinations },
      },
    ],
  };
}

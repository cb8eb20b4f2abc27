/**
 * Where the emulator's roads are. EMULATOR CHOICE: its routes are great circles, which reach any
 * point on Earth; a router on a road network finds no road to a point in the sea or on another
 * continent and refuses the request. Without this, a point with longitude and latitude swapped
 * (Berlin read as 52.5°E 13.4°N, in Eritrea) routed 5,000-7,000 km and came back ok. The network
 * is Europe's, the area YellowMap's services answer: Iceland to the Urals' west, Crete north.
 */
import type { Parsed, Position } from './request.js';

export const ROAD_AREA = { west: -25, south: 34, east: 45, north: 72 } as const;

function onRoads([lon, lat]: Position): boolean {
  const a = ROAD_AREA;
  return lon >= a.west && lon <= a.east && lat >= a.south && lat <= a.north;
}

/** The message for a 400 when a point of the request lies off the road network; else undefined. */
export function offRoads(parsed: Parsed): string | undefined {
  const points: Position[] =
    parsed.type === 'MATRIX'
      ? [parsed.start, ...parsed.ends]
      : parsed.type === 'ISOCHRONE'
        ? [parsed.origin]
        : parsed.type === 'MATCH'
          ? [] // a GPS point off the roads is answered unmatched (match.ts)
          : parsed.points;
  const at = points.findIndex((p) => !onRoads(p));
  if (at < 0) return undefined;
  const [lon, lat] = points[at] as Position;
  return `Punkt ${at + 1} (${lon}, ${lat}) liegt außerhalb des Straßennetzes; es gibt keine Route dorthin.`;
}

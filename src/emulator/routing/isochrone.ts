/** ISOCHRONE: a circle-like polygon of what is reachable, and the origin point. */
import type { CoordFormat } from '../../contract/index.js';
import { destination } from '../lib/_geo.js';
import type { Collection } from './compute.js';
import { out, outBox } from './compute.js';
import type { Profile } from './profiles.js';
import type { Position } from './request.js';

/** EMULATOR CHOICE: vertices of the polygon when `isochroneGrid` is absent. */
export const DEFAULT_ISOCHRONE_GRID = 50;
/** EMULATOR CHOICE (no upper bound shown): the largest `distanceInMeters`. */
export const MAX_ISOCHRONE_METRES = 100_000;

export interface IsochroneLimits {
  timeInMinutes: number | null;
  distanceInMeters: number | null;
  grid: number;
}

/** The spec's limits: exactly one of time/distance, time in (0, 60], grid a string integer 35..150. */
export function isochroneLimits(params: Record<string, unknown>): IsochroneLimits | string {
  const time = params.timeInMinutes ?? null;
  const distance = params.distanceInMeters ?? null;
  if ((time === null) === (distance === null)) {
    return 'Genau einer der Werte timeInMinutes und distanceInMeters muss angegeben sein.';
  }
  if (time !== null && (typeof time !== 'number' || !(time > 0 && time <= 60))) {
    return 'timeInMinutes muss größer als 0 und höchstens 60 sein.';
  }
  if (
    distance !== null &&
    (typeof distance !== 'number' || !(distance > 0 && distance <= MAX_ISOCHRONE_METRES))
  ) {
    return `distanceInMeters muss größer als 0 und höchstens ${MAX_ISOCHRONE_METRES} sein.`;
  }
  const raw = params.isochroneGrid ?? null;
  const grid =
    raw === null
      ? DEFAULT_ISOCHRONE_GRID
      : typeof raw === 'string' && /^\s*\d+\s*$/.test(raw)
        ? Number(raw)
        : raw;
  if (typeof grid !== 'number' || !Number.isInteger(grid) || grid < 35 || grid > 150) {
    return 'isochroneGrid muss eine ganze Zahl von 35 bis 150 sein.';
  }
  return { timeInMinutes: time as number | null, distanceInMeters: distance as number | null, grid };
}

export function isochrone(
  profile: Profile,
  format: CoordFormat,
  origin: Position,
  l: IsochroneLimits,
): Collection {
  const reach = l.timeInMinutes !== null ? profile.speed * l.timeInMinutes * 60 : (l.distanceInMeters ?? 0);
  const radius = reach / profile.detour;
  const ring: number[][] = [];
  for (let i = 0; i < l.grid; i++) ring.push(destination(origin[0], origin[1], radius, (360 * i) / l.grid));
  ring.push(ring[0] as number[]);
  const props =
    l.timeInMinutes !== null ? { timeInMinutes: l.timeInMinutes } : { distanceInMeters: l.distanceInMeters };
  return {
    type: 'FeatureCollection',
    bbox: outBox(format, ring),
    properties: { radius: Math.round(radius) },
    features: [
      {
        type: 'Feature',
        geometry: { type: 'Polygon', coordinates: [ring.map((p) => out(format, p))] },
        properties: { type: 'isochrone', ...props },
      },
      {
        type: 'Feature',
        geometry: { type: 'Point', coordinates: out(format, origin) },
        properties: { type: 'origin' },
      },
    ],
  };
}

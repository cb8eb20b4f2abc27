/**
 * EMULATOR CHOICE: there is no road network, so a route is the great circle times a detour factor,
 * travelled at a constant speed per profile. Distances round to whole metres, durations to seconds.
 */
import type { SpeedProfile } from '../../contract/index.js';
import { haversine } from '../lib/_geo.js';

export interface Profile {
  /** Road distance / straight-line distance. */
  detour: number;
  /** Metres per second. */
  speed: number;
}

export const PROFILES: Record<SpeedProfile, Profile> = {
  FAST: { detour: 1.3, speed: 90 / 3.6 },
  SLOW: { detour: 1.3, speed: 60 / 3.6 },
  BICYCLE: { detour: 1.2, speed: 16 / 3.6 },
  PEDESTRIAN: { detour: 1.15, speed: 4.8 / 3.6 },
};

export interface Leg {
  distance: number;
  duration: number;
}

/** Unrounded road distance (m) and duration (s) between two [lon, lat] points. */
export function leg(profile: Profile, a: readonly number[], b: readonly number[]): Leg {
  const distance = haversine(a[0] ?? 0, a[1] ?? 0, b[0] ?? 0, b[1] ?? 0) * profile.detour;
  return { distance, duration: distance / profile.speed };
}

export function rounded(l: Leg): Leg {
  return { distance: Math.round(l.distance), duration: Math.round(l.duration) };
}

export function sum(legs: readonly Leg[]): Leg {
  return legs.reduce((a, b) => ({ distance: a.distance + b.distance, duration: a.duration + b.duration }), {
    distance: 0,
    duration: 0,
  });
}

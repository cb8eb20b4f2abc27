/** What the routing kinds (route, isochrone, trip, match) share: options, numbers, output helpers. */
import type { Geometry, LineString, MultiLineString } from 'geojson';
import { z } from 'zod';
import type { SpeedProfile } from '../contract/index.js';
import { ROUTING_MAX_POINTS, SPEED_PROFILES } from '../contract/index.js';
import type { ItemFailure } from '../engine/job.js';
import type { FieldValue, LonLat } from '../types.js';
import { toWkt } from './_geometry.js';
import { locale } from './_options.js';

export { ROUTING_MAX_POINTS };

export const speedProfile = z
  .enum(SPEED_PROFILES as readonly SpeedProfile[] as [SpeedProfile, ...SpeedProfile[]])
  .optional();

/** routingparams.isoLocale, the language of route instructions: checked as address search's is. */
export { locale };

/** The docs' words for it, the same in every routing kind. */
export const LOCALE_DOC = 'none (not sent); a locale such as `en-GB`';

/** isoLocale for the client: nothing when the job file sets none, so the service's own applies. */
export function localeParam(value: string | undefined): { isoLocale?: string } {
  return value === undefined ? {} : { isoLocale: value };
}

/** Adds `<prefix>wkt`: the kind's geometry as WKT, for CSV output (GeoJSON output has it anyway). */
export const wkt = z.boolean().optional();

/** The row's [lon, lat] as a GeoJSON Point. */
export function pointOf(point: LonLat): Geometry {
  return { type: 'Point', coordinates: [point[0], point[1]] };
}

/** A line for output: null when it has fewer than two positions (RFC 7946 forbids those). */
export function lineOrNull(line: LineString | MultiLineString | null): LineString | MultiLineString | null {
  if (line === null) return null;
  const parts = line.type === 'LineString' ? [line.coordinates] : line.coordinates;
  return parts.some((part) => part.length >= 2) ? line : null;
}

/** The `<prefix>wkt` column when asked for. */
export function wktColumn(
  prefix: string,
  enabled: boolean,
  geometry: Geometry | null,
): Record<string, FieldValue> {
  return enabled ? { [`${prefix}wkt`]: toWkt(geometry) } : {};
}

/** The same failure for every item of a request. */
export function failAll<I>(
  items: readonly I[],
  key: (item: I) => string,
  failure: ItemFailure,
): Map<string, { ok: false; failure: ItemFailure }> {
  return new Map(items.map((item) => [key(item), { ok: false as const, failure }]));
}

/** Rounds to whole units (metres, seconds) for output. */
export const whole = (n: number) => Math.round(n);

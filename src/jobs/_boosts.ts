/**
 * What an autocomplete job asks beyond the text: the languages of the suggestions (`isoLanguages`)
 * and the spec's two boosts, suggestions near a point (`proximityBoost` around `center`) and inside
 * a rectangle (`boundingBoxBoost` over `boundingbox`). Each goes on the wire only when set.
 */
import { z } from 'zod';
import type { AutocompleteRequest } from '../contract/index.js';

const lon = z.number().min(-180).max(180);
const lat = z.number().min(-90).max(90);
// The spec gives a weight no range; a boost of 0 or less would boost nothing, or push away.
const weight = z.number().positive();

/** Suggestions near a point score higher. The spec names no unit for the radius; the emulator reads metres. */
export const boostNearOption = z.strictObject({ lon, lat, radius: z.number().positive(), weight }).optional();

/** Suggestions inside the rectangle score higher. */
export const boostBoxOption = z
  .strictObject({ west: lon, south: lat, east: lon, north: lat, weight })
  .refine((box) => box.south <= box.north && box.west <= box.east, {
    message: 'a rectangle whose west is not east of its east, nor its south north of its north',
  })
  .optional();

export interface BoostSettings {
  /** `isoLanguages`. @default all the service has */
  readonly languages?: readonly string[];
  /** `center` and `boostOptions.proximityBoost`. @default none */
  readonly boostNear?: z.infer<typeof boostNearOption>;
  /** `boundingbox` and `boostOptions.boundingBoxBoost`. @default none */
  readonly boostBox?: z.infer<typeof boostBoxOption>;
}

/** The request properties the settings give; none for a setting left out. */
export function boostRequest(o: BoostSettings): Partial<AutocompleteRequest> {
  const near = o.boostNear;
  const box = o.boostBox;
  const boosts: NonNullable<AutocompleteRequest['boostOptions']> = {
    ...(near === undefined ? {} : { proximityBoost: { radius: near.radius, value: near.weight } }),
    ...(box === undefined ? {} : { boundingBoxBoost: { value: box.weight } }),
  };
  return {
    ...(o.languages === undefined ? {} : { isoLanguages: [...o.languages] }),
    ...(near === undefined ? {} : { center: { latitude: near.lat, longitude: near.lon } }),
    ...(box === undefined
      ? {}
      : {
          boundingbox: {
            leftDown: { latitude: box.south, longitude: box.west },
            rightUp: { latitude: box.north, longitude: box.east },
          },
        }),
    ...(Object.keys(boosts).length === 0 ? {} : { boostOptions: boosts }),
  };
}

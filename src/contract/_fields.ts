/** Zod building blocks that several interfaces' answers share. */
import { z } from 'zod';

export const nullableString = z.string().nullable();
export const optString = z.string().optional();
export const optNullableString = nullableString.optional();

export const position = z.tuple([z.number(), z.number()]).rest(z.number());
export const bbox = z.array(z.number());
export const pointGeometry = z.object({ type: z.literal('Point'), coordinates: position });
/** Any GeoJSON geometry; coordinates are checked by whoever reads them. */
export const anyGeometry = z.looseObject({ type: z.string(), coordinates: z.unknown().optional() });

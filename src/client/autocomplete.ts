/**
 * Autocomplete and its token endpoint. The answer is normalised to a list of GeoEntity whether
 * the service sent `geoEntities`, a bare array, or a FeatureCollection with capitalised property
 * names (`GeoEntityType`, `DisplayValue`, `_osmid`).
 */
import { z } from 'zod';
import type { AutocompleteRequest, GeoEntity } from '../contract/index.js';
import {
  autocompleteCollectionSchema,
  autocompleteListSchema,
  geoEntitySchema,
  tokenResponseSchema,
} from '../contract/index.js';
import type { CallOptions, ClientContext } from './_context.js';
import { check } from './_parse.js';

const looksLikeCollection = z.looseObject({ type: z.literal('FeatureCollection') });

/** Suggestions for a partial query, most relevant first as the service ranks them. */
export function autocomplete(
  ctx: ClientContext,
  req: AutocompleteRequest,
  o?: CallOptions,
): Promise<GeoEntity[]> {
  return ctx.transport.call(
    {
      service: 'autocomplete',
      method: 'POST',
      base: ctx.base('autocomplete'),
      path: '',
      body: JSON.stringify(req),
      parse: readAutocompleteResponse,
    },
    o?.signal,
  );
}

/** Fetches a new token from the token endpoint (with retries) and registers it as a secret. */
export async function fetchToken(ctx: ClientContext, o?: CallOptions): Promise<string> {
  const token = await ctx.transport.call(
    {
      service: 'token',
      method: 'GET',
      base: ctx.base('token'),
      path: ctx.auth.tokenPath,
      parse: (json) => check(tokenResponseSchema, json, 'token'),
    },
    o?.signal,
  );
  // Registered as a secret by the caller, who knows how long it is kept (src/client/token.ts).
  return token;
}

/** Checks an autocomplete answer of either form and normalises it. */
export function readAutocompleteResponse(json: unknown): GeoEntity[] {
  if (!looksLikeCollection.safeParse(json).success) {
    const list = check(autocompleteListSchema, json, 'autocomplete');
    return Array.isArray(list) ? list : list.geoEntities;
  }
  const collection = check(autocompleteCollectionSchema, json, 'autocomplete');
  return collection.features.map((feature, i) => {
    const entity: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(feature.properties)) entity[camelName(name)] = value;
    if (entity.geometry === undefined) entity.geometry = feature.geometry;
    return check(geoEntitySchema, entity, 'autocomplete', ['features', i, 'properties']);
  });
}

/** `GeoEntityType` -> `geoEntityType`, `_osmid` -> `osmid`. */
function camelName(name: string): string {
  const bare = name.startsWith('_') ? name.slice(1) : name;
  return bare.charAt(0).toLowerCase() + bare.slice(1);
}

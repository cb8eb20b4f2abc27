/** Every service endpoint of the emulator, by interface. */
import type { HandlerContext, Route } from './_routes.js';
import { addressIndexOf, addressSearchRoutes } from './address-search/handler.js';
import { areaRoutes } from './area/handler.js';
import { autocompleteRoutes, repositoryOf } from './autocomplete/handler.js';
import type { Datasets } from './datasets/index.js';
import { elevationRoutes } from './elevation.js';
import { geocodingRoutes } from './geocoding.js';
import { routingRoutes } from './routing/handler.js';
import { tokenRoutes } from './token.js';

export function allRoutes(ctx: HandlerContext): Route[] {
  return [
    ...addressSearchRoutes(ctx),
    ...tokenRoutes(ctx),
    ...autocompleteRoutes(ctx),
    ...areaRoutes(ctx),
    ...routingRoutes(ctx),
    ...geocodingRoutes(ctx),
    ...elevationRoutes(ctx),
  ];
}

/** Builds every data set and index now rather than on first use. */
export function preload(data: Datasets): void {
  void data.srtm;
  void data.boundaries;
  void data.locator;
  addressIndexOf(data);
  repositoryOf(data);
}

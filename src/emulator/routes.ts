/** Every service endpoint of the emulator, by interface. */
import type { HandlerContext, Route } from './_routes.js';
import { addressSearchRoutes } from './address-search/handler.js';
import { elevationRoutes } from './elevation.js';

export function allRoutes(ctx: HandlerContext): Route[] {
  return [...addressSearchRoutes(ctx), ...elevationRoutes(ctx)];
}

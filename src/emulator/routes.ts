/** Every service endpoint of the emulator, by interface. */
import type { HandlerContext, Route } from './_routes.js';

export function allRoutes(_ctx: HandlerContext): Route[] {
  return [];
}

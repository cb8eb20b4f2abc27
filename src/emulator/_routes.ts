/** The service endpoints: which interface answers which method and path. */
import type { Reply, ServiceRequest } from './_http.js';
import type { Auth } from './auth.js';
import type { Datasets } from './datasets/index.js';
import type { InterfaceName } from './types.js';

export interface Route {
  method: 'GET' | 'POST';
  /** Canonical path; matched case-insensitively, as the real (IIS-hosted) service does. */
  path: string;
  iface: InterfaceName;
  handle(req: ServiceRequest): Reply;
}

/** What every handler factory gets. */
export interface HandlerContext {
  data: Datasets;
  auth: Auth;
}

export class RouteTable {
  readonly #byPath = new Map<string, Route[]>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      const key = route.path.toLowerCase();
      this.#byPath.set(key, [...(this.#byPath.get(key) ?? []), route]);
    }
  }

  /** The route; 'method' when the path exists with other methods only; undefined for unknown paths. */
  find(method: string, path: string): Route | 'method' | undefined {
    const routes = this.#byPath.get(path.toLowerCase().replace(/\/+$/, ''));
    if (!routes) return undefined;
    return routes.find((r) => r.method === method) ?? 'method';
  }

  allowed(path: string): string {
    return (this.#byPath.get(path.toLowerCase().replace(/\/+$/, '')) ?? []).map((r) => r.method).join(', ');
  }
}

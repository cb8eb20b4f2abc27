/**
 * The trip and match jobs' cache: one answer per request, not per row. A stop's place in its
 * trip and a fix's road depend on every point of the trip or track, so the engine's per-item
 * cache cannot keep them; the whole TRIP or MATCH answer can, keyed by all the points sent (in
 * order) and every option that changes it. Sits between the job and the client, as the boundaries
 * job's area cache does, so the jobs stay unaware of it.
 */
import { createHash } from 'node:crypto';
import type { GeoClient, MatchResult, RoutingOptions, TripOptions, TripResult } from '../client/index.js';
import type { LonLat } from '../types.js';
import { guardedReads, takenSince } from './_guarded-reads.js';
import { traceCall, traceExpired, tracePassedOn } from './_traced.js';
import type { AreaCacheOptions } from './areas.js';
import { canonicalJson, scopeOf } from './key.js';
import { isFresh } from './lifetimes.js';
import type { Scope } from './store.js';

type Routing = Pick<GeoClient['routing'], 'trip' | 'match'>;

/** What the area cache takes, `service` being the routing service's identity: both sit around the client. */
export type RoutingCacheOptions = AreaCacheOptions;

/** Raise when the stored form of a TRIP or MATCH answer changes. */
const FORMAT = 1;

/** The options that change the answer: everything but the abort signal. */
function answerParams(opts: RoutingOptions | undefined): Record<string, unknown> {
  const { signal: _signal, ...params } = opts ?? {};
  return params;
}

/** Every point, in order, as sent: a trip of 1,000 stops is kept under a 64-character key. */
function pointsKey(points: readonly LonLat[]): string {
  return createHash('sha256').update(canonicalJson(points)).digest('hex');
}

export function cachedRouting<R extends Routing>(routing: R, o: RoutingCacheOptions): R {
  const now = o.now ?? Date.now;
  const guarded = guardedReads(o);
  const ours = takenSince(o);

  async function read(scope: Scope, key: string): Promise<unknown> {
    const entry = (await guarded(() => o.store.getMany(scope, [key])))?.get(key);
    if (entry === undefined || !ours(entry)) return undefined;
    if (!isFresh(entry, 'routing', o.lifetimes, now())) {
      traceExpired(o.tally);
      return undefined;
    }
    try {
      return JSON.parse(entry.value) as unknown;
    } catch {
      // Not ours to read: asked again.
      return undefined;
    }
  }

  /** The kept answer for these points, or the service's, kept for next time. */
  async function through<T extends TripResult | MatchResult>(
    operation: 'trip' | 'match',
    points: readonly LonLat[],
    opts: RoutingOptions | undefined,
    valid: (value: unknown) => value is T,
    ask: () => Promise<T>,
  ): Promise<T> {
    const scope = scopeOf({
      interface: 'routing',
      service: o.service,
      operation,
      params: answerParams(opts),
      format: FORMAT,
    });
    const key = pointsKey(points);
    const kept = await read(scope, key);
    // Hits and misses count the engine's items and requests (_traced.ts), as the item cache does.
    traceCall(o.tally, valid(kept), points.length);
    if (valid(kept)) return kept;
    const answer = await ask();
    if (o.writer !== undefined && o.mode !== 'read-only')
      o.writer.add({ scope, item: key, value: JSON.stringify(answer), notFound: false, createdAt: now() });
    return answer;
  }

  const route = (routing as Partial<GeoClient['routing']>).route;
  return {
    ...routing,
    ...(route === undefined
      ? {}
      : {
          route: (...args: Parameters<typeof route>) => {
            tracePassedOn();
            return route.apply(routing, args);
          },
        }),
    trip: (points: readonly LonLat[], opts?: TripOptions) =>
      through('trip', points, opts, isTrip, () => routing.trip(points, opts)),
    match: (points: readonly LonLat[], opts?: RoutingOptions) =>
      through(
        'match',
        points,
        opts,
        (value): value is MatchResult => isMatch(value, points.length),
        () => routing.match(points, opts),
      ),
  };
}

function isRoute(value: unknown): value is TripResult {
  const v = value as Partial<TripResult> | null;
  return (
    typeof v?.distance_m === 'number' && typeof v.duration_s === 'number' && typeof v.properties === 'object'
  );
}

function isTrip(value: unknown): value is TripResult {
  return (
    isRoute(value) && ((value as TripResult).order === null || Array.isArray((value as TripResult).order))
  );
}

function isMatch(value: unknown, points: number): value is MatchResult {
  return isRoute(value) && (value as Partial<MatchResult>).destinations?.length === points;
}

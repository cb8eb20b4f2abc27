/**
 * Reading a TRIP answer into what each stop gets: its place in the visiting order, the leg that
 * reaches it and the distance and time driven by then.
 */
import type { LineString, MultiLineString } from 'geojson';
import { ResponseError } from '../errors.js';
import type { LonLat } from '../types.js';
import type { Leg } from './_ports.js';

export interface StopAnswer {
  /** 1 = the start. */
  readonly order: number;
  /** From the stop before; null for the start. */
  readonly leg: Leg | null;
  /** Driven when this stop is reached. */
  readonly reached: Leg;
  readonly stops: number;
  readonly total: Leg;
  readonly point: LonLat;
  /** The trip's line, on the trip's last row (in input order) only. */
  readonly line?: LineString | MultiLineString | null;
}

const ZERO: Leg = { distance_m: 0, duration_s: 0 };

/** A trip of one stop: nowhere to drive. */
export function aloneAnswer(point: LonLat): StopAnswer {
  return { order: 1, leg: null, reached: ZERO, stops: 1, total: ZERO, point, line: null };
}

/**
 * The visiting order as indices into the stops sent: each stop once, the start first; with a
 * round trip the start again at the end (added when the service leaves it out).
 */
export function visitingOrder(order: readonly number[] | null, n: number, roundTrip: boolean): number[] {
  const expected = `every stop index from 0 to ${n - 1} once, starting with 0`;
  const visits =
    order !== null && roundTrip && order.length === n + 1 && order[n] === order[0]
      ? order.slice(0, n)
      : [...(order ?? [])];
  const permutation =
    visits.length === n &&
    visits[0] === 0 &&
    new Set(visits).size === n &&
    visits.every((i) => i >= 0 && i < n);
  if (order === null || !permutation) {
    throw new ResponseError(`routing TRIP: the visiting order is not ${expected}`, {
      path: 'features[0].properties.order',
      expected,
      received: JSON.stringify(order)?.slice(0, 200),
    });
  }
  return roundTrip ? [...visits, 0] : visits;
}

/**
 * Each stop's answer, in visiting order: `sorted` as sent, `order` from `visitingOrder`, `legs` one
 * per step of `order`.
 */
export function stopAnswers<S extends { readonly point: LonLat }>(
  sorted: readonly S[],
  order: readonly number[],
  legs: readonly Leg[],
  total: Leg,
): { stop: S; answer: StopAnswer }[] {
  let reached = ZERO;
  const out: { stop: S; answer: StopAnswer }[] = [];
  for (let position = 0; position < sorted.length; position++) {
    const stop = sorted[order[position] as number] as S;
    const leg = position === 0 ? null : (legs[position - 1] as Leg);
    if (leg !== null) {
      reached = {
        distance_m: reached.distance_m + leg.distance_m,
        duration_s: reached.duration_s + leg.duration_s,
      };
    }
    out.push({
      stop,
      answer: { order: position + 1, leg, reached, stops: sorted.length, total, point: stop.point },
    });
  }
  return out;
}

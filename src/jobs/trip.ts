/**
 * trip: stops grouped by a trip column, ordered by a sequence column (the first is the start) ->
 * per stop its place in the optimised visiting order and the distance and duration driven when it
 * is reached. One TRIP request per trip.
 *
 * A trip's rows must be together in the input (see _groups.ts); the trip is sent when the next
 * trip begins or the input ends. A trip with more stops than one request takes fails whole, with
 * LIMIT_EXCEEDED, as does one with more rows than the run holds at once (`run.window`): a trip cut
 * in two would be two wrong trips. A stop that fails on its own (no coordinates) is left out of its
 * trip; `trip_stops` says how many stops were routed.
 */
import type { Geometry } from 'geojson';
import { z } from 'zod';
import { thousandsAmbiguity } from '../client/coords.js';
import type { SpeedProfile } from '../contract/index.js';
import { answeredWithoutRequest } from '../engine/counters.js';
import type { ItemFailure, ItemResult, Job, PlanIssue } from '../engine/job.js';
import { ResponseError } from '../errors.js';
import type { LonLat, Row } from '../types.js';
import { columnName } from './_column-name.js';
import { readsDegrees } from './_coord-format.js';
import {
  columnOf,
  fieldMark,
  isPlanIssue,
  type Mapping,
  pointGeometry,
  readPoint,
  readText,
  withSwapHint,
} from './_fields.js';
import { refuse, requireEach } from './_file-rules.js';
import { GroupRuns, type Run } from './_groups.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { POINT_DOC, POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { Leg, TripPort } from './_ports.js';
import {
  failAll,
  LOCALE_DOC,
  lineOrNull,
  locale,
  localeParam,
  pointOf,
  ROUTING_MAX_POINTS,
  speedProfile,
  whole,
  wkt,
  wktColumn,
} from './_routing.js';
import { bySequence, sequenceText } from './_sequence.js';
import { answerOf } from './_single.js';
import type { SwappedPoints } from './_swapped.js';
import { aloneAnswer, type StopAnswer, stopAnswers, visitingOrder } from './_tour.js';

export interface TripJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default 'trip_' */
  readonly prefix?: string;
  /** Return to the start after the last stop. @default false */
  readonly roundTrip?: boolean;
  /** @default 'FAST' */
  readonly speedProfile?: SpeedProfile;
  /** routingparams.isoLocale, the language of route instructions. Not sent when absent. */
  readonly locale?: string;
  /**
   * Most stops in one trip, at most ROUTING_MAX_POINTS (the emulator's limit: the spec leaves the
   * real service's "not shown"); lower it to your contract's. @default 1000
   */
  readonly maxStops?: number;
  /** @default false */
  readonly wkt?: boolean;
}

/** A number written in groups of three digits, with spaces, apostrophes, points or commas between. */
const GROUPED = /^[+-]?\d{1,3}(?:[ \u00a0\u202f'’.,]\d{3})+(?:[.,]\d+)?$/;

export interface Stop {
  readonly run: Run;
  /** The row's 0-based index (unique: the dedup key). */
  readonly index: number;
  readonly point: LonLat;
  readonly sequence?: string;
}

export type { StopAnswer };

/**
 * A stop's place in its trip as `bySequence` compares it (sequenceText); undefined when the mapping
 * has no sequence, and why not when the row's is missing or cannot be told.
 */
function readSequence(row: Row, mapping: Mapping): string | PlanIssue | undefined {
  if (mapping.sequence === undefined) return undefined;
  const field = columnOf(mapping, 'sequence') ?? 'sequence';
  const sequence = readText(row, mapping, 'sequence');
  if (sequence === undefined)
    return {
      code: 'FIELD_MISSING',
      field,
      message: `${columnName(field)}: missing; expected the stop's place in its trip (a number or text)`,
    };
  const mark = fieldMark(row, mapping, 'sequence');
  // `1,000` is stop 1 or stop 1000 (a list exported with thousands separators): asked, not guessed.
  const ambiguous = thousandsAmbiguity(sequence, "the stop's place in its trip", mark);
  if (ambiguous !== undefined)
    return { code: 'FIELD_INVALID', field, message: `${columnName(field)}: ${ambiguous}` };
  // `1 000`, `1,000.0`, `1'000`: no number to JavaScript, so the whole trip sorted as text and
  // the thousandth stop became the start. A label such as `1a` stays text, as it should.
  const text = sequenceText(sequence, mark);
  if (GROUPED.test(sequence.trim()) && !Number.isFinite(Number(text)))
    return {
      code: 'FIELD_INVALID',
      field,
      message: `${columnName(field)}: expected the stop's place in its trip, got \`${sequence}\`, a number written with thousands separators; write it without them`,
    };
  return text;
}

export function createTripJob(client: TripPort, options: TripJobOptions): Job<Stop, StopAnswer> {
  const prefix = options.prefix ?? 'trip_';
  const roundTrip = options.roundTrip ?? false;
  const profile = options.speedProfile ?? 'FAST';
  // The TRIP and the ROUTE its legs may come from speak the same language.
  const language = localeParam(options.locale);
  const maxStops = Math.min(options.maxStops ?? ROUTING_MAX_POINTS, ROUTING_MAX_POINTS);
  // The job's own options.maxStops is the user's limit, not the service's: say which one it is.
  const stopsLimit =
    maxStops < ROUTING_MAX_POINTS
      ? `the job's options.maxStops is ${maxStops} (geobatch sends at most ${ROUTING_MAX_POINTS} points a request): split the trip, or raise options.maxStops`
      : `geobatch sends at most ${ROUTING_MAX_POINTS} points a request (the emulator's limit; the spec publishes none for the service): split the trip`;
  const withWkt = options.wkt ?? false;
  const groups = new GroupRuns(options.mapping, 'trip', 'trip');
  /** Trips cut before their end: every part fails, with the first reason found. */
  const cut = new WeakMap<Run, string>();
  const key = (stop: Stop) => `${stop.run.id}:${stop.index}`;
  const names = [
    'order',
    'leg_distance_m',
    'leg_duration_s',
    'distance_m',
    'duration_s',
    'stops',
    'total_distance_m',
    'total_duration_s',
    ...(withWkt ? ['wkt'] : []),
  ];

  /** Why these stops are not the whole trip, or undefined when they are. */
  function incomplete(run: Run, stops: readonly Stop[]): string | undefined {
    const earlier = cut.get(run);
    if (earlier !== undefined) return earlier;
    if (run.ended && stops.length === run.count) return undefined;
    const from = `trip ${run.name} (from row ${run.first + 1})`;
    const reason =
      run.count > maxStops
        ? `${from} has more than ${maxStops} stops; ${stopsLimit}`
        : `${from} has more rows than the run holds at once (${run.count} so far): raise run.window above the largest trip`;
    cut.set(run, reason);
    return reason;
  }

  /** A trip cut short (over maxStops, or by the window) fails whole, without a request. */
  function refused(stops: readonly Stop[]): ItemFailure | undefined {
    const first = stops[0];
    const reason = first === undefined ? undefined : incomplete(first.run, stops);
    // Stage input, as the README's table has it: nothing was sent, the rows are what is wrong.
    return reason === undefined ? undefined : { code: 'LIMIT_EXCEEDED', stage: 'input', message: reason };
  }

  /** Legs in visiting order: the TRIP answer's, else those of a ROUTE through the same stops. */
  async function legsOf(legs: Leg[] | null, path: LonLat[], signal: AbortSignal): Promise<Leg[]> {
    if (legs !== null && legs.length === path.length - 1) return legs;
    const route = await client.routing.route(path, { signal, speedProfile: profile, ...language });
    if (route.legs !== null && route.legs.length === path.length - 1) return route.legs;
    throw new ResponseError(
      'routing TRIP: the answer has no legs, nor has the ROUTE through its stops: the distance to each stop cannot be told',
      { path: 'features[0].properties.legs', expected: `${path.length - 1} legs` },
    );
  }

  async function route(
    stops: readonly Stop[],
    signal: AbortSignal,
  ): Promise<Map<string, ItemResult<StopAnswer>>> {
    const out = new Map<string, ItemResult<StopAnswer>>();
    const last = stops[stops.length - 1] as Stop;
    if (stops.length === 1) {
      // One stop is a trip of nothing: no request.
      answeredWithoutRequest('free');
      out.set(key(last), { ok: true, value: aloneAnswer(last.point) });
      return out;
    }
    const sorted = bySequence(stops, (stop) => stop.sequence);
    const points = sorted.map((stop) => stop.point);
    const result = await client.routing.trip(points, {
      signal,
      speedProfile: profile,
      ...language,
      roundTrip,
    });
    const order = visitingOrder(result.order, sorted.length, roundTrip);
    const path = order.map((i) => points[i] as LonLat);
    const legs = await legsOf(result.legs, path, signal);
    const total = { distance_m: result.distance_m, duration_s: result.duration_s };
    for (const { stop, answer } of stopAnswers(sorted, order, legs, total)) {
      const value = stop === last ? { ...answer, line: lineOrNull(result.geometry) } : answer;
      out.set(key(stop), { ok: true, value });
    }
    return out;
  }

  return {
    kind: 'trip',
    tracesRequests: true,
    columns: names.map((name) => `${prefix}${name}`),
    plan(row) {
      const run = groups.enter(row);
      if (isPlanIssue(run)) return run;
      const point = readPoint(row, options.mapping);
      if (isPlanIssue(point)) return point;
      const sequence = readSequence(row, options.mapping);
      if (isPlanIssue(sequence)) return sequence;
      run.count++;
      options.points?.note(row, point[0], point[1]);
      return [{ run, index: row.ref.index, point, ...(sequence === undefined ? {} : { sequence }) }];
    },
    key,
    locate: (row) => pointGeometry(row, options.mapping),
    batching: {
      // A full trip leaves when the next row comes: a stop more, and it fails as too big.
      maxItems: maxStops,
      lingerMs: 0,
      group: (stop) => stop.run.id,
      contiguous: true,
    },
    // One stop is a trip of nothing (see route): the dry run counts no request for it.
    requestsFor: (stops) => (stops.length === 1 ? 0 : 1),
    refusedBatch: refused,
    async execute(stops, signal) {
      if (stops[0] === undefined) return new Map();
      const failure = refused(stops);
      if (failure !== undefined) {
        // No request went: not one the summary counts as sent (and then as failed to connect).
        answeredWithoutRequest('free');
        return failAll(stops, key, failure);
      }
      return route(stops, signal);
    },
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return withSwapHint(answer.failed, [readPoint(row, options.mapping)]);
      const a = answer.value;
      const line = a.line ?? null;
      const geometry: Geometry = line ?? pointOf(a.point);
      return {
        ok: true,
        records: [
          {
            columns: {
              [`${prefix}order`]: a.order,
              [`${prefix}leg_distance_m`]: a.leg === null ? null : whole(a.leg.distance_m),
              [`${prefix}leg_duration_s`]: a.leg === null ? null : whole(a.leg.duration_s),
              [`${prefix}distance_m`]: whole(a.reached.distance_m),
              [`${prefix}duration_s`]: whole(a.reached.duration_s),
              [`${prefix}stops`]: a.stops,
              [`${prefix}total_distance_m`]: whole(a.total.distance_m),
              [`${prefix}total_duration_s`]: whole(a.total.duration_s),
              ...wktColumn(prefix, withWkt, line),
            },
            geometry,
          },
        ],
      };
    },
    ...groups.hooks(),
  };
}

/** Stops are grouped by a column: there is no default for it. */
function tripColumnIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireEach(mapping, ['trip'], 'which trip each stop belongs to');
}

export const tripKind = defineJobKind({
  name: 'trip',
  summary: 'stops grouped by trip -> the optimised visiting order, distance and time per stop',
  mappingFields: ['trip', 'sequence', 'lon', 'lat'],
  mappingRequired: true,
  options: z.strictObject({
    prefix,
    roundTrip: z.boolean().optional(),
    speedProfile,
    locale,
    maxStops: positiveInt
      .min(2)
      .max(
        ROUTING_MAX_POINTS,
        `geobatch sends at most ${ROUTING_MAX_POINTS} points a request (the emulator's limit; the spec publishes none for the service)`,
      )
      .optional(),
    wkt,
  }),
  services: ['geojson'],
  docs: {
    mapping: `\`trip\` (required: the column grouping the stops), \`sequence\` (the stops' order, the first is the start; default input order), ${POINT_DOC}`,
    options: {
      prefix: '`trip_`',
      roundTrip: 'false',
      speedProfile: '`FAST` \\| `SLOW` \\| `BICYCLE` \\| `PEDESTRIAN`',
      locale: LOCALE_DOC,
      maxStops: `${ROUTING_MAX_POINTS}, at most ${ROUTING_MAX_POINTS}`,
      wkt: 'false',
    },
  },
  checkFile: ({ mapping }) => tripColumnIssue(mapping),
  constants: () => [{ keys: ['sequence'], read: readSequence }],
  coordinates: () => ({ reads: [readsDegrees([POINT_FIELDS])] }),
  create({ client, mapping, options, points }) {
    refuse('trip', tripColumnIssue(mapping));
    return createTripJob(client, { mapping, ...options, points });
  },
});

/**
 * route: per row an origin, a destination and optional via points -> distance (m), duration (s),
 * and the route's line in GeoJSON output. One ROUTE request per distinct route: rows asking the
 * same points (to 1e-6°) with the same time share one request.
 */
import { z } from 'zod';
import type { SpeedProfile } from '../contract/index.js';
import type { Job, PlanIssue } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import { columnName } from './_column-name.js';
import { readsDegrees } from './_coord-format.js';
import {
  columnOf,
  isPlanIssue,
  type LabelledPoint,
  type Mapping,
  pathGeometry,
  pointKey,
  pointsIssue,
  readPoint,
  readText,
  withSwapHint,
} from './_fields.js';
import { firstIssue, refuse, requireEach } from './_file-rules.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { prefix } from './_options.js';
import type { RoutePort, RouteResult } from './_ports.js';
import {
  LOCALE_DOC,
  lineOrNull,
  locale,
  localeParam,
  ROUTING_MAX_POINTS,
  speedProfile,
  whole,
  wkt,
  wktColumn,
} from './_routing.js';
import { readInstant } from './_sequence.js';
import { answerOf, eachItem } from './_single.js';
import type { SwappedPoints } from './_swapped.js';
import { readVia } from './_via.js';

export type RoutingTimeMode = 'ARRIVAL' | 'DEPARTURE';

export interface RouteJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default 'route_' */
  readonly prefix?: string;
  /** @default 'FAST' */
  readonly speedProfile?: SpeedProfile;
  /** routingparams.isoLocale, the language of route instructions. Not sent when absent. */
  readonly locale?: string;
  /** Whether `time` is the departure or the arrival. Not sent when absent. */
  readonly routingTimeMode?: RoutingTimeMode;
  /**
   * The `routingparams` property the row's `time` travels in. The spec names `routingTimeMode` but
   * shows no field for the time itself: set this to the name your contract documents.
   * @default 'routingTime'
   */
  readonly timeParam?: string;
  /** @default false */
  readonly wkt?: boolean;
}

export interface RouteItem {
  readonly points: readonly LonLat[];
  /** The row's date-time as written (ISO 8601), when the mapping has `time`. */
  readonly time?: string;
}

const ORIGIN = { lon: 'originLon', lat: 'originLat', geometry: false } as const;
const DESTINATION = { lon: 'destinationLon', lat: 'destinationLat', geometry: false } as const;
/** The pairs as the swapped-coordinates warning names them, each with the other (src/jobs/_swapped.ts). */
const ORIGIN_NOTED = { ...ORIGIN, with: DESTINATION };
const DESTINATION_NOTED = { ...DESTINATION, with: ORIGIN };

const TIME_OF_DAY = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

/** The row's time as written; none when unmapped or blank (the service then takes its own). */
function readTime(row: Row, mapping: Mapping): string | PlanIssue | undefined {
  const text = readText(row, mapping, 'time');
  if (text === undefined) return undefined;
  const field = columnOf(mapping, 'time') ?? 'time';
  // A departure or an arrival is a moment: a date alone (midnight where?) is not one.
  if (readInstant(text)?.kind !== 'date' || !TIME_OF_DAY.test(text)) {
    return {
      code: 'FIELD_INVALID',
      field,
      message: `${columnName(field)}: expected an ISO 8601 date-time such as 2024-05-06T08:30:00+02:00, got \`${text.slice(0, 40)}\``,
    };
  }
  return text;
}

/**
 * A time as identical requests share it: one moment written two ways (`08:00:00+02:00`,
 * `08:00:00+0200`, `06:00:00Z`) is one, and was paid for twice. A time without an offset is the
 * service's to place, so it stays as written: it is not the moment the same text with `Z` is.
 */
function timeKey(time: string | undefined): string {
  if (time === undefined) return '';
  const zoned = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(time);
  const instant = zoned ? readInstant(time) : undefined;
  return instant === undefined ? time : `${instant.value}`;
}

export function createRouteJob(client: RoutePort, options: RouteJobOptions): Job<RouteItem, RouteResult> {
  const prefix = options.prefix ?? 'route_';
  const withWkt = options.wkt ?? false;
  const timeParam = options.timeParam ?? 'routingTime';
  const key = (item: RouteItem) => `${item.points.map(pointKey).join(';')}@${timeKey(item.time)}`;
  const columns = ['distance_m', 'duration_s', ...(withWkt ? ['wkt'] : [])].map((c) => `${prefix}${c}`);

  return {
    kind: 'route',
    columns,
    plan(row) {
      const origin = readPoint(row, options.mapping, ORIGIN);
      const destination = readPoint(row, options.mapping, DESTINATION);
      if (isPlanIssue(origin) || isPlanIssue(destination))
        return pointsIssue(row, options.mapping, [
          { names: ORIGIN, point: origin, label: 'origin' },
          { names: DESTINATION, point: destination, label: 'destination' },
        ]);
      const via = readVia(row, options.mapping, ROUTING_MAX_POINTS - 2);
      if (isPlanIssue(via)) return via;
      const time = readTime(row, options.mapping);
      if (isPlanIssue(time)) return time;
      options.points?.note(row, origin[0], origin[1], ORIGIN_NOTED);
      options.points?.note(row, destination[0], destination[1], DESTINATION_NOTED);
      return [{ points: [origin, ...via, destination], ...(time === undefined ? {} : { time }) }];
    },
    key,
    execute: eachItem(key, (item, signal) =>
      client.routing.route(item.points, {
        signal,
        speedProfile: options.speedProfile ?? 'FAST',
        ...localeParam(options.locale),
        ...(options.routingTimeMode === undefined ? {} : { routingTimeMode: options.routingTimeMode }),
        ...(item.time === undefined ? {} : { params: { [timeParam]: item.time } }),
      }),
    ),
    locate(row) {
      const via = readVia(row, options.mapping, ROUTING_MAX_POINTS - 2);
      return pathGeometry([
        readPoint(row, options.mapping, ORIGIN),
        ...(isPlanIssue(via) ? [] : via),
        readPoint(row, options.mapping, DESTINATION),
      ]);
    },
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return withSwapHint(answer.failed, labelledPoints(row, options.mapping));
      const line = lineOrNull(answer.value.geometry);
      return {
        ok: true,
        records: [
          {
            columns: {
              [`${prefix}distance_m`]: whole(answer.value.distance_m),
              [`${prefix}duration_s`]: whole(answer.value.duration_s),
              ...wktColumn(prefix, withWkt, line),
            },
            geometry: line,
          },
        ],
      };
    },
  };
}

/** Which columns a point is read from, as a hint names it (`from_lon/from_lat`). */
function pointLabel(mapping: Mapping, ends: { readonly lon: string; readonly lat: string }): string {
  return `${columnName(columnOf(mapping, ends.lon) ?? ends.lon)}/${columnName(columnOf(mapping, ends.lat) ?? ends.lat)}`;
}

/**
 * A route's points, each named as a swap hint says it: the origin and the destination by their
 * columns, a via point by its column and its place (`via point 2`), as readVia names it.
 */
function labelledPoints(row: Row, mapping: Mapping): LabelledPoint[] {
  const via = readVia(row, mapping, ROUTING_MAX_POINTS - 2);
  const viaField = columnOf(mapping, 'via') ?? 'via';
  return [
    { point: readPoint(row, mapping, ORIGIN), label: pointLabel(mapping, ORIGIN) },
    ...(isPlanIssue(via)
      ? []
      : via.map((point, i) => ({ point, label: `${columnName(viaField)} point ${i + 1}` }))),
    { point: readPoint(row, mapping, DESTINATION), label: pointLabel(mapping, DESTINATION) },
  ];
}

/** A route needs both ends: there are no default columns for them. */
function endpointsIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireEach(
    mapping,
    ['originLon', 'originLat', 'destinationLon', 'destinationLat'],
    'a route needs the coordinates of its origin and destination',
  );
}

/** The `routingparams` properties the spec gives a meaning of their own: the time cannot travel in one. */
const ROUTING_PARAMS = [
  'type',
  'isoLocale',
  'coordFormatOut',
  'speedProfile',
  'routingTimeMode',
  'routingRoundTrip',
  'timeInMinutes',
  'distanceInMeters',
  'isochroneGrid',
  'channel',
];

/**
 * `timeParam` names where the row's time travels: one of the spec's own properties would be
 * overwritten or mistaken for the time, and without `mapping.time` there is no time to send.
 */
function timeParamIssue(
  mapping: Readonly<Record<string, unknown>>,
  options: { readonly timeParam?: string },
): FileIssue | undefined {
  const { timeParam } = options;
  if (timeParam === undefined) return undefined;
  if (ROUTING_PARAMS.includes(timeParam))
    return {
      path: 'options.timeParam',
      expected: `expected a property of its own for the time, not one of routingparams' own (${ROUTING_PARAMS.join(', ')}), got ${timeParam}`,
      received: timeParam,
      hint: 'set it to the name your contract documents for the time, such as routingTime',
    };
  if (mapping.time === undefined)
    return {
      path: 'options.timeParam',
      expected: `not used without mapping.time (it names where the row's time travels), got ${timeParam}`,
      received: timeParam,
      hint: 'map time to the column that holds the date-time, or drop options.timeParam',
    };
  return undefined;
}

export const routeKind = defineJobKind({
  name: 'route',
  summary: 'origin, destination and via points -> distance, duration and the route line',
  mappingFields: ['originLon', 'originLat', 'destinationLon', 'destinationLat', 'via', 'time'],
  mappingRequired: true,
  options: z.strictObject({
    prefix,
    speedProfile,
    locale,
    routingTimeMode: z.enum(['ARRIVAL', 'DEPARTURE']).optional(),
    timeParam: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'a property name (letters, digits, _)')
      .optional(),
    wkt,
  }),
  services: ['geojson'],
  docs: {
    mapping:
      '`originLon`, `originLat`, `destinationLon`, `destinationLat` (required); `via` (`lon,lat;lon,lat`, or a JSON array of pairs); `time` (ISO 8601)',
    options: {
      prefix: '`route_`',
      speedProfile: '`FAST` \\| `SLOW` \\| `BICYCLE` \\| `PEDESTRIAN`',
      locale: LOCALE_DOC,
      routingTimeMode: 'none (not sent); `ARRIVAL` \\| `DEPARTURE`',
      timeParam: '`routingTime`',
      wkt: 'false',
    },
  },
  checkFile: ({ mapping, options }) => firstIssue(endpointsIssue(mapping), timeParamIssue(mapping, options)),
  constants: () => [
    { keys: ['via'], read: (row, mapping) => readVia(row, mapping, ROUTING_MAX_POINTS - 2) },
    { keys: ['time'], read: readTime },
  ],
  coordinates: () => ({
    reads: [
      readsDegrees([
        ['originLon', 'originLat'],
        ['destinationLon', 'destinationLat'],
      ]),
    ],
  }),
  create({ client, mapping, options, points }) {
    refuse('route', firstIssue(endpointsIssue(mapping), timeParamIssue(mapping, options)));
    return createRouteJob(client, { mapping, ...options, points });
  },
});

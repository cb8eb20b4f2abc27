/**
 * isochrone: per row a point and a time (minutes) or a distance (metres), optionally a grid -> the
 * area reachable from it, as a Polygon or MultiPolygon (rings turned as RFC 7946 wants them) and its
 * area in km². The spec's limits (0 < minutes <= 60, grid an integer 35..150) are checked per row
 * before any request, so a row beyond them fails alone and costs nothing. One ISOCHRONE request per
 * distinct point, time or distance, and grid.
 */
import type { MultiPolygon, Polygon } from 'geojson';
import { z } from 'zod';
import { markNote, readDecimal, thousandsAmbiguity } from '../client/coords.js';
import type { SpeedProfile } from '../contract/index.js';
import type { Job, PlanIssue } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import { columnName } from './_column-name.js';
import { readsDegrees } from './_coord-format.js';
import {
  columnOf,
  fieldMark,
  isPlanIssue,
  type Mapping,
  pointGeometry,
  pointKey,
  readPoint,
  readText,
  withSwapHint,
} from './_fields.js';
import { refuse, requireOne } from './_file-rules.js';
import { areaKm2 } from './_geometry.js';
import { type ConstantCheck, defineJobKind, type FileIssue } from './_kind.js';
import { POINT_DOC, POINT_FIELDS, prefix } from './_options.js';
import { rewind } from './_polygons.js';
import type { IsochronePort, IsochroneResult } from './_ports.js';
import { LOCALE_DOC, locale, localeParam, speedProfile, wkt, wktColumn } from './_routing.js';
import { answerOf, eachItem } from './_single.js';
import type { SwappedPoints } from './_swapped.js';

/** The spec's limits (Limits: isochrone time and grid). */
export const MAX_MINUTES = 60;
export const GRID_MIN = 35;
export const GRID_MAX = 150;

export interface IsochroneJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default 'iso_' */
  readonly prefix?: string;
  /** @default 'FAST' */
  readonly speedProfile?: SpeedProfile;
  /** routingparams.isoLocale, the language of route instructions. Not sent when absent. */
  readonly locale?: string;
  /** @default false */
  readonly wkt?: boolean;
}

export interface IsochroneItem {
  readonly point: LonLat;
  readonly minutes?: number;
  readonly metres?: number;
  readonly grid?: number;
}

/**
 * A mapped number field: undefined when unmapped or blank, a PlanIssue when not a number. Metres
 * may be a thousand and more, so `1.500` is refused rather than guessed at (thousandsAmbiguity)
 * unless the input declares its decimal mark; minutes and grid cannot, and their limits refuse 1.5
 * where it is not one.
 */
function numberField(row: Row, mapping: Mapping, field: string): number | PlanIssue | undefined {
  const text = readText(row, mapping, field);
  if (text === undefined) return undefined;
  const name = columnOf(mapping, field) ?? field;
  const mark = fieldMark(row, mapping, field);
  const ambiguous = field === 'metres' ? thousandsAmbiguity(text, 'a distance in metres', mark) : undefined;
  const value = ambiguous === undefined ? readDecimal(text, mark) : undefined;
  if (value !== undefined) return value;
  return {
    code: 'FIELD_INVALID',
    field: name,
    message: `${columnName(name)}: ${ambiguous ?? `expected a number${markNote(text, mark)}, got \`${text.slice(0, 40)}\``}`,
  };
}

/** The reach of a row, checked against the spec's limits. */
function readReach(row: Row, mapping: Mapping): Omit<IsochroneItem, 'point'> | PlanIssue {
  const name = (field: string) => columnOf(mapping, field) ?? field;
  const minutes = numberField(row, mapping, 'minutes');
  if (isPlanIssue(minutes)) return minutes;
  const metres = numberField(row, mapping, 'metres');
  if (isPlanIssue(metres)) return metres;
  const grid = numberField(row, mapping, 'grid');
  if (isPlanIssue(grid)) return grid;
  const invalid = (field: string, message: string): PlanIssue => ({
    code: 'FIELD_INVALID',
    field: name(field),
    message: `${columnName(name(field))}: ${message}`,
  });
  if (minutes === undefined && metres === undefined) {
    return {
      code: 'FIELD_MISSING',
      field: name(mapping.minutes !== undefined ? 'minutes' : 'metres'),
      message: `${columnName(name(mapping.minutes !== undefined ? 'minutes' : 'metres'))}: missing; expected the minutes (more than 0, at most ${MAX_MINUTES}) or the metres to reach`,
    };
  }
  if (minutes !== undefined && metres !== undefined) {
    return invalid('minutes', `give minutes or metres, not both (got ${minutes} minutes and ${metres} m)`);
  }
  if (minutes !== undefined && !(minutes > 0 && minutes <= MAX_MINUTES)) {
    return invalid(
      'minutes',
      `expected more than 0 and at most ${MAX_MINUTES} minutes (the service's limit), got ${minutes}`,
    );
  }
  if (metres !== undefined && !(metres > 0)) {
    return invalid('metres', `expected a distance of more than 0 m, got ${metres}`);
  }
  if (grid !== undefined && !(Number.isInteger(grid) && grid >= GRID_MIN && grid <= GRID_MAX)) {
    return invalid(
      'grid',
      `expected a whole number from ${GRID_MIN} to ${GRID_MAX} (the service's limit), got ${grid}`,
    );
  }
  return {
    ...(minutes === undefined ? {} : { minutes }),
    ...(metres === undefined ? {} : { metres }),
    ...(grid === undefined ? {} : { grid }),
  };
}

export function createIsochroneJob(
  client: IsochronePort,
  options: IsochroneJobOptions,
): Job<IsochroneItem, IsochroneResult> {
  const prefix = options.prefix ?? 'iso_';
  const withWkt = options.wkt ?? false;
  const key = (item: IsochroneItem) =>
    `${pointKey(item.point)}|${item.minutes === undefined ? `m${item.metres}` : `t${item.minutes}`}|${item.grid ?? ''}`;
  const columns = ['area_km2', ...(withWkt ? ['wkt'] : [])].map((c) => `${prefix}${c}`);

  return {
    kind: 'isochrone',
    columns,
    plan(row) {
      const point = readPoint(row, options.mapping);
      if (isPlanIssue(point)) return point;
      const reach = readReach(row, options.mapping);
      if (isPlanIssue(reach)) return reach;
      options.points?.note(row, point[0], point[1]);
      return [{ point, ...reach }];
    },
    key,
    locate: (row) => pointGeometry(row, options.mapping),
    execute: eachItem(key, (item, signal) => {
      const common = {
        signal,
        speedProfile: options.speedProfile ?? 'FAST',
        ...localeParam(options.locale),
        ...(item.grid === undefined ? {} : { isochroneGrid: item.grid }),
      };
      return item.minutes !== undefined
        ? client.routing.isochrone(item.point, { ...common, timeInMinutes: item.minutes })
        : client.routing.isochrone(item.point, { ...common, distanceInMeters: item.metres ?? 0 });
    }),
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return withSwapHint(answer.failed, [readPoint(row, options.mapping)]);
      const area: Polygon | MultiPolygon = rewind(answer.value.polygon);
      return {
        ok: true,
        records: [
          {
            columns: {
              [`${prefix}area_km2`]: Math.round(areaKm2(area) * 1000) / 1000,
              ...wktColumn(prefix, withWkt, area),
            },
            geometry: area,
          },
        ],
      };
    },
  };
}

/** Without a reach (a column, or a constant such as `minutes: { value: 15 }`) no row could be answered. */
function reachIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireOne(mapping, ['minutes', 'metres'], 'the time or the distance to reach from each point');
}

/**
 * Each constant of the reach against its own limit (whatever a column beside it holds, no row
 * passes it; a grid is read beside a harmless time), and minutes and metres both constants together.
 */
const REACH_CONSTANTS: readonly ConstantCheck[] = [
  { keys: ['minutes'], read: readReach },
  { keys: ['metres'], read: readReach },
  { keys: ['grid'], read: (row, mapping) => readReach(row, { ...mapping, minutes: { value: '1' } }) },
  { keys: ['minutes', 'metres'], read: readReach },
];

export const isochroneKind = defineJobKind({
  name: 'isochrone',
  summary: 'a point and minutes or metres -> the reachable area and its size',
  mappingFields: ['lon', 'lat', 'minutes', 'metres', 'grid'],
  mappingRequired: false,
  options: z.strictObject({ prefix, speedProfile, locale, wkt }),
  services: ['geojson'],
  docs: {
    mapping: `${POINT_DOC}; \`minutes\` (more than 0, at most ${MAX_MINUTES}) or \`metres\`, a column or a constant (value: 15); \`grid\` (${GRID_MIN}-${GRID_MAX}, optional)`,
    options: {
      prefix: '`iso_`',
      speedProfile: '`FAST` \\| `SLOW` \\| `BICYCLE` \\| `PEDESTRIAN`',
      locale: LOCALE_DOC,
      wkt: 'false',
    },
  },
  checkFile: ({ mapping }) => reachIssue(mapping),
  constants: () => REACH_CONSTANTS,
  coordinates: () => ({ reads: [readsDegrees([POINT_FIELDS])] }),
  create({ client, mapping, options, points }) {
    refuse('isochrone', reachIssue(mapping));
    return createIsochroneJob(client, { mapping, ...options, points });
  },
});

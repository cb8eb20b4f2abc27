/**
 * match: GPS fixes grouped by a track column, in time order -> per fix the position snapped to the
 * road network and its offset; per track the matched line, its length and duration (on the track's
 * last row).
 *
 * A track's rows must be together in the input and in time order (see _groups.ts); a fix earlier
 * than the one before it fails alone. A track longer than one request carries is matched in
 * windows: each request takes `maxPoints - overlap` new fixes after the last `overlap` fixes of the
 * request before, which give the matching its context at the seam and are not answered twice. The
 * lines are stitched at the last fix the earlier window answered, and the track's distance and
 * duration add each window's share, in proportion to the length of line it adds. Requests per track:
 * ceil(fixes / (maxPoints - overlap)).
 */
import type { Geometry } from 'geojson';
import { z } from 'zod';
import type { SpeedProfile } from '../contract/index.js';
import { answeredWithoutRequest } from '../engine/counters.js';
import type { ItemFailure, ItemResult, Job, PlanIssue } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import { columnName } from './_column-name.js';
import { DEFAULT_COORD_FORMAT, lonLatColumns, readsDegrees } from './_coord-format.js';
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
import { firstIssue, refuse, requireEach } from './_file-rules.js';
import { GroupRuns, type Run } from './_groups.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { nonNegativeInt, POINT_DOC, POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { MatchPort, MatchResult } from './_ports.js';
import {
  failAll,
  LOCALE_DOC,
  locale,
  localeParam,
  ROUTING_MAX_POINTS,
  speedProfile,
  wkt,
  wktColumn,
} from './_routing.js';
import { answerOf } from './_single.js';
import type { SwappedPoints } from './_swapped.js';
import { Track, type TrackSummary } from './_track.js';

export const DEFAULT_OVERLAP = 50;

export interface MatchJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default 'match_' */
  readonly prefix?: string;
  /** @default 'FAST' */
  readonly speedProfile?: SpeedProfile;
  /** routingparams.isoLocale, the language of route instructions. Not sent when absent. */
  readonly locale?: string;
  /**
   * Fixes in one MATCH request, context included, at most ROUTING_MAX_POINTS (the emulator's limit:
   * the spec leaves the real service's "not shown"). @default 1000
   */
  readonly maxPoints?: number;
  /** Fixes of the window before that a window starts with. @default 50 */
  readonly overlap?: number;
  /** @default false */
  readonly wkt?: boolean;
}

export interface Fix {
  readonly run: Run;
  /** The row's 0-based index (unique: the dedup key). */
  readonly index: number;
  /** 0-based place among the track's fixes. */
  readonly position: number;
  readonly point: LonLat;
}

export interface FixAnswer {
  readonly matched: boolean;
  readonly snapped: LonLat | null;
  readonly offset_m: number | null;
  /** On the track's last fix only; null when a window of the track failed. */
  readonly track?: TrackSummary | null;
}

/** Fixes in one MATCH request: the option, never more than the service takes. */
function windowSize(maxPoints: number | undefined): number {
  return Math.min(maxPoints ?? ROUTING_MAX_POINTS, ROUTING_MAX_POINTS);
}

/**
 * A window must bring new fixes: its overlap with the window before is at most half of it. (The
 * default overlap, a quarter of the window at most, always is.) And it must start with at least
 * the last fix of the window before: without it the stretch between the two windows is in
 * neither, so the track's distance and duration leave it out (about 12% short on the sample's
 * tracks at 8 fixes a window), and a last window of one fix fails as "one fix alone".
 */
function overlapIssue(options: {
  readonly maxPoints?: number;
  readonly overlap?: number;
}): FileIssue | undefined {
  const maxPoints = windowSize(options.maxPoints);
  const { overlap } = options;
  if (overlap === undefined) return undefined;
  if (overlap < 1)
    return {
      path: 'options.overlap',
      expected: `expected at least 1: a window starts with the last fix of the window before, or the stretch between them is lost; got ${overlap}`,
      received: String(overlap),
      hint: 'set options.overlap to 1 or more, or leave it out (the default)',
    };
  if (overlap * 2 <= maxPoints) return undefined;
  return {
    path: 'options.overlap',
    expected: `expected at most half of maxPoints (${maxPoints}), so at most ${Math.floor(maxPoints / 2)}, got ${overlap}`,
    received: String(overlap),
    hint: 'lower options.overlap, or raise options.maxPoints',
  };
}

/** Fixes are grouped by a column: there is no default for it. */
function trackColumnIssue(mapping: Readonly<Record<string, unknown>>): FileIssue | undefined {
  return requireEach(mapping, ['track'], 'which track each fix belongs to');
}

/** The fix's time, checked to be no earlier than the track's fix before it. */
function checkTime<F>(row: Row, mapping: Mapping, track: Track<F>): PlanIssue | undefined {
  if (mapping.time === undefined) return undefined;
  const field = columnOf(mapping, 'time') ?? 'time';
  const text = readText(row, mapping, 'time');
  if (text === undefined)
    return {
      code: 'FIELD_MISSING',
      field,
      message: `${columnName(field)}: missing; expected the fix's time`,
    };
  return track.follow(text, field, row.ref.index + 1, fieldMark(row, mapping, 'time'));
}

export function createMatchJob(client: MatchPort, options: MatchJobOptions): Job<Fix, FixAnswer> {
  const prefix = options.prefix ?? 'match_';
  const profile = options.speedProfile ?? 'FAST';
  refuse('match', overlapIssue(options));
  const maxPoints = windowSize(options.maxPoints);
  const overlap = options.overlap ?? Math.min(DEFAULT_OVERLAP, Math.floor(maxPoints / 4));
  const withWkt = options.wkt ?? false;
  const groups = new GroupRuns(options.mapping, 'track', 'track');
  const tracks = new WeakMap<Run, Track<Fix>>();
  const key = (fix: Fix) => `${fix.run.id}:${fix.index}`;
  const names = [
    'matched',
    'lon',
    'lat',
    'offset_m',
    'track_fixes',
    'track_matched',
    'track_distance_m',
    'track_duration_s',
    ...(withWkt ? ['wkt'] : []),
  ];

  function trackOf(run: Run): Track<Fix> {
    let track = tracks.get(run);
    if (track === undefined) {
      track = new Track<Fix>();
      tracks.set(run, track);
    }
    return track;
  }

  /**
   * A track's first window of one fix: a track of one fix, or one the run's window cut after its
   * first (later windows start with the overlap, at least one fix before them).
   */
  function refused(fixes: readonly Fix[]): ItemFailure | undefined {
    const first = fixes[0];
    if (first === undefined || fixes.length > 1 || first.position > 0) return undefined;
    return {
      code: 'NO_MATCH',
      // Found before any request: the report's stage says nothing was sent for it.
      stage: 'input',
      message: `track ${first.run.name}: one fix alone cannot be matched to a road; a track needs two`,
    };
  }

  async function matchWindow(
    fixes: readonly Fix[],
    state: Track<Fix>,
    context: readonly Fix[],
    signal: AbortSignal,
  ): Promise<Map<string, ItemResult<FixAnswer>>> {
    const earlier = state.stitched;
    let done: () => void = () => {};
    state.stitched = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      const sent = [...context, ...fixes];
      const alone = refused(fixes);
      if (alone !== undefined) {
        state.broken = true;
        // No request went: not one the summary counts as sent (and then as failed to connect).
        answeredWithoutRequest('free');
        return failAll(fixes, key, alone);
      }
      let result: MatchResult;
      try {
        result = await client.routing.match(
          sent.map((fix) => fix.point),
          { signal, speedProfile: profile, ...localeParam(options.locale) },
        );
      } catch (error) {
        state.broken = true;
        throw error;
      }
      // Windows answer in any order; the line grows in track order.
      await earlier;
      state.stitch(result, context.length);
      const out = new Map<string, ItemResult<FixAnswer>>();
      const last = fixes[fixes.length - 1] as Fix;
      const final = last.run.ended && last.position === last.run.count - 1;
      for (const [i, fix] of fixes.entries()) {
        const d = result.destinations[context.length + i];
        const matched = d?.isMatched === true;
        state.fixes++;
        if (matched) state.matched++;
        const c = d?.matchedPoint.coordinates;
        const answer: FixAnswer = {
          matched,
          snapped: matched && c !== undefined ? [c[0] ?? 0, c[1] ?? 0] : null,
          offset_m: matched ? (d?.distance ?? null) : null,
          ...(final && fix === last ? { track: state.summary() } : {}),
        };
        out.set(key(fix), { ok: true, value: answer });
      }
      return out;
    } finally {
      done();
    }
  }

  return {
    kind: 'match',
    tracesRequests: true,
    columns: names.map((name) => `${prefix}${name}`),
    plan(row) {
      const run = groups.enter(row);
      if (isPlanIssue(run)) return run;
      const point = readPoint(row, options.mapping);
      if (isPlanIssue(point)) return point;
      const late = checkTime(row, options.mapping, trackOf(run));
      if (late !== undefined) return late;
      options.points?.note(row, point[0], point[1]);
      return [{ run, index: row.ref.index, position: run.count++, point }];
    },
    key,
    locate: (row) => pointGeometry(row, options.mapping),
    batching: {
      maxItems: maxPoints - overlap,
      lingerMs: 0,
      group: (fix) => fix.run.id,
      contiguous: true,
    },
    refusedBatch: refused,
    async execute(fixes, signal) {
      const first = fixes[0];
      if (first === undefined) return new Map();
      const state = trackOf(first.run);
      // Windows of a track are sent in order (one batcher group, first come first sent), so the
      // tail is the window before's.
      const context = state.tail;
      state.tail = [...context, ...fixes].slice(-overlap);
      return matchWindow(fixes, state, context, signal);
    },
    render(row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return withSwapHint(answer.failed, [readPoint(row, options.mapping)]);
      const a = answer.value;
      const track = a.track;
      const snapped: Geometry | null =
        a.snapped === null ? null : { type: 'Point', coordinates: [a.snapped[0], a.snapped[1]] };
      const line = track?.line ?? null;
      const columns = {
        [`${prefix}matched`]: a.matched,
        [`${prefix}lon`]: a.snapped?.[0] ?? null,
        [`${prefix}lat`]: a.snapped?.[1] ?? null,
        [`${prefix}offset_m`]: a.offset_m,
        [`${prefix}track_fixes`]: track?.fixes ?? null,
        [`${prefix}track_matched`]: track?.matched ?? null,
        [`${prefix}track_distance_m`]: track?.distance_m ?? null,
        [`${prefix}track_duration_s`]: track?.duration_s ?? null,
        ...wktColumn(prefix, withWkt, line),
      };
      return { ok: true, records: [{ columns, geometry: line ?? snapped }] };
    },
    ...groups.hooks(),
  };
}

export const matchKind = defineJobKind({
  name: 'match',
  summary: 'GPS fixes grouped by track -> positions snapped to roads, the matched line per track',
  mappingFields: ['track', 'time', 'lon', 'lat'],
  mappingRequired: true,
  options: z.strictObject({
    prefix,
    speedProfile,
    locale,
    maxPoints: positiveInt
      .min(4)
      .max(
        ROUTING_MAX_POINTS,
        `geobatch sends at most ${ROUTING_MAX_POINTS} points a request (the emulator's limit; the spec publishes none for the service)`,
      )
      .optional(),
    overlap: nonNegativeInt.optional(),
    wkt,
  }),
  services: ['geojson'],
  docs: {
    mapping: `\`track\` (required: the column grouping the fixes), \`time\` (ISO 8601 or a number; the fixes must be in time order; default input order), ${POINT_DOC}`,
    options: {
      prefix: '`match_`',
      speedProfile: '`FAST` \\| `SLOW` \\| `BICYCLE` \\| `PEDESTRIAN`',
      locale: LOCALE_DOC,
      maxPoints: `${ROUTING_MAX_POINTS}, at most ${ROUTING_MAX_POINTS}`,
      overlap: `${DEFAULT_OVERLAP} (a quarter of maxPoints if less), from 1 to maxPoints / 2`,
      wkt: 'false',
    },
  },
  checkFile: ({ mapping, options }) => firstIssue(trackColumnIssue(mapping), overlapIssue(options)),
  // A constant time is the same on every fix, so in order: only one that is no time fails them.
  constants: () => [{ keys: ['time'], read: (row, mapping) => checkTime(row, mapping, new Track()) }],
  coordinates: (options) => ({
    reads: [readsDegrees([POINT_FIELDS])],
    writes: { columns: lonLatColumns(options.prefix ?? 'match_'), format: DEFAULT_COORD_FORMAT },
  }),
  create({ client, mapping, options, points }) {
    refuse('match', trackColumnIssue(mapping));
    return createMatchJob(client, { mapping, ...options, points });
  },
});

/**
 * boundaries: lon/lat -> the administrative areas at one or more levels (name, key, level).
 *
 * The levels always agree (see _levels.ts): the finest level is chosen at the point by the border
 * rule, every coarser level is the area that contains it. Points travel in batches through the POST
 * points form; every area that comes back is kept in a spatial index, so a later point strictly
 * inside a known area, and its coarser areas, are answered locally. On real data most rows cost
 * nothing: Germany has 16 states and 401 districts, and a file has far more rows than that.
 * With `spatialIndex: false` every row and level costs one GET, for comparison and for a service
 * without the POST form; both modes give the same answers.
 */
import { z } from 'zod';
import { AREA_MAX_POINTS } from '../contract/index.js';
import { answeredWithoutRequest } from '../engine/counters.js';
import type { ItemResult, Job, RenderResult } from '../engine/job.js';
import type { Fields, LonLat, Row } from '../types.js';
import { AreaIndex, coveringArea } from './_area-index.js';
import { COORD_FORMAT_DOC, type CoordFormat, coordFormatOption, readsIn } from './_coord-format.js';
import {
  isPlanIssue,
  type Mapping,
  placedFailure,
  pointGeometry,
  pointKey,
  readPoint,
  recordGeometry,
  withSwapHint,
} from './_fields.js';
import { refuse } from './_file-rules.js';
import { defineJobKind, type FileIssue } from './_kind.js';
import { type AncestorMemo, knownAncestor, type LevelAreas, type Locate, resolveLevels } from './_levels.js';
import { countries, languages, lingerMs, POINT_DOC, POINT_FIELDS, positiveInt, prefix } from './_options.js';
import type { BoundariesPort } from './_ports.js';
import { answerOf } from './_single.js';
import type { SwappedPoints } from './_swapped.js';

export type MissingLevelPolicy = 'empty' | 'fail';

export interface BoundariesJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** Column prefix; columns are `<prefix><level>_name|_key|_level`. @default 'admin' */
  readonly prefix?: string;
  /** Administrative levels (Germany: 2 country, 4 state, 6 district). @default [4, 6] */
  readonly levels?: readonly number[];
  /**
   * A requested level that no area covers at a point, while another level has one: `empty` leaves
   * that level's columns empty and names it in `<prefix>_missing_levels` (the row stays ok);
   * `fail` fails the row as OUTSIDE_COVERAGE. A point no level covers fails either way.
   * @default 'empty'
   */
  readonly onMissingLevel?: MissingLevelPolicy;
  /** Points per POST. @default 100 */
  readonly batchSize?: number;
  /** @default true */
  readonly spatialIndex?: boolean;
  /** @default 50 */
  readonly lingerMs?: number;
  /** The point columns' format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormat;
  /**
   * isoLanguages, the ISO 639-1 languages of the areas' localised names. Not sent when absent
   * (the service's every supported language).
   */
  readonly languages?: readonly string[];
  /**
   * isoCountries, the ISO 3166 countries whose areas are wanted: a point elsewhere has none and
   * fails as OUTSIDE_COVERAGE. Not sent when absent (the service's every country).
   */
  readonly countries?: readonly string[];
}

const toWire = ([longitude, latitude]: LonLat) => ({ latitude, longitude });

/** The column naming the levels a row lacks: `admin_missing_levels` for the default prefix. */
export function missingLevelsColumn(prefix: string): string {
  return prefix === '' || prefix.endsWith('_') ? `${prefix}missing_levels` : `${prefix}_missing_levels`;
}

export function createBoundariesJob(
  client: BoundariesPort,
  options: BoundariesJobOptions,
): Job<LonLat, LevelAreas> {
  const prefix = options.prefix ?? 'admin';
  const levels = [...new Set(options.levels ?? [4, 6])].sort((a, b) => a - b);
  const finest = levels.at(-1) ?? 0;
  const policy = options.onMissingLevel ?? 'empty';
  const indexed = options.spatialIndex ?? true;
  const indexes = new Map(levels.map((level) => [level, new AreaIndex()]));
  const memo: AncestorMemo = new Map();
  const missingColumn = missingLevelsColumn(prefix);
  const at = { format: options.coordFormat };
  // isoCountries and isoLanguages go with every request, POST and GET alike, so that the two modes
  // still give the same answers.
  const narrowing = {
    ...(options.countries === undefined ? {} : { isoCountries: [...options.countries] }),
    ...(options.languages === undefined ? {} : { isoLanguages: [...options.languages] }),
  };
  const columns = [
    ...levels.flatMap((level) => [
      `${prefix}${level}_name`,
      `${prefix}${level}_key`,
      `${prefix}${level}_level`,
    ]),
    ...(policy === 'empty' ? [missingColumn] : []),
  ];

  /** Known areas answer points strictly inside them; the rest go to the service in one POST. */
  const locateIndexed =
    (signal: AbortSignal, asked: { calls: number }): Locate =>
    async (level, points) => {
      const index = indexes.get(level) ?? new AreaIndex();
      const out = points.map((point) => index.inside(point));
      const ask = points.filter((_, i) => out[i] === undefined);
      if (ask.length === 0) return out;
      asked.calls++;
      index.add(
        (await client.area.points({ level, ...narrowing, points: ask.map(toWire) }, { signal })).features,
      );
      return points.map((point, i) => out[i] ?? index.covering(point));
    };

  const locateEach =
    (signal: AbortSignal): Locate =>
    async (level, points) => {
      const out = [];
      for (const point of points) {
        const answer = await client.area.point({ level, ...narrowing, ...toWire(point) }, { signal });
        out.push(coveringArea(point, answer.features));
      }
      return out;
    };

  /** A point strictly inside a known finest-level area whose coarser areas are remembered. */
  function resolveLocally(point: LonLat): LevelAreas | undefined {
    const anchor = indexes.get(finest)?.inside(point);
    if (anchor === undefined) return undefined;
    const out = [];
    for (const level of levels) {
      const area = level === finest ? anchor : knownAncestor(memo, finest, anchor, level);
      if (area === undefined) return undefined;
      out.push(area ?? undefined);
    }
    return out;
  }

  async function execute(points: readonly LonLat[], signal: AbortSignal) {
    const asked = { calls: 0 };
    const answers = indexed
      ? await resolveLevels(points, levels, locateIndexed(signal, asked), memo)
      : await resolveLevels(points, levels, locateEach(signal));
    // Areas learnt since the batch was cut placed every point: no request went.
    if (indexed && asked.calls === 0) answeredWithoutRequest('saved');
    const out = new Map<string, ItemResult<LevelAreas>>();
    for (const [i, point] of points.entries())
      out.set(pointKey(point), { ok: true, value: answers[i] ?? [] });
    return out;
  }

  function renderAreas(row: Row, point: LonLat, result: ItemResult<LevelAreas> | undefined): RenderResult {
    const answer = answerOf(result);
    if ('failed' in answer) return answer.failed;
    const areas = answer.value;
    const missing = levels.filter((_, i) => areas[i] === undefined);
    if (missing.length === levels.length || (missing.length > 0 && policy === 'fail')) {
      const found = levels.filter((_, i) => areas[i] !== undefined);
      // The job's own filter is the likelier reason than the service's coverage: it is named.
      const among =
        options.countries === undefined
          ? ''
          : ` among the areas of ${options.countries.join(', ')} (options.countries)`;
      const message = `no level-${missing.join('/')} area covers ${point[0]}, ${point[1]}${among}${found.length > 0 ? ` (found: level ${found.join(', ')})` : ''}`;
      return { ok: false, failure: { code: 'OUTSIDE_COVERAGE', stage: 'response', message } };
    }
    const out: Fields = {};
    for (const [i, level] of levels.entries()) {
      const area = areas[i];
      out[`${prefix}${level}_name`] = area?.name ?? null;
      out[`${prefix}${level}_key`] = area?.key ?? null;
      out[`${prefix}${level}_level`] = area?.level ?? null;
    }
    if (policy === 'empty') out[missingColumn] = missing.length === 0 ? null : missing.join('|');
    return { ok: true, records: [{ columns: out, geometry: recordGeometry(row, options.mapping, at) }] };
  }

  return {
    kind: 'boundaries',
    tracesRequests: true,
    columns,
    plan(row) {
      const point = readPoint(row, options.mapping, at);
      if (isPlanIssue(point)) return point;
      options.points?.note(row, point[0], point[1]);
      return [point];
    },
    key: pointKey,
    locate: (row) => pointGeometry(row, options.mapping, at),
    ...(indexed
      ? {
          batching: {
            maxItems: options.batchSize ?? 100,
            lingerMs: options.lingerMs ?? 50,
            // Each answer teaches the index; the next request carries only what it cannot answer.
            serial: true,
          },
          resolveLocally,
          // What a dry run, which has no answers, can know: see indexedRequests.
          requestsFor: (_points: readonly LonLat[], earlier: number) => (earlier === 0 ? levels.length : 0),
          requestsRule: (batches: number) => indexedRequests(batches, levels.length),
        }
      : // One GET a point and level: each level is asked once, for the point or its anchor area.
        { requestsFor: (points: readonly LonLat[]) => points.length * levels.length }),
    execute,
    render(row, [result]) {
      const point = readPoint(row, options.mapping, at);
      if (isPlanIssue(point))
        return { ok: false, failure: { code: 'INTERNAL', stage: 'response', message: point.message } };
      return placedFailure(withSwapHint(renderAreas(row, point, result), [point]), row, options.mapping, at);
    },
  };
}

export const boundariesKind = defineJobKind({
  name: 'boundaries',
  summary: 'coordinates -> the administrative areas that cover them',
  mappingFields: POINT_FIELDS,
  mappingRequired: false,
  options: z.strictObject({
    prefix,
    levels: z.array(z.number().int().min(0).max(11)).min(1).optional(),
    onMissingLevel: z.enum(['empty', 'fail']).optional(),
    batchSize: positiveInt.max(AREA_MAX_POINTS).optional(),
    /** false: one GET per row and level, for comparison and for services without the POST form. */
    spatialIndex: z.boolean().optional(),
    lingerMs,
    coordFormat: coordFormatOption,
    // The spec's isoLanguages, checked as autocomplete's and area-export's are.
    languages,
    countries,
    // No reduceGeometry or zoom, which the spec allows here too: the job answers points from the
    // outlines it learnt (_area-index.ts), and a simplified outline, up to about 2 km off the
    // border, would put a point near one in its neighbour or in none, and keep it in the cache.
  }),
  services: ['area'],
  docs: {
    mapping: POINT_DOC,
    options: {
      prefix: '`admin`',
      levels: '[4, 6]',
      onMissingLevel: '`empty` \\| `fail`',
      batchSize: '100, at most 1000',
      spatialIndex: 'true',
      lingerMs: '50',
      coordFormat: COORD_FORMAT_DOC,
      languages: 'all; e.g. [de, en]',
      countries: 'all; e.g. [DE, AT]',
    },
  },
  checkFile: ({ options }) => unindexedBatchIssue(options),
  coordinates: (options) => ({ reads: [readsIn([POINT_FIELDS], options.coordFormat)] }),
  create({ client, mapping, options, points }) {
    refuse('boundaries', unindexedBatchIssue(options));
    return createBoundariesJob(client, { mapping, ...options, points });
  },
});

/**
 * The requests of the spatial index, which depend on its answers. A batch asks the finest level
 * for its points, a coarser one for those the finer found no area for, and each coarser level
 * once for the areas found (their parents): at most one request a level for each, 2 x levels - 1,
 * fewer for points inside the areas learnt, none when they place the whole batch. The first
 * batch, with nothing learnt, asks each level at least once: the count is at least the levels.
 */
function indexedRequests(batches: number, levels: number): string {
  const most = 2 * levels - 1;
  return `with the spatial index, ${batches} batch${batches === 1 ? '' : 'es'} of points: the first asks each of the ${levels} level${levels === 1 ? '' : 's'} at least once; each batch asks only for the points the areas learnt from earlier answers do not place, 0 to ${most} request${most === 1 ? '' : 's'} a batch, which only the answers tell`;
}

/** Without the spatial index every row and level is a GET of its own: batch keys would do nothing. */
function unindexedBatchIssue(options: {
  readonly spatialIndex?: boolean;
  readonly batchSize?: number;
  readonly lingerMs?: number;
}): FileIssue | undefined {
  if (options.spatialIndex !== false) return undefined;
  const key = (['batchSize', 'lingerMs'] as const).find((name) => options[name] !== undefined);
  if (key === undefined) return undefined;
  return {
    path: `options.${key}`,
    expected: `not used with spatialIndex: false (each row and level is one GET; points travel in batches only with the spatial index), got ${options[key]}`,
    received: String(options[key]),
    hint: `drop options.${key}, or the spatialIndex: false`,
  };
}

/**
 * matrix: distance and travel time per origin/destination pair, from one MATRIX request per
 * origin with its destinations tiled (`tileSize` per request) and stitched back by key.
 *
 * Two input shapes:
 * - pairs: each row holds an origin and a destination; rows sharing an origin share requests;
 * - cross: each row is an origin, the destinations come from a second file; each origin row
 *   becomes one output row per destination (long form).
 * Requests: origins x ceil(destinations / tileSize).
 *
 * A tile the service rejects (4xx) has its origin asked about alone (origin to itself, once per
 * origin): refused, every pair of the origin fails as the origin's; else the tile is split in
 * halves until the refused destinations are alone;
 * a tile that fails otherwise (after the client's retries) fails its own cells only. A cross row
 * with failed cells is a failed row that still writes every pair: the answered ones ok, the
 * failed ones marked with their code, and the report says which destinations failed.
 */
import type { LineString } from 'geojson';
import { z } from 'zod';
import type { SpeedProfile } from '../contract/index.js';
import { SPEED_PROFILES } from '../contract/index.js';
import type { ItemFailure, ItemResult, Job, RenderResult } from '../engine/job.js';
import type { LonLat, OutputRecord, Row } from '../types.js';
import {
  COORD_FORMATS_DOC,
  type CoordFormatsSetting,
  type CoordReads,
  coordCells,
  coordFormats,
  coordFormatsOption,
  lonLatColumns,
  readsIn,
} from './_coord-format.js';
import { DEFAULT_MAX_DESTINATIONS, type Destination, readDestinations } from './_destinations.js';
import {
  isPlanIssue,
  type Mapping,
  pathGeometry,
  pointKey,
  pointsIssue,
  readPoint,
  resolveMapping,
  withSwapHint,
} from './_fields.js';
import { firstIssue, refuse } from './_file-rules.js';
import { defineJobKind, type FileIssue, type SideInput } from './_kind.js';
import { checkMatrixFile, checkMatrixOptions } from './_matrix-shape.js';
import { lingerMs, mappingSchema, POINT_FIELDS, positiveInt, prefix, readingKeys } from './_options.js';
import type { MatrixCell, MatrixPort } from './_ports.js';
import { prefixedColumns } from './_prefixed.js';
import { LOCALE_DOC, locale, localeParam } from './_routing.js';
import { answerOf } from './_single.js';
import { isRejection, rejectedWords, sendSplitting } from './_split.js';
import type { SwappedPoints } from './_swapped.js';

export interface MatrixJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default '' */
  readonly prefix?: string;
  /** Cross mode: every origin row against these destinations, in this order. At least one. */
  readonly destinations?: readonly Destination[];
  /** Where the destinations came from, for messages. */
  readonly destinationsFile?: string;
  /** Destinations per MATRIX request. @default 100 */
  readonly tileSize?: number;
  /** @default 'FAST' */
  readonly speedProfile?: SpeedProfile;
  /** routingparams.isoLocale, the language of the answer's texts. Not sent when absent. */
  readonly locale?: string;
  /** @default 50 */
  readonly lingerMs?: number;
  /**
   * The origin and destination columns' and the output's coordinate format (a destinations file
   * is read in the input format too). @default 'GEODECIMAL_POINT'
   */
  readonly coordFormat?: CoordFormatsSetting;
}

export interface PairItem {
  readonly origin: LonLat;
  readonly destination: LonLat;
}

const ORIGIN = { lon: 'originLon', lat: 'originLat', geometry: false } as const;
// The destination is never guessed from conventional lon/lat columns: those hold the origin.
const DESTINATION = { lon: 'destinationLon', lat: 'destinationLat', geometry: false, conventional: false };
/** The pairs as the swapped-coordinates warning names them, each with the other (src/jobs/_swapped.ts). */
const ORIGIN_NOTED = { ...ORIGIN, with: DESTINATION };
const DESTINATION_NOTED = { ...DESTINATION, with: ORIGIN };

function line(origin: LonLat, destination: LonLat): LineString {
  return { type: 'LineString', coordinates: [[...origin], [...destination]] };
}

/** One failure for a row some of whose cells failed: the first cause, and which destinations. */
function cellsFailure(failed: readonly { id: string; failure: ItemFailure }[], total: number): ItemFailure {
  const first = failed[0]?.failure as ItemFailure;
  // The origin refused (split.ts SharedPart): its destinations were never the cause, and naming
  // five of them read as if they were.
  if (failed.length === total && failed.every((f) => f.failure.message.startsWith(ORIGIN_REFUSED)))
    return { ...first, message: `${first.message} (none of its ${total} destinations could be asked)` };
  const ids = failed.slice(0, 5).map((f) => f.id);
  const more = failed.length > ids.length ? `, ... (${failed.length - ids.length} more)` : '';
  return {
    ...first,
    message: `${failed.length} of ${total} destinations failed (${ids.join(', ')}${more}): ${first.message}`,
  };
}

/** What a tile's pairs share, as split.ts names it in a rejection of it. */
const ORIGIN_NOUN = 'origin';
/** How split.ts words a rejection of the origin every pair of a tile shares. */
const ORIGIN_REFUSED = rejectedWords(ORIGIN_NOUN);

const CROSS_SUFFIXES = [
  'destination_id',
  'destination_lon',
  'destination_lat',
  'distance_m',
  'duration_s',
] as const;
const PAIR_SUFFIXES = ['distance_m', 'duration_s'] as const;

/** The columns a matrix job adds: known from its options, without reading the destinations. */
function matrixColumns(prefix: string | undefined, cross: boolean): string[] {
  return (cross ? CROSS_SUFFIXES : PAIR_SUFFIXES).map((suffix) => `${prefix ?? ''}${suffix}`);
}

export function createMatrixJob(client: MatrixPort, options: MatrixJobOptions): Job<PairItem, MatrixCell> {
  checkMatrixOptions(options.mapping, options.destinations, options.destinationsFile);
  const prefix = options.prefix ?? '';
  const profile = options.speedProfile ?? 'FAST';
  const destinations = options.destinations;
  const key = (item: PairItem) => `${pointKey(item.origin)}>${pointKey(item.destination)}`;
  const cross = destinations !== undefined;
  const crossColumns = prefixedColumns(prefix, CROSS_SUFFIXES);
  const pairColumns = prefixedColumns(prefix, PAIR_SUFFIXES);

  const formats = coordFormats(options.coordFormat);
  const origin = (row: Row) =>
    readPoint(row, options.mapping, { ...(cross ? {} : ORIGIN), format: formats.input });
  const destinationOf = (row: Row) =>
    readPoint(row, options.mapping, { ...DESTINATION, format: formats.input });

  function renderCross(
    point: LonLat,
    all: readonly Destination[],
    results: readonly ItemResult<MatrixCell>[],
  ) {
    const records: OutputRecord[] = [];
    const failed: { id: string; failure: ItemFailure }[] = [];
    for (const [i, destination] of all.entries()) {
      const answer = answerOf(results[i]);
      const value = 'value' in answer ? answer.value : undefined;
      const failure = 'failed' in answer && !answer.failed.ok ? answer.failed.failure : undefined;
      if (failure !== undefined) failed.push({ id: destination.id, failure });
      const [x, y] = coordCells(destination.point, formats.output);
      records.push({
        columns: crossColumns.fields({
          destination_id: destination.id,
          destination_lon: x,
          destination_lat: y,
          distance_m: value?.distance_m ?? null,
          duration_s: value?.duration_s ?? null,
        }),
        geometry: line(point, destination.point),
        ...(failure === undefined ? {} : { error: failure.code }),
      });
    }
    if (failed.length === 0) return { ok: true as const, records };
    return { ok: false as const, failure: cellsFailure(failed, all.length), records };
  }

  function renderPair(row: Row, from: LonLat, results: readonly ItemResult<MatrixCell>[]): RenderResult {
    const answer = answerOf(results[0]);
    if ('failed' in answer) return answer.failed;
    const to = destinationOf(row) as LonLat;
    const columns = pairColumns.fields({
      distance_m: answer.value.distance_m,
      duration_s: answer.value.duration_s,
    });
    return { ok: true, records: [{ columns, geometry: line(from, to) }] };
  }

  /**
   * The origin asked about alone, to itself, once per origin whose tile was rejected (its other
   * tiles wait for the same answer): refused, the origin is what the service will not route.
   */
  const origins = new Map<string, Promise<void>>();
  function originAlone(point: LonLat, signal: AbortSignal): Promise<void> {
    const at = pointKey(point);
    let checked = origins.get(at);
    if (checked === undefined) {
      // Origins whose tiles are rejected are few; a file of them all is bounded all the same.
      if (origins.size >= 1000) origins.clear();
      checked = client.routing
        .matrix(point, [point], { signal, speedProfile: profile, ...localeParam(options.locale) })
        .then(() => undefined);
      origins.set(at, checked);
      // Only the service's word on the origin is kept: a check that failed otherwise (a 503 after
      // the retries, a timeout, the run stopping) is asked again by the next tile that needs it.
      // Kept, one passing 503 failed every pair of a good origin for the rest of the run.
      checked.catch((error: unknown) => {
        if (!isRejection(error)) origins.delete(at);
      });
    }
    return checked;
  }

  return {
    kind: 'matrix',
    columns: matrixColumns(prefix, cross),
    plan(row) {
      const from = origin(row);
      if (destinations !== undefined) {
        if (isPlanIssue(from)) return from;
        options.points?.note(row, from[0], from[1]);
        return destinations.map((d) => ({ origin: from, destination: d.point }));
      }
      const to = destinationOf(row);
      if (isPlanIssue(from) || isPlanIssue(to))
        return pointsIssue(row, options.mapping, [
          { names: ORIGIN, point: from, label: 'origin' },
          { names: DESTINATION, point: to, label: 'destination' },
        ]);
      options.points?.note(row, from[0], from[1], ORIGIN_NOTED);
      options.points?.note(row, to[0], to[1], DESTINATION_NOTED);
      return [{ origin: from, destination: to }];
    },
    key,
    batching: {
      maxItems: options.tileSize ?? 100,
      lingerMs: options.lingerMs ?? 50,
      group: (item) => pointKey(item.origin),
    },
    async execute(items, signal, keys) {
      const out = new Map<string, ItemResult<MatrixCell>>();
      const first = items[0];
      if (first === undefined) return out;
      await sendSplitting(
        items,
        async (tile) => {
          const to = tile.map((item) => item.destination);
          const cells = await client.routing.matrix(first.origin, to, {
            signal,
            speedProfile: profile,
            ...localeParam(options.locale),
          });
          return cells.map((value) => ({ ok: true, value }));
        },
        (item, result, i) => out.set(keys?.[i] ?? key(item), result),
        'destination',
        0,
        { noun: ORIGIN_NOUN, check: () => originAlone(first.origin, signal) },
      );
      return out;
    },
    // Across destinations, the origin; a pair, the line from its origin to its destination.
    locate: (row) => pathGeometry(cross ? [origin(row)] : [origin(row), destinationOf(row)]),
    render(row, results) {
      const from = origin(row);
      if (isPlanIssue(from))
        return { ok: false, failure: { code: 'INTERNAL', stage: 'response', message: from.message } };
      const rendered =
        destinations !== undefined
          ? renderCross(from, destinations, results)
          : renderPair(row, from, results);
      return withSwapHint(rendered, cross ? [from] : [from, destinationOf(row)]);
    },
  };
}

/** An id given as a constant names every destination alike: the output could not tell them apart. */
function constantIdIssue(
  destinations: { readonly mapping?: Readonly<Record<string, unknown>> } | undefined,
): FileIssue | undefined {
  const id = destinations?.mapping?.id;
  if (id === undefined || id === null || typeof id !== 'object' || !('value' in id)) return undefined;
  return {
    path: 'options.destinations.mapping.id',
    expected: `expected a column naming each destination, got the constant ${JSON.stringify((id as { value: unknown }).value)}, which every destination would have`,
    received: String((id as { value: unknown }).value),
    hint: "map id to the destinations file's id column, or leave it out: destinations are then numbered by their row",
  };
}

const destinationsSchema = z.strictObject({
  path: z.string().min(1),
  ...readingKeys,
  mapping: mappingSchema(['lon', 'lat', 'id']).optional(),
  /**
   * The decimal mark of the file's coordinates, as `input.decimal` is the input's (a file of its
   * own: the input's mark does not carry over). Absent: either mark, no thousands separator.
   */
  decimal: z.enum(['.', ',']).optional(),
  /** Refuse destination files bigger than this many rows: they are held in memory. */
  maxRows: positiveInt.optional(),
});

export const matrixKind = defineJobKind({
  name: 'matrix',
  summary: 'distance and travel time per origin/destination pair',
  /** Pairs mode: origin and destination columns; cross mode: the origin's lon/lat. */
  mappingFields: ['originLon', 'originLat', 'destinationLon', 'destinationLat', 'lon', 'lat'],
  mappingRequired: false,
  options: z.strictObject({
    prefix,
    /** Origins file x destinations file, instead of one origin/destination pair per row. */
    destinations: destinationsSchema.optional(),
    tileSize: positiveInt.max(1000).optional(),
    speedProfile: z
      .enum(SPEED_PROFILES as readonly SpeedProfile[] as [SpeedProfile, ...SpeedProfile[]])
      .optional(),
    locale,
    lingerMs,
    coordFormat: coordFormatsOption,
  }),
  services: ['geojson'],
  docs: {
    mapping:
      'pairs: `originLon`, `originLat` (default: columns named lon/lat...), `destinationLon`, `destinationLat` (both required without `destinations`); cross: `lon`, `lat` of the origin',
    options: {
      prefix: 'none',
      destinations: `cross mode; { \`path\`, \`format\`, \`delimiter\`, \`encoding\`, \`maxRecordBytes\`, \`maxRecordLines\`, \`mapping\` { \`lon\`, \`lat\`, \`id\` }, \`decimal\` (as \`input.decimal\`), \`maxRows\` (${DEFAULT_MAX_DESTINATIONS}) }`,
      tileSize: '100',
      speedProfile: '`FAST`',
      locale: LOCALE_DOC,
      lingerMs: '50',
      coordFormat: COORD_FORMATS_DOC,
    },
  },
  checkFile: ({ mapping, options }) =>
    firstIssue(
      checkMatrixFile(mapping, options.destinations !== undefined),
      constantIdIssue(options.destinations),
    ),
  columns: (options) => matrixColumns(options.prefix, options.destinations !== undefined),
  multipleRecords: (options) => options.destinations !== undefined,
  sideInputs(options) {
    const inputs: Record<string, SideInput> = {};
    if (options.destinations !== undefined) inputs.destinations = options.destinations;
    return inputs;
  },
  coordinates(options) {
    const formats = coordFormats(options.coordFormat);
    const reads = (pairs: CoordReads['pairs'], defaults = false): CoordReads => ({
      ...readsIn(pairs, formats.input, 'coordFormat.input'),
      ...(defaults ? { defaults } : {}),
    });
    if (options.destinations === undefined)
      return {
        reads: [reads([['originLon', 'originLat']], true), reads([['destinationLon', 'destinationLat']])],
      };
    return {
      reads: [reads([POINT_FIELDS])],
      writes: {
        columns: lonLatColumns(`${options.prefix ?? ''}destination_`),
        format: formats.output,
        option: 'coordFormat.output',
      },
    };
  },
  async create({ client, mapping, options, readRows, resolvePath, points }) {
    refuse('matrix', constantIdIssue(options.destinations));
    const { destinations: file, ...rest } = options;
    if (file === undefined) return createMatrixJob(client, { mapping, ...rest, points });
    const shown = resolvePath(file.path);
    const format = coordFormats(options.coordFormat).input;
    const destinations = await readDestinations(
      readRows(file),
      file,
      shown,
      resolveMapping(file.mapping, file.decimal),
      format,
      points,
    );
    return createMatrixJob(client, { mapping, ...rest, destinations, destinationsFile: shown, points });
  },
});

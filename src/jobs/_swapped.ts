/**
 * Points read from the input that, taken together, look swapped: most of them outside the
 * service's area as given and inside it with longitude and latitude exchanged. One such point is
 * hinted on its row only when the row fails (withSwapHint); a file whose columns are mapped the
 * wrong way round fails no row, as the service answers a point in the sea (elevation "no data",
 * a search with nothing near), so the run is told once, for the whole input. Rows are never
 * swapped or failed for it: the warning says what to change.
 *
 * A job's `plan` notes each row's points once they are all read (a row it refuses for any reason
 * is not noted): a few comparisons a point, nothing allocated but the one example row kept.
 */
import type { LonLat, Row } from '../types.js';
import {
  isPlanIssue,
  type Mapping,
  type PointFields,
  pointSource,
  readPoint,
  shownColumn,
} from './_fields.js';

/**
 * The service's area, for this test only: Europe, where YellowMap's services answer (the emulator's
 * data, Germany, lies inside). Wide in longitude (Iceland to the Urals' west), from Crete and
 * Cyprus north; the swapped reading of a European point (longitude 34-72, latitude -25-45) lies
 * east or south of it: Arabia, the Indian Ocean, East Africa.
 */
export const SERVICE_AREA = { name: 'Europe', west: -25, south: 34, east: 45, north: 72 } as const;

/** Rows after which the run is told, while it goes on, when its points so far look swapped. */
export const EARLY_ROWS = 256;

function inside(lon: number, lat: number): boolean {
  const a = SERVICE_AREA;
  return lon >= a.west && lon <= a.east && lat >= a.south && lat <= a.north;
}

/** Outside the service's area as given, inside it with longitude and latitude exchanged. */
export function looksSwapped(lon: number, lat: number): boolean {
  return !inside(lon, lat) && inside(lat, lon);
}

/**
 * How a point was read: its mapping keys (`originLon`/`originLat`); default `lon`/`lat`. `with`:
 * the pair read together with it, exchanged with it (a rectangle's other corner).
 */
export type PointKeys = PointFields & { readonly with?: PointFields };

/** The first row whose point looked swapped: what the warning shows. */
export interface SwappedExample {
  readonly row: Row;
  readonly point: LonLat;
  readonly keys: PointKeys | undefined;
}

/** What a step's points add up to once read. */
export interface SwappedCount {
  /** Rows whose points were read (every one of them readable). */
  readonly rows: number;
  /** Of those, rows with a point that looks swapped. */
  readonly swapped: number;
  readonly example: SwappedExample | undefined;
}

/**
 * A file the job reads whole besides its input (a matrix's destinations) whose points look swapped
 * (mostlySwapped): its rows are not the run's, so it is warned of apart, by the key that names it.
 */
export interface SwappedSideInput {
  /** The job file's key for the file: `options.destinations`. */
  readonly key: string;
  /** The file as messages show it. */
  readonly shown: string;
  /** The file's own mapping, resolved (`options.destinations.mapping`). */
  readonly mapping: Mapping;
  readonly count: SwappedCount;
}

/**
 * Counts a job's rows whose points look swapped; `early` is called once, at EARLY_ROWS rows, and
 * `side` at once for a side input that looks swapped, read before the first row.
 */
export class SwappedPoints {
  private rows = 0;
  private swapped = 0;
  private lastRow = -1;
  private rowSwapped = false;
  private example: SwappedExample | undefined;
  private readonly sides: SwappedSideInput[] = [];

  constructor(
    private readonly early?: (count: SwappedCount) => void,
    private readonly side?: (side: SwappedSideInput) => void,
  ) {}

  /** A side input read whole, told only when most of its rows look swapped. */
  noteSideInput(side: SwappedSideInput): void {
    if (!mostlySwapped(side.count)) return;
    this.sides.push(side);
    this.side?.(side);
  }

  /** The side inputs noted as looking swapped, in the order they were read. */
  sideInputs(): readonly SwappedSideInput[] {
    return this.sides;
  }

  /**
   * A point of `row`, read from the input; a row of several points is noted once per point, in a
   * row, and counted once, as swapped when any of its points looks so.
   */
  note(row: Row, lon: number, lat: number, keys?: PointKeys): void {
    const index = row.ref.index;
    if (index !== this.lastRow) {
      if (this.rows === EARLY_ROWS) this.early?.(this.count());
      this.lastRow = index;
      this.rows++;
      this.rowSwapped = false;
    }
    if (this.rowSwapped || !looksSwapped(lon, lat)) return;
    this.rowSwapped = true;
    this.swapped++;
    if (this.example === undefined) this.example = { row, point: [lon, lat], keys };
  }

  count(): SwappedCount {
    return { rows: this.rows, swapped: this.swapped, example: this.example };
  }

  /**
   * Another count of the same step's rows, taken elsewhere (a distributed run's chunk, in input
   * order): its rows and swapped rows added, its example kept when none is yet, and `early` called
   * once the rows reach EARLY_ROWS, as noting them here would.
   */
  add(count: SwappedCount): void {
    const before = this.rows;
    this.rows += count.rows;
    this.swapped += count.swapped;
    this.example ??= count.example;
    if (before < EARLY_ROWS && this.rows >= EARLY_ROWS) this.early?.(this.count());
  }
}

/**
 * `count` as it travels to another process (JSON): its example only when it is the input's own
 * point (readFromInput, which looks at the row's own objects), without the input row it copies.
 */
export function portableCount(count: SwappedCount, mapping: Mapping): SwappedCount {
  const { rows, swapped, example } = count;
  if (example === undefined || !readFromInput(example, mapping)) return { rows, swapped, example: undefined };
  const { source: _source, ...row } = example.row;
  return { rows, swapped, example: { ...example, row } };
}

/**
 * Whether the example's point is the input's own, not one an earlier step of a pipeline wrote (a
 * geometry, or lon/lat columns): the step that read it from the input has told it already, and
 * its rows were read alike. Looked at once, for the warning, not per row.
 */
export function readFromInput(example: SwappedExample, mapping: Mapping): boolean {
  const { row } = example;
  if (row.added === undefined) return true;
  const source = pointSource(row, mapping, example.keys);
  if (source === 'geometry') return row.source === undefined || row.source.geometry === row.geometry;
  return !Object.hasOwn(row.added, source.lon) && !Object.hasOwn(row.added, source.lat);
}

/**
 * Whether `count` is a file read the wrong way round: more than half of its rows look swapped. A
 * few swapped rows among right ones are those rows' own mistakes, hinted on them when they fail.
 */
export function mostlySwapped(count: SwappedCount): boolean {
  return count.example !== undefined && count.swapped * 2 > count.rows;
}

const CORNER = { geometry: false, conventional: false } as const;
const NORTH_EAST_ONLY = { lon: 'east', lat: 'north', ...CORNER } as const;
const SOUTH_WEST_ONLY = { lon: 'west', lat: 'south', ...CORNER } as const;
/** Each corner's keys with the other's: the warning exchanges both pairs. */
const SOUTH_WEST: PointKeys = { ...SOUTH_WEST_ONLY, with: NORTH_EAST_ONLY };
const NORTH_EAST: PointKeys = { ...NORTH_EAST_ONLY, with: SOUTH_WEST_ONLY };

/** A rectangle's two corners, noted as the points they are (`west`/`south`, `east`/`north`). */
export function noteRectangle(
  points: SwappedPoints | undefined,
  row: Row,
  west: number,
  south: number,
  east: number,
  north: number,
): void {
  if (points === undefined) return;
  points.note(row, west, south, SOUTH_WEST);
  points.note(row, east, north, NORTH_EAST);
}

/**
 * The run's warning for `count` (mostlySwapped): how many rows, the first with its values and
 * where they were read, and what to change. `early`: said while the run goes on, so that a user
 * watching can stop it. `step`: the step's name in a run of several. `sideInput`: the rows are a
 * side input's, not the input's (its key and file, `mapping` its own).
 */
export function swappedWarning(
  count: SwappedCount,
  mapping: Mapping,
  options: {
    readonly early?: boolean;
    readonly step?: string;
    readonly sideInput?: Pick<SwappedSideInput, 'key' | 'shown'>;
  } = {},
): string {
  const example = count.example as SwappedExample;
  const [lon, lat] = example.point;
  const keys = example.keys ?? {};
  const lonKey = keys.lon ?? 'lon';
  const latKey = keys.lat ?? 'lat';
  const source = pointSource(example.row, mapping, keys);
  const where =
    source === 'geometry'
      ? `its Point geometry [${lon}, ${lat}]`
      : `${lonKey} ${lon} read from ${named(source.lon, source.columns)}, ${latKey} ${lat} from ${named(source.lat, source.columns)}`;
  const side = options.sideInput;
  const step =
    (options.step === undefined ? '' : `step ${options.step}: `) +
    (side === undefined ? '' : `${side.key} (${side.shown}): `);
  const rows =
    options.early === true
      ? `of the first ${count.rows} rows, ${count.swapped}`
      : `${count.swapped} of ${count.rows} ${count.rows === 1 ? 'row' : 'rows'}`;
  const goesOn =
    options.early === true
      ? 'the run goes on (stop it with Ctrl-C to fix the mapping first)'
      : 'the rows are written as the service answered them';
  const mappingKey = side === undefined ? 'mapping' : `${side.key}.mapping`;
  return (
    `${step}longitude and latitude look swapped: ${rows} read a point that lies outside ${SERVICE_AREA.name}, ` +
    `the service's area, and inside it with longitude and latitude exchanged (row ${example.row.ref.index + 1}: ${where}); ` +
    `${goesOn}; ${remedy(example.row, mapping, keys, source, mappingKey)}; ${OUTSIDE}`
  );
}

/** Points that are right and lie outside the area (Arabia, East Africa) read the same way. */
const OUTSIDE = `if the points do lie there, outside ${SERVICE_AREA.name}, leave the mapping: the service has little or no data for them`;

/** What to change: the mapping with each pair's columns exchanged, or the file's own coordinates. */
function remedy(
  row: Row,
  mapping: Mapping,
  keys: PointKeys,
  source: ReturnType<typeof pointSource>,
  mappingKey: string,
): string {
  if (source === 'geometry')
    return 'GeoJSON writes longitude first (RFC 7946): if the file writes latitude first, exchange the coordinates in it';
  const pairs: { keys: PointFields; source: ReturnType<typeof pointSource> }[] = [{ keys, source }];
  // The pair read with it (a rectangle's other corner, a route's destination), when it looks swapped too.
  const other = keys.with === undefined ? undefined : readPoint(row, mapping, keys.with);
  if (
    keys.with !== undefined &&
    other !== undefined &&
    !isPlanIssue(other) &&
    looksSwapped(other[0], other[1])
  )
    pairs.push({ keys: keys.with, source: pointSource(row, mapping, keys.with) });
  const entries: string[] = [];
  for (const pair of pairs) {
    if (pair.source === 'geometry' || !pair.source.columns)
      return `if they are the wrong way round, exchange what ${mappingKey} gives ${keys.lon ?? 'lon'} and ${keys.lat ?? 'lat'}`;
    entries.push(
      `${pair.keys.lon ?? 'lon'}: ${yamlKey(pair.source.lat)}`,
      `${pair.keys.lat ?? 'lat'}: ${yamlKey(pair.source.lon)}`,
    );
  }
  return `if the columns are the wrong way round, exchange them in the mapping: \`${mappingKey}: { ${entries.join(', ')} }\``;
}

/** A column as a message names it (`column "lat"`), or a mapping constant by its key. */
function named(name: string, column: boolean): string {
  return column ? `column ${shownColumn(name)}` : name;
}

/** A column name as a YAML mapping value: plain when it can be, else quoted. */
function yamlKey(name: string): string {
  return /^[A-Za-z_][\w.-]*$/.test(name) ? name : JSON.stringify(name);
}

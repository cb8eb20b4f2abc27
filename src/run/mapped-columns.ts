/**
 * The columns a job file's mappings read, checked against a CSV input's header before any row is
 * read. A mapping to a column the header does not have would fail every row, or worse, for an
 * optional field such as `houseNo`, let every row go out without it and come back ok: so the run
 * stops at once, before anything is sent or written, and says which column the header has instead.
 *
 * Only CSV: NDJSON and GeoJSON records may each have keys of their own, so a key the first record
 * lacks can still be in the next. Their records are watched instead, as the run reads them: a
 * mapped key that none of the first thousand has is warned of (src/run/_record-keys.ts), and so
 * are points read ambiguously from default columns (src/run/_default-points.ts).
 */
import type { JobConfig } from '../config/load.js';
import type { Step } from '../engine/pipeline.js';
import { ConfigError } from '../errors.js';
import { utf8ReadAsSingleByte } from '../input/_encoding.js';
import type { InputEncoding, InputReader } from '../input/reader.js';
import { isDefaultColumn, nearColumns, shownColumn } from '../jobs/_fields.js';
import { POINT_FIELDS } from '../jobs/_options.js';
import { checkDefaultPointColumns } from './_default-point-columns.js';
import { type DefaultPoint, defaultPointAmbiguity, RecordPoints } from './_default-points.js';
import { oneColumnHeader } from './_one-column-header.js';
import { checkOnePointColumn, sameBut } from './_one-column-point.js';
import { RecordKeys } from './_record-keys.js';
import { watchRecords } from './_watch-records.js';

export type { DefaultPoint } from './_default-points.js';

export interface MappedColumn {
  /** The column the mapping reads. */
  readonly column: string;
  /** Where the job file names it: `mapping.zip`, or `steps[1].mapping.zip`. */
  readonly path: string;
  /** Columns the steps before it add to the row, which it may read as well. */
  readonly earlier: readonly string[];
  /** Columns the steps after it add, by the step that adds each (`steps[2]`): it cannot read them. */
  readonly later?: ReadonlyMap<string, string>;
}

export interface MappedColumns {
  readonly file: string;
  readonly columns: readonly MappedColumn[];
  /**
   * The header the columns are read from, as messages name it: a side input's
   * (src/run/side-columns.ts) names its file. @default "the input's header"
   */
  readonly header?: string;
  /**
   * The points read, in all or in part, from the input's conventionally named columns
   * (lon/lng/longitude/x, lat/latitude/y: a key of the pair left unmapped, and no earlier step
   * adding such a pair).
   */
  readonly defaultPoints?: readonly DefaultPoint[];
  /**
   * The encoding the job file declares for the file the header is read from: a header of UTF-8
   * read as windows-1252 (`StraÃŸe`) is told by it. @default utf-8
   */
  readonly encoding?: InputEncoding;
}

/** Every `{ column }` of every step's mapping; `steps` are the built steps, in the file's order. */
export function mappedColumns(config: JobConfig, steps: readonly Step[]): MappedColumns {
  const columns: MappedColumn[] = [];
  const defaultPoints: DefaultPoint[] = [];
  const earlier: string[] = [];
  // Whether a step so far writes a point, which it gives the row as its geometry.
  let placed = false;
  config.steps.forEach((step, i) => {
    const at = step.path === '' ? 'mapping' : `${step.path}.mapping`;
    const later = new Map<string, string>();
    config.steps.forEach((after, j) => {
      if (j > i) for (const column of steps[j]?.job.columns ?? []) later.set(column, after.path);
    });
    for (const [key, source] of Object.entries(step.mapping)) {
      if ('column' in source)
        columns.push({ column: source.column, path: `${at}.${key}`, earlier: [...earlier], later });
    }
    checkHalfFromStep(config.file, step, earlier, at);
    defaultPoints.push(...defaultReadsOf(step, earlier, at, placed));
    earlier.push(...(steps[i]?.job.columns ?? []));
    // A point: a pair of columns (geocode's lon/lat), not an area's four sides (area-export's).
    placed ||= step.record.coordinates?.(step.options as never, step.mapping)?.writes?.columns.length === 2;
  });
  return {
    file: config.file,
    columns,
    ...(defaultPoints.length > 0 ? { defaultPoints } : {}),
    ...(config.input.encoding === undefined ? {} : { encoding: config.input.encoding }),
  };
}

/**
 * Refuses a pair one key of which is mapped to a column an earlier step adds while the other,
 * unmapped, is read from the input's default column (`lon: geo_lon` beside an input's `lat`, a
 * YAML merge whose step's own `mapping` replaced the merged one): a point of two places. Every row
 * failed, after the earlier steps had been paid for, or took the input's stale latitude.
 */
function checkHalfFromStep(
  file: string,
  step: JobConfig['steps'][number],
  earlier: readonly string[],
  at: string,
): void {
  const columnOf = (key: string): string | undefined => {
    const source = step.mapping[key];
    if (typeof source === 'string') return source;
    return typeof source === 'object' && source !== null && 'column' in source
      ? String(source.column)
      : undefined;
  };
  for (const { pairs } of step.record.coordinates?.(step.options as never, step.mapping)?.reads ?? []) {
    for (const pair of pairs) {
      checkOnePointColumn(file, at, pair, [columnOf(pair[0]), columnOf(pair[1])], earlier);
      const [mapped, unmapped] =
        step.mapping[pair[0]] === undefined ? [pair[1], pair[0]] : [pair[0], pair[1]];
      if (step.mapping[unmapped] !== undefined) continue;
      const column = columnOf(mapped);
      if (column === undefined || !earlier.includes(column)) continue;
      const axis = unmapped === pair[0] ? 'lon' : 'lat';
      const twin = earlier.find((other) => other !== column && sameBut(other, column, axis));
      throw new ConfigError(
        `${file}: ${at}.${mapped} reads ${shownColumn(column)}, which an earlier step adds, and ${at}.${unmapped}, not mapped, would be read from the input's default column: a point from two places`,
        {
          file,
          path: `${at}.${unmapped}`,
          expected: `${unmapped} mapped too`,
          hint:
            twin === undefined
              ? `map ${unmapped} as well`
              : `map it to the same step's column: \`${unmapped}: ${twin}\``,
        },
      );
    }
  }
}

/**
 * The points a step reads from the input's default columns: of each pair its kind reads from them
 * (lon/lat, or one marked `defaults`), the keys left unmapped; none when an earlier step adds a pair
 * of its own (which a later step takes first, src/jobs/_fields.ts).
 */
function defaultReadsOf(
  step: JobConfig['steps'][number],
  earlier: readonly string[],
  at: string,
  placed: boolean,
): DefaultPoint[] {
  const stepsPair =
    earlier.some((column) => isDefaultColumn(column, 'lon')) &&
    earlier.some((column) => isDefaultColumn(column, 'lat'));
  if (stepsPair) return [];
  const out: DefaultPoint[] = [];
  for (const { pairs, defaults } of step.record.coordinates?.(step.options as never, step.mapping)?.reads ??
    []) {
    for (const [lon, lat] of pairs) {
      if (defaults !== true && !(lon === POINT_FIELDS[0] && lat === POINT_FIELDS[1])) continue;
      // A key left unmapped is read from the first default column of its axis, its pair mapped
      // or not (`lon: longitude` with `lat` unmapped reads `lat`, beside a `latitude`).
      const axes = (
        [
          ['lon', lon],
          ['lat', lat],
        ] as const
      ).filter(([, key]) => step.mapping[key] === undefined);
      if (axes.length === 0) continue;
      const keys = axes.map(([axis, key]) => ({ axis, key: `${at}.${key}` }));
      const geometryFirst = defaults !== true && axes.length === 2;
      out.push({ keys, geometryFirst, ...(geometryFirst && placed ? { placed } : {}) });
    }
  }
  return out;
}

/**
 * A warning when a step reads its point from default columns and the header has more than one
 * longitude or latitude column among them (defaultPointAmbiguity). Not refused: the columns often agree.
 */
export function defaultPointWarning(mapped: MappedColumns, header: readonly string[]): string | undefined {
  const ambiguity = defaultPointAmbiguity(mapped.defaultPoints ?? [], header);
  return ambiguity === undefined
    ? undefined
    : `${mapped.header ?? "the input's header"} has more than one ${ambiguity}`;
}

const SHOWN = 12;

/** A mapped column that neither the header nor an earlier step has, and what to do about it. */
interface Missing {
  readonly column: string;
  readonly path: string;
  readonly hint: string;
}

/**
 * Throws CONFIG_INVALID for the mapped columns that neither the header nor an earlier step has:
 * every one of them, so that a file with two (`Lon` and `lat\u00a0` in the header) is not fixed
 * one run at a time. The message's first line and the context (file, path, field, expected,
 * received, hint) are the first column's; each further column gets a line of its own with its
 * hint, and `detail` maps every path to the column it reads.
 */
export function checkMappedColumns(mapped: MappedColumns, header: readonly string[]): void {
  // No header at all: an empty input, which the run reports as such (INPUT_EMPTY).
  if (header.length === 0) return;
  const present = new Set(header);
  const listed = header.slice(0, SHOWN).map(shownColumn);
  const more = header.length > SHOWN ? `, ... (${header.length} columns)` : '';
  const holder = mapped.header ?? "the input's header";
  // UTF-8 read as windows-1252: mapped to as written, every accented letter would come out garbled.
  const encoding = mapped.encoding ?? 'utf-8';
  const garbled =
    encoding === 'utf-8'
      ? []
      : header.flatMap((raw) => {
          const text = utf8ReadAsSingleByte(raw);
          return text === undefined ? [] : [{ raw, text }];
        });
  const readAs = `in UTF-8 read as ${encoding}: set \`input.encoding: utf-8\` (or drop the setting)`;
  const misread = (column: string) => {
    const texts = garbled.map(({ text }) => text);
    const near = texts.includes(column) ? [column] : nearColumns(texts, column);
    const found = garbled.filter(({ text }) => near.includes(text));
    if (found.length === 0) return undefined;
    const map = near.includes(column) ? '' : `, and map to ${near.map(shownColumn).join(' or ')}`;
    const is = found
      .map(({ raw, text }) => `${shownColumn(raw)}, which is ${shownColumn(text)}`)
      .join(', and ');
    return `the header has ${is} ${readAs}${map}`;
  };
  const [sample] = garbled;
  const fallback =
    `map one of the header's columns (${listed.join(', ')}${more}), or give a constant with \`{ value: ... }\`` +
    (sample === undefined
      ? ''
      : `; the header has ${shownColumn(sample.raw)}, which is ${shownColumn(sample.text)} ${readAs}`);
  const missing: (Missing & { readonly earlier: readonly string[] })[] = [];
  for (const { column, path, earlier, later } of mapped.columns) {
    if (present.has(column) || earlier.includes(column)) continue;
    const near = nearColumns(header, column);
    const nearEarlier = nearColumns(earlier, column);
    const after = later?.get(column);
    const hint =
      after !== undefined
        ? `${after} adds it, after this step: a step reads only the columns the steps before it add, so move that step first`
        : (misread(column) ??
          (near.length > 0
            ? `the header has ${near.map(shownColumn).join(' and ')}: map to it as written, or fix the header`
            : nearEarlier.length > 0
              ? `an earlier step adds ${nearEarlier.map(shownColumn).join(' and ')}: map to it as written`
              : (oneColumnHeader(header) ?? fallback)));
    missing.push({ column, path, hint, earlier });
  }
  const [first, ...others] = missing;
  if (first === undefined) return;
  const { column, path, earlier } = first;
  const steps =
    earlier.length > 0 ? ` nor the steps before it add (${earlier.map(shownColumn).join(', ')})` : '';
  // A further column's hint is left out where it says again what the first's or the expected list says.
  const line = (other: Missing) =>
    `  ${other.path} reads the column ${JSON.stringify(other.column)}, which it does not have either${other.hint === first.hint || other.hint === fallback ? '' : `: ${other.hint}`}`;
  throw new ConfigError(
    [
      `${mapped.file}: ${path} reads the column ${JSON.stringify(column)}, which ${holder} does not have${steps}`,
      ...others.map(line),
    ].join('\n'),
    {
      file: mapped.file,
      path,
      field: column,
      expected: `a column of the header: ${listed.join(', ')}${more}${earlier.length > 0 ? `, or one an earlier step adds: ${earlier.map(shownColumn).join(', ')}` : ''}`,
      received: JSON.stringify(column),
      hint: first.hint,
      ...(others.length > 0 ? { detail: Object.fromEntries(missing.map((m) => [m.path, m.column])) } : {}),
    },
  );
}

/**
 * A run's and a dry run's check of the input they open, as it opens: a CSV header's mapped columns
 * (refused) and default points (warned); an NDJSON or GeoJSON input's default points record by
 * record, as the rows are handed on (src/run/_default-points.ts), and its mapped keys over its
 * first records (src/run/_record-keys.ts). Returns the reader to read.
 */
export function checkInput(
  mapped: MappedColumns | undefined,
  reader: InputReader,
  warn: (message: string) => void,
): InputReader {
  if (mapped === undefined) return reader;
  if (reader.format !== 'csv')
    return watchRecords(reader, [
      new RecordPoints(mapped.defaultPoints ?? [], warn),
      new RecordKeys(mapped.columns, warn),
    ]);
  const header = reader.columns();
  checkMappedColumns(mapped, header);
  checkDefaultPointColumns(mapped, header);
  const points = defaultPointWarning(mapped, header);
  if (points !== undefined) warn(points);
  return reader;
}

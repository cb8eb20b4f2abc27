/**
 * A matrix job's destinations file, read whole before the first origin: every origin row is paired
 * with every destination, so they must all be known. A bad destination stops the job before any
 * request (a job-file error naming the file, the row and the field), and the file's size is capped
 * because it is held in memory.
 */
import type { CoordFormat } from '../contract/index.js';
import { ConfigError } from '../errors.js';
import type { LonLat, Row, RowIssue } from '../types.js';
import { columnName } from './_column-name.js';
import { isPlanIssue, type Mapping, nearColumns, readPoint, readText, shownColumn } from './_fields.js';
import type { SideInput } from './_kind.js';
import { SwappedPoints } from './_swapped.js';

export interface Destination {
  readonly id: string;
  readonly point: LonLat;
}

/** Destinations are held in memory for the whole run. */
export const DEFAULT_MAX_DESTINATIONS = 10_000;

/**
 * The destination's id: its `mapping.id` column, else its row number. A mapped id that is empty or
 * absent (a GeoJSON feature without the property, a name mistyped) stops the job rather than
 * become the row number, which could be another destination's id.
 */
function destinationId(row: Row, mapping: Mapping, shown: string): string {
  const source = mapping.id;
  if (source === undefined) return String(row.ref.index + 1);
  const id = readText(row, mapping, 'id');
  if (id !== undefined) return id;
  const column = 'column' in source ? source.column : 'id';
  const at = `${shown} row ${row.ref.index + 1}`;
  const has = Object.hasOwn(row.fields, column);
  const near = has ? [] : nearColumns(Object.keys(row.fields), column);
  throw new ConfigError(
    `${at}: ${columnName(column)}: ${has ? 'empty' : 'missing'}; expected the destination's id (options.destinations.mapping.id)`,
    {
      file: shown,
      row: row.ref.index + 1,
      path: 'options.destinations.mapping.id',
      field: column,
      expected: `an id in every destination's ${JSON.stringify(column)}`,
      ...(has
        ? { hint: 'give the destination an id, or leave mapping.id out to number the destinations by row' }
        : {
            hint:
              near.length > 0
                ? `the destination has ${near.map(shownColumn).join(' and ')}: map to it as written`
                : `the destination has ${Object.keys(row.fields).slice(0, 12).map(shownColumn).join(', ') || 'no fields'}`,
          }),
    },
  );
}

function isCsv(file: SideInput): boolean {
  return file.format === 'csv' || (file.format === undefined && /\.(csv|tsv|txt)$/i.test(file.path));
}

function checkColumns(row: Row, mapping: Mapping, shown: string): void {
  for (const [key, source] of Object.entries(mapping)) {
    if (!('column' in source) || Object.hasOwn(row.fields, source.column)) continue;
    const path = `options.destinations.mapping.${key}`;
    const near = nearColumns(Object.keys(row.fields), source.column);
    throw new ConfigError(
      `${shown}: ${path} reads the column ${JSON.stringify(source.column)}, which the file does not have`,
      {
        file: shown,
        path,
        field: source.column,
        expected: `a column of ${shown}: ${Object.keys(row.fields).map(shownColumn).join(', ')}`,
        received: JSON.stringify(source.column),
        ...(near.length === 0
          ? {}
          : {
              hint: `the file has ${near.map(shownColumn).join(' and ')}: map to it as written`,
            }),
      },
    );
  }
}

export async function readDestinations(
  rows: AsyncIterable<Row | RowIssue>,
  file: SideInput & { readonly maxRows?: number },
  shown: string,
  mapping: Mapping,
  format?: CoordFormat,
  points?: SwappedPoints,
): Promise<Destination[]> {
  const limit = file.maxRows ?? DEFAULT_MAX_DESTINATIONS;
  const destinations: Destination[] = [];
  // Destinations mapped the wrong way round lie in the sea off Arabia and every pair is answered,
  // thousands of kilometres long: the run is told, as it is of its input's points.
  const read = points === undefined ? undefined : new SwappedPoints();
  // Output rows are told apart by their destination_id: each id once.
  const rowOfId = new Map<string, number>();
  let checked = false;
  for await (const item of rows) {
    const row = item.ref.index + 1;
    if (item.kind === 'issue')
      throw new ConfigError(`${shown} row ${row}: ${item.message}`, { file: shown, row });
    // A CSV row has every header column: a mapped one it lacks is not in the file at all, and an
    // `id` read from nowhere would quietly become the row number.
    if (!checked && isCsv(file)) checkColumns(item, mapping, shown);
    checked = true;
    const point = readPoint(item, mapping, { format });
    if (isPlanIssue(point)) {
      throw new ConfigError(`${shown} row ${row}: ${point.message}`, {
        file: shown,
        row,
        field: point.field,
      });
    }
    if (destinations.length === limit) {
      throw new ConfigError(`${shown}: more than ${limit} destinations`, {
        file: shown,
        path: 'options.destinations.maxRows',
        hint: 'raise options.destinations.maxRows, or split the destinations file',
      });
    }
    const id = destinationId(item, mapping, shown);
    const first = rowOfId.get(id);
    if (first !== undefined) {
      throw new ConfigError(`${shown} rows ${first} and ${row}: both have the id ${JSON.stringify(id)}`, {
        file: shown,
        row,
        path: 'options.destinations.mapping.id',
        expected: "each destination's id once: the output tells the pairs apart by destination_id",
        received: JSON.stringify(id),
        hint: 'give the destinations distinct ids, or remove the repeated row',
      });
    }
    rowOfId.set(id, row);
    destinations.push({ id, point });
    read?.note(item, point[0], point[1]);
  }
  if (read !== undefined)
    points?.noteSideInput({ key: 'options.destinations', shown, mapping, count: read.count() });
  return destinations;
}

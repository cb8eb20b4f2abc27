/**
 * A matrix job's destinations file, read whole before the first origin: every origin row is paired
 * with every destination, so they must all be known. A bad destination stops the job before any
 * request (a job-file error naming the file, the row and the field), and the file's size is capped
 * because it is held in memory.
 */
import type { CoordFormat } from '../contract/index.js';
import { ConfigError } from '../errors.js';
import type { LonLat, Row, RowIssue } from '../types.js';
import { isPlanIssue, type Mapping, nearColumns, readPoint, readText, shownColumn } from './_fields.js';
import type { SideInput } from './_kind.js';

export interface Destination {
  readonly id: string;
  readonly point: LonLat;
}

/** Destinations are held in memory for the whole run. */
export const DEFAULT_MAX_DESTINATIONS = 10_000;

export function destinationId(row: Row, mapping: Mapping): string {
  return readText(row, mapping, 'id') ?? String(row.ref.index + 1);
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
): Promise<Destination[]> {
  const limit = file.maxRows ?? DEFAULT_MAX_DESTINATIONS;
  const destinations: Destination[] = [];
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
    destinations.push({ id: destinationId(item, mapping), point });
  }
  return destinations;
}

/**
 * reverse-geocode: lon/lat (columns or Point geometry) -> the address the service places there,
 * and how far that address is from the point. One request per distinct point (to 1e-6 degrees).
 */

import { z } from 'zod';
import { distanceMetres } from '../client/coords.js';
import type { ItemResult, Job, RenderResult } from '../engine/job.js';
import type { LonLat, Row } from '../types.js';
import {
  COORD_FORMATS_DOC,
  type CoordFormatsSetting,
  coordFormats,
  coordFormatsOption,
  lonLatColumns,
  readsIn,
} from './_coord-format.js';
import {
  isPlanIssue,
  type Mapping,
  type PointFields,
  placedFailure,
  pointGeometry,
  pointKey,
  readPoint,
  recordGeometry,
  withSwapHint,
} from './_fields.js';
import { defineJobKind } from './_kind.js';
import { POINT_FIELDS, prefix } from './_options.js';
import type { GeocodeResult, ReverseGeocodePort } from './_ports.js';
import { answerOf, eachItem } from './_single.js';
import type { SwappedPoints } from './_swapped.js';
import { matchColumnNames, matchColumns, noMatch } from './geocode.js';

export interface ReverseGeocodeJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default 'rev_' */
  readonly prefix?: string;
  /** The point columns' and the output's coordinate format. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormatsSetting;
}

export function createReverseGeocodeJob(
  client: ReverseGeocodePort,
  options: ReverseGeocodeJobOptions,
): Job<LonLat, GeocodeResult> {
  const prefix = options.prefix ?? 'rev_';
  const formats = coordFormats(options.coordFormat);
  const at: PointFields = { format: formats.input };

  const distanceColumn = `${prefix}distance_m`;

  function renderMatch(row: Row, point: LonLat, result: ItemResult<GeocodeResult> | undefined): RenderResult {
    const answer = answerOf(result);
    if ('failed' in answer) return answer.failed;
    const match = answer.value.match;
    if (match === null) return { ok: false, failure: noMatch(answer.value) };
    const columns = matchColumns(prefix, match, formats.output);
    // The nearest address may be far off (a point at sea, abroad, or with its halves swapped):
    // how far is what tells a user which answers to trust, and can be filtered on.
    columns[distanceColumn] = Math.round(distanceMetres(point, [match.lon, match.lat]));
    // The row keeps its own position; the matched place's coordinates are columns.
    return { ok: true, records: [{ columns, geometry: recordGeometry(row, options.mapping, at) }] };
  }

  return {
    kind: 'reverse-geocode',
    columns: [...matchColumnNames(prefix), distanceColumn],
    plan(row) {
      const point = readPoint(row, options.mapping, at);
      if (isPlanIssue(point)) return point;
      options.points?.note(row, point[0], point[1]);
      return [point];
    },
    key: pointKey,
    locate: (row) => pointGeometry(row, options.mapping, at),
    execute: eachItem(pointKey, (item, signal) => client.reverseGeocode(item, { signal })),
    render(row, [result]) {
      const point = readPoint(row, options.mapping, at);
      // plan() read this point before the row was sent: an issue here cannot come back.
      const rendered: RenderResult = isPlanIssue(point)
        ? { ok: false, failure: { code: point.code, message: point.message, stage: 'input' } }
        : renderMatch(row, point, result);
      return placedFailure(withSwapHint(rendered, [point]), row, options.mapping, at);
    },
  };
}

export const reverseGeocodeKind = defineJobKind({
  name: 'reverse-geocode',
  summary: 'coordinates -> the nearest address and its distance',
  mappingFields: POINT_FIELDS,
  mappingRequired: false,
  options: z.strictObject({ prefix, coordFormat: coordFormatsOption }),
  services: ['geojson'],
  docs: {
    mapping:
      '`lon`, `lat` (default: a GeoJSON Point geometry, else columns named lon/lng/longitude/x and lat/latitude/y; a decimal comma is accepted)',
    options: { prefix: '`rev_`', coordFormat: COORD_FORMATS_DOC },
  },
  coordinates(options) {
    const formats = coordFormats(options.coordFormat);
    return {
      reads: [readsIn([POINT_FIELDS], formats.input, 'coordFormat.input')],
      writes: {
        columns: lonLatColumns(options.prefix ?? 'rev_'),
        format: formats.output,
        option: 'coordFormat.output',
      },
    };
  },
  create: ({ client, mapping, options, points }) =>
    createReverseGeocodeJob(client, { mapping, ...options, points }),
});

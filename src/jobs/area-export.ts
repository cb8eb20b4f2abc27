/**
 * area-export: OpenStreetMap ids, or rectangles, -> the areas' polygons, as GeoJSON features
 * (wound as RFC 7946 asks) and, for CSV, as WKT text and bounding-box columns.
 *
 * Ids travel many to a request through the POST osmid form and are matched back by the osmid each
 * feature carries, never by position: the service leaves unknown ids out. A rectangle is one
 * request and gives every area of the chosen level that meets it, one output row per area.
 * `reduceGeometry` (0 to 1) and `zoom` are passed to the service, which simplifies before sending.
 */

import type { Geometry } from 'geojson';
import { z } from 'zod';
import type { ItemFailure, ItemResult, Job, PlanIssue } from '../engine/job.js';
import type { Fields, OutputRecord, Row } from '../types.js';
import { columnName } from './_column-name.js';
import {
  COORD_FORMATS_DOC,
  type CoordFormatsSetting,
  coordFormats,
  coordFormatsOption,
  readsIn,
} from './_coord-format.js';
import { cell, columnOf, isPlanIssue, type Mapping, readText } from './_fields.js';
import { refusal } from './_file-rules.js';
import { chooseForm, type FormChoice, type FormRule } from './_forms.js';
import { toWkt } from './_geometry.js';
import { defineJobKind } from './_kind.js';
import { countries, languages, lingerMs, nonNegativeInt, positiveInt, prefix } from './_options.js';
import { areaBox, inFormat, rewind } from './_polygons.js';
import type { AreaExportPort, AreaFeature } from './_ports.js';
import {
  RECTANGLE_CONSTANTS,
  RECTANGLE_FIELDS,
  type Rectangle,
  readRectangle,
  rectangleKey,
} from './_rectangle.js';
import { boxMeetsSheet, meetsSheet } from './_sheet.js';
import { answerOf } from './_single.js';
import { noteRectangle, type SwappedPoints } from './_swapped.js';

export type AreaForm = 'osmid' | 'rectangle';
export type GeometryColumn = 'wkt' | 'geojson' | 'none';

export const AREA_FORMS: FormRule<AreaForm> = {
  keys: { osmid: ['osmid'], rectangle: RECTANGLE_FIELDS },
  required: { osmid: ['osmid'], rectangle: RECTANGLE_FIELDS },
};

/**
 * The form a mapping asks for, with the level that goes with it: rectangles need the level of the
 * areas they meet; an osm id names its own, so a level there would be silently ignored.
 */
function areaForm(
  mapping: Readonly<Record<string, unknown>>,
  options: { readonly level?: number; readonly batchSize?: number; readonly lingerMs?: number },
): FormChoice<AreaForm> {
  const choice = chooseForm(AREA_FORMS, mapping, undefined);
  if ('issue' in choice) return choice;
  const { level } = options;
  // A rectangle is a request of its own: the keys of the id batches would be taken and do nothing.
  const batchKey = (['batchSize', 'lingerMs'] as const).find((key) => options[key] !== undefined);
  if (choice.form === 'rectangle' && batchKey !== undefined)
    return {
      issue: {
        path: `options.${batchKey}`,
        expected: `not used with rectangles (each rectangle is one request; only osm ids travel in batches), got ${options[batchKey]}`,
        received: String(options[batchKey]),
        hint: `drop options.${batchKey}`,
      },
    };
  if (choice.form === 'rectangle' && level === undefined)
    return {
      issue: {
        path: 'options.level',
        expected:
          'expected the administrative level of the areas a rectangle meets (Germany: 2, 4 or 6), got none',
        received: 'nothing',
        hint: 'add options.level: 6 for districts',
      },
    };
  if (choice.form === 'osmid' && level !== undefined)
    return {
      issue: {
        path: 'options.level',
        expected: `not used with osm ids (each id names its own level), got ${level}`,
        received: String(level),
        hint: 'drop options.level',
      },
    };
  return choice;
}

export interface AreaExportJobOptions {
  /** Told of the points each row reads (the run's swapped-coordinates warning). @default none */
  readonly points?: SwappedPoints;
  readonly mapping: Mapping;
  /** @default 'area_' */
  readonly prefix?: string;
  /** The administrative level of a rectangle's areas (required for rectangles; ids carry their own). */
  readonly level?: number;
  /** Geometry reduction factor 0 to 1, applied by the service. @default none (full geometry) */
  readonly reduceGeometry?: number;
  /** Detail level 0 to 22, applied by the service. @default none */
  readonly zoom?: number;
  /** `isoCountries`: only areas of these countries. @default none sent (the service's all) */
  readonly countries?: readonly string[];
  /** `isoLanguages`: the languages of the areas' localised names. @default none sent (all it has) */
  readonly languages?: readonly string[];
  /** Ids per request. @default 50 */
  readonly batchSize?: number;
  /** @default 50 */
  readonly lingerMs?: number;
  /** How a CSV or NDJSON row carries the polygon: WKT text, GeoJSON text, or not at all. @default 'wkt' */
  readonly geometryColumn?: GeometryColumn;
  /** The rectangle columns' and the output columns' formats. @default 'GEODECIMAL_POINT' */
  readonly coordFormat?: CoordFormatsSetting;
}

type Item =
  | { readonly form: 'osmid'; readonly osmid: number }
  | { readonly form: 'rectangle'; readonly rect: Rectangle };

const ID_PATTERN = /^(?:r|relation\/?)?(\d{1,15})$/i;
/** OSM ids are far below 15 digits; more is a pasted number of another kind, named as such. */
const TOO_LONG = /^(?:r|relation\/?)?\d{16,}$/i;

/** An OSM id as people write it: `62422`, `r62422`, `relation/62422`. */
export function readOsmid(text: string): number | undefined {
  const match = ID_PATTERN.exec(text.trim());
  if (match === null) return undefined;
  const id = Number(match[1]);
  return Number.isSafeInteger(id) && id > 0 ? id : undefined;
}

const itemKey = (item: Item) => (item.form === 'osmid' ? `o:${item.osmid}` : `r:${rectangleKey(item.rect)}`);

/** A row's OSM id, or why it holds none. */
function osmidOf(row: Row, mapping: Mapping): number | PlanIssue {
  const field = columnOf(mapping, 'osmid') ?? 'osmid';
  const text = readText(row, mapping, 'osmid');
  if (text === undefined)
    return { code: 'FIELD_MISSING', field, message: `${columnName(field)}: missing; expected an OSM id` };
  const osmid = readOsmid(text);
  if (osmid !== undefined) return osmid;
  if (TOO_LONG.test(text.trim()))
    return {
      code: 'FIELD_INVALID',
      field,
      message: `${columnName(field)}: expected an OSM id of at most 15 digits, got one of ${text.trim().replace(/\D/g, '').length}`,
    };
  return {
    code: 'FIELD_INVALID',
    field,
    message: `${columnName(field)}: expected a positive integer OSM id (62422, r62422 or relation/62422), got \`${text.slice(0, 40)}\``,
  };
}

export function createAreaExportJob(
  client: AreaExportPort,
  options: AreaExportJobOptions,
): Job<Item, AreaFeature[]> {
  const choice = areaForm(options.mapping, options);
  if ('issue' in choice) throw refusal('area-export', choice.issue);
  const { form } = choice;
  const prefix = options.prefix ?? 'area_';
  const formats = coordFormats(options.coordFormat);
  const geometryColumn = options.geometryColumn ?? 'wkt';
  const simplify = {
    ...(options.reduceGeometry === undefined ? {} : { reduceGeometry: options.reduceGeometry }),
    ...(options.zoom === undefined ? {} : { zoom: options.zoom }),
  };
  // A simplified outline falls short of the area's own box (_polygons.ts, _sheet.ts).
  const simplified = Object.keys(simplify).length > 0;
  const common = {
    ...simplify,
    ...(options.countries === undefined ? {} : { isoCountries: [...options.countries] }),
    ...(options.languages === undefined ? {} : { isoLanguages: [...options.languages] }),
  };
  const level = options.level;
  const names = ['osmid', 'name', 'key', 'level', 'iso_country', 'west', 'south', 'east', 'north'];
  if (geometryColumn !== 'none') names.push('geometry');
  const columns = [...(form === 'rectangle' ? ['count'] : []), ...names].map((n) => `${prefix}${n}`);

  function areaColumns(area: AreaFeature | undefined, count: number): Fields {
    const shape = area === undefined ? undefined : inFormat(rewind(area.geometry), formats.output);
    const box = shape === undefined ? null : areaBox(shape, area?.bbox, formats.output, simplified);
    const values: Record<string, ReturnType<typeof cell>> = {
      count,
      osmid: cell(area?.osmid),
      name: cell(area?.name),
      key: cell(area?.key),
      level: cell(area?.level),
      iso_country: cell(area?.isoCountry),
      west: box?.[0] ?? null,
      south: box?.[1] ?? null,
      east: box?.[2] ?? null,
      north: box?.[3] ?? null,
      // GeoJSON text stays WGS84 whatever coordFormat says, as RFC 7946 requires and as the feature does.
      geometry:
        shape === undefined || area === undefined
          ? null
          : geometryColumn === 'wkt'
            ? toWkt(shape)
            : JSON.stringify(rewind(area.geometry)),
    };
    return Object.fromEntries(columns.map((c) => [c, values[c.slice(prefix.length)] ?? null]));
  }

  const record = (area: AreaFeature | undefined, count: number): OutputRecord => ({
    columns: areaColumns(area, count),
    geometry: area === undefined ? null : (rewind(area.geometry) as Geometry),
  });

  async function byIds(items: readonly Item[], signal: AbortSignal) {
    const ids = items.flatMap((i) => (i.form === 'osmid' ? [i.osmid] : []));
    const { features } = await client.area.osmids({ osmids: ids, ...common }, { signal });
    const byId = new Map<number, AreaFeature>();
    for (const f of features) if (f.osmid !== undefined && !byId.has(f.osmid)) byId.set(f.osmid, f);
    const out = new Map<string, ItemResult<AreaFeature[]>>();
    for (const item of items) {
      if (item.form !== 'osmid') continue;
      const found = byId.get(item.osmid);
      out.set(itemKey(item), found === undefined ? notFound(item.osmid) : { ok: true, value: [found] });
    }
    return out;
  }

  async function byRectangle(item: Item & { form: 'rectangle' }, signal: AbortSignal) {
    const { west, south, east, north } = item.rect;
    const body = {
      level: level as number,
      boundingBox: {
        northEast: { latitude: north, longitude: east },
        southWest: { latitude: south, longitude: west },
      },
      ...common,
    };
    const { features } = await client.area.rectangle(body, { signal });
    // A SUPERKONFORM sheet was asked for by the box of degrees holding it: the areas it does not
    // meet go (_sheet.ts). A simplified outline may miss the sheet by metres where the area meets
    // it (Bergstraße's, 3 m east of a map sheet at reduceGeometry 0.2): then only an area whose
    // own box, which the simplification leaves whole, misses the sheet goes.
    const { sheet } = item.rect;
    const meets = (f: AreaFeature) =>
      sheet === undefined ||
      (simplified ? f.bbox === undefined || boxMeetsSheet(f.bbox, sheet) : meetsSheet(f.geometry, sheet));
    const met = features.filter(meets);
    return new Map([[itemKey(item), { ok: true, value: met } as ItemResult<AreaFeature[]>]]);
  }

  return {
    kind: 'area-export',
    columns,
    plan(row): readonly Item[] | PlanIssue {
      if (form === 'rectangle') {
        const rect = readRectangle(row, options.mapping, formats.input);
        if (isPlanIssue(rect)) return rect;
        noteRectangle(options.points, row, rect.west, rect.south, rect.east, rect.north);
        return [{ form, rect }];
      }
      const osmid = osmidOf(row, options.mapping);
      if (isPlanIssue(osmid)) return osmid;
      return [{ form, osmid }];
    },
    key: itemKey,
    ...(form === 'osmid'
      ? { batching: { maxItems: options.batchSize ?? 50, lingerMs: options.lingerMs ?? 50 } }
      : {}),
    execute(items, signal) {
      const [first] = items;
      return first?.form === 'rectangle' ? byRectangle(first, signal) : byIds(items, signal);
    },
    render(_row, [result]) {
      const answer = answerOf(result);
      if ('failed' in answer) return answer.failed;
      const areas = answer.value;
      if (form === 'osmid') return { ok: true, records: [record(areas[0], 1)] };
      // A rectangle that meets no area is an answer, not a failure: one row that says 0.
      if (areas.length === 0) return { ok: true, records: [record(undefined, 0)] };
      return { ok: true, records: areas.map((area) => record(area, areas.length)) };
    },
  };
}

function notFound(osmid: number): ItemResult<never> {
  const failure: ItemFailure = {
    code: 'NOT_FOUND',
    stage: 'response',
    message: `OSM id ${osmid}: the service has no area with this id`,
  };
  return { ok: false, failure };
}

const options = z.strictObject({
  prefix,
  level: nonNegativeInt.max(20).optional(),
  reduceGeometry: z.number().min(0).max(1).optional(),
  zoom: nonNegativeInt.max(22).optional(),
  countries,
  languages,
  batchSize: positiveInt.max(1000).optional(),
  lingerMs,
  geometryColumn: z.enum(['wkt', 'geojson', 'none']).optional(),
  coordFormat: coordFormatsOption,
});

export const areaExportKind = defineJobKind({
  name: 'area-export',
  summary: 'OSM ids or rectangles -> the areas as polygons',
  mappingFields: ['osmid', ...RECTANGLE_FIELDS],
  mappingRequired: true,
  forms: AREA_FORMS,
  options,
  services: ['area'],
  docs: {
    mapping: 'ids: `osmid`; or rectangles: `west`, `south`, `east`, `north` (all four)',
    options: {
      prefix: '`area_`',
      level: 'required for rectangles; e.g. 6',
      reduceGeometry: 'none, 0 to 1',
      zoom: 'none, 0 to 22',
      countries: 'all; e.g. [DE, AT]',
      languages: 'all; e.g. [de, en]',
      batchSize: '50 ids a request, at most 1000',
      lingerMs: '50',
      geometryColumn: '`wkt` \\| `geojson` \\| `none`',
      coordFormat: COORD_FORMATS_DOC,
    },
  },
  checkFile({ mapping, options: o }) {
    const choice = areaForm(mapping, o);
    return 'issue' in choice ? choice.issue : undefined;
  },
  constants(_options, mapping) {
    const choice = chooseForm(AREA_FORMS, mapping, undefined);
    if ('issue' in choice) return [];
    return choice.form === 'osmid' ? [{ keys: ['osmid'], read: osmidOf }] : RECTANGLE_CONSTANTS;
  },
  // A rectangle gives one row per area it touches.
  multipleRecords: (_options, mapping) => !('osmid' in mapping),
  coordinates(options) {
    const formats = coordFormats(options.coordFormat);
    const prefix = options.prefix ?? 'area_';
    return {
      reads: [
        readsIn(
          [
            ['west', 'south'],
            ['east', 'north'],
          ],
          formats.input,
          'coordFormat.input',
        ),
      ],
      // The bounding box's columns; the geometry column's WKT is in the format too, but is no point.
      writes: {
        columns: ['west', 'south', 'east', 'north'].map((side) => `${prefix}${side}`),
        format: formats.output,
        option: 'coordFormat.output',
      },
    };
  },
  create: ({ client, mapping, options: o, points }) => createAreaExportJob(client, { mapping, ...o, points }),
});

/**
 * BKG VG5000 boundaries at the three levels the area interface numbers for Germany:
 * 2 = country, 4 = states (Länder), 6 = districts (Kreise).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Flatbush from 'flatbush';
import type { MultiPolygon, Polygon } from 'geojson';
import type { AreaProperties } from '../../contract/index.js';
import type { BBox } from '../lib/_geo.js';
import { boxOfPositions } from '../lib/_geo.js';
import { PolygonIndex, ringsOf } from '../lib/_polygon-index.js';

export type AreaGeometry = Polygon | MultiPolygon;

export interface Area {
  properties: AreaProperties;
  geometry: AreaGeometry;
  bbox: BBox;
  /** The whole feature, serialized once: most answers are concatenations of these. */
  json: string;
}

export interface AreaLevel {
  level: number;
  /** Sorted by key (ARS), so that "lowest key wins" is "first covering area wins". */
  areas: readonly Area[];
  /** Bounding boxes of `areas`, same order. */
  index: Flatbush;
}

export interface BoundaryData {
  levels: ReadonlyMap<number, AreaLevel>;
  byOsmid: ReadonlyMap<number, Area>;
  stateNames: ReadonlyMap<string, string>;
  districtNames: ReadonlyMap<string, string>;
  /** Germany's land area, for "is this point in Germany" at many points per request. */
  country: PolygonIndex;
}

const FILES = [
  { level: 2, file: 'de_country_vg5000_2021.geojson' },
  { level: 4, file: 'de_states_vg5000_2021.geojson' },
  { level: 6, file: 'de_districts_vg5000_2021.geojson' },
] as const;

interface SourceFeature {
  properties: Record<string, string>;
  geometry: AreaGeometry;
}

/**
 * EMULATOR CHOICE: the data carry no OpenStreetMap ids, so each area gets a synthetic, stable one:
 * level × 10,000,000 + its ARS read as a 5-digit number (state "08" -> 08000).
 */
export function syntheticOsmid(level: number, ars: string): number {
  return level * 10_000_000 + Number(ars.padEnd(5, '0'));
}

export function loadBoundaries(dir: string): BoundaryData {
  const levels = new Map<number, AreaLevel>();
  const byOsmid = new Map<number, Area>();
  let country: PolygonIndex | undefined;
  for (const { level, file } of FILES) {
    const source = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { features: SourceFeature[] };
    const areas = source.features.map((f) => toArea(level, f)).sort((a, b) => compareKeys(a, b));
    const index = new Flatbush(Math.max(1, areas.length));
    for (const a of areas) index.add(...a.bbox);
    index.finish();
    levels.set(level, { level, areas, index });
    for (const a of areas) byOsmid.set(a.properties.osmid, a);
    if (level === 2 && areas[0]) country = new PolygonIndex(ringsOf(areas[0].geometry));
  }
  if (!country) throw new Error('The country boundary file holds no feature');
  const names = (level: number) =>
    new Map((levels.get(level)?.areas ?? []).map((a) => [a.properties.key, a.properties.name]));
  return { levels, byOsmid, stateNames: names(4), districtNames: names(6), country };
}

function compareKeys(a: Area, b: Area): number {
  return a.properties.key < b.properties.key ? -1 : a.properties.key > b.properties.key ? 1 : 0;
}

function toArea(level: number, feature: SourceFeature): Area {
  const p = feature.properties;
  const key = p.ars ?? '';
  const name = p.name ?? '';
  const properties: AreaProperties = {
    osmid: syntheticOsmid(level, key),
    level,
    name,
    names: { de: name },
    isoCountry: 'DE',
    iso3166_2: level === 4 ? (p.iso3166_2 ?? null) : null,
    key,
    kind: p.bez ?? (level === 2 ? 'Staat' : null),
    postalCode: null,
  };
  const bbox = boxOfPositions(ringsOf(feature.geometry).flat()) ?? [0, 0, 0, 0];
  return {
    properties,
    geometry: feature.geometry,
    bbox,
    json: featureJson(properties, feature.geometry, bbox),
  };
}

export function featureJson(properties: AreaProperties, geometry: AreaGeometry, bbox: BBox): string {
  return JSON.stringify({ type: 'Feature', bbox, geometry, properties });
}

/** GeoNames cities1000 for Germany: names, population and DEM elevation of 7,244 places. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCsv } from '../lib/_csv.js';
import { PointIndex } from '../lib/_point-index.js';

export interface Place {
  geonameId: number;
  name: string;
  featureCode: string;
  stateArs: string;
  stateIso: string;
  districtArs: string;
  /** Official municipality key (AGS); places of one municipality share it. */
  municipalityAgs: string;
  population: number;
  /** Metres; null where the source has none. */
  elevation: number | null;
  lat: number;
  lon: number;
}

export interface PlacesData {
  places: readonly Place[];
  index: PointIndex;
}

/** GeoNames names this one German city by its English exonym; every other name is German. */
const GERMAN_NAMES: Readonly<Record<number, string>> = { 2867714: 'München' };

export function loadPlaces(dir: string): PlacesData {
  const text = readFileSync(join(dir, 'de_places_geonames_cities1000.csv'), 'utf8');
  const records = parseCsv(text);
  const places = records.map(
    (r): Place => ({
      geonameId: Number(r.geonameid),
      name: GERMAN_NAMES[Number(r.geonameid)] ?? r.name ?? '',
      featureCode: r.feature_code ?? '',
      stateArs: r.state_ars ?? '',
      stateIso: r.state_iso3166_2 ?? '',
      districtArs: r.district_ars ?? '',
      municipalityAgs: r.municipality_ags ?? '',
      population: Number(r.population) || 0,
      elevation:
        r.elevation_dem_m === undefined || r.elevation_dem_m === '' ? null : Number(r.elevation_dem_m),
      lat: Number(r.latitude),
      lon: Number(r.longitude),
    }),
  );
  return { places, index: new PointIndex(places) };
}

/** Loads every data set once per process; every emulator started in it shares the result. */

import { dataDir } from './_dir.js';
import type { BoundaryData } from './boundaries.js';
import { loadBoundaries } from './boundaries.js';
import { Locator } from './locator.js';
import type { PlacesData } from './places.js';
import { loadPlaces } from './places.js';
import type { PostalData } from './postal.js';
import { loadPostal } from './postal.js';
import type { SrtmTile } from './srtm.js';
import { loadSrtm } from './srtm.js';

export interface Datasets {
  postal: PostalData;
  places: PlacesData;
  boundaries: BoundaryData;
  srtm: SrtmTile;
  locator: Locator;
}

let loading: Promise<Datasets> | undefined;

export function loadDatasets(): Promise<Datasets> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function load(): Promise<Datasets> {
  const dir = dataDir();
  const [postal, places, boundaries, srtm] = await Promise.all([
    loadPostal(dir),
    loadPlaces(dir),
    loadBoundaries(dir),
    loadSrtm(dir),
  ]);
  return { postal, places, boundaries, srtm, locator: new Locator(postal, places) };
}

const derived = new WeakMap<Datasets, Map<string, unknown>>();

/**
 * An index built from the data sets, once per process: every emulator started in the process
 * shares it (tests start dozens), and the data never change while running.
 */
export function derive<T>(data: Datasets, name: string, build: (data: Datasets) => T): T {
  const map = derived.get(data) ?? new Map<string, unknown>();
  derived.set(data, map);
  if (!map.has(name)) map.set(name, build(data));
  return map.get(name) as T;
}

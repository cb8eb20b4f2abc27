/**
 * The data sets, each loaded on first use and then kept for the life of the process: every emulator
 * started in it shares them (test files start several). A test that only needs elevation never pays
 * for the address search index; `preload()` builds everything up front (the CLI does).
 */
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

export class Datasets {
  readonly #dir: string;
  #postal?: PostalData;
  #places?: PlacesData;
  #boundaries?: BoundaryData;
  #srtm?: SrtmTile;
  #locator?: Locator;
  readonly #derived = new Map<string, unknown>();

  constructor(dir = dataDir()) {
    this.#dir = dir;
  }

  get postal(): PostalData {
    this.#postal ??= loadPostal(this.#dir);
    return this.#postal;
  }

  get places(): PlacesData {
    this.#places ??= loadPlaces(this.#dir);
    return this.#places;
  }

  get boundaries(): BoundaryData {
    this.#boundaries ??= loadBoundaries(this.#dir);
    return this.#boundaries;
  }

  get srtm(): SrtmTile {
    this.#srtm ??= loadSrtm(this.#dir);
    return this.#srtm;
  }

  get locator(): Locator {
    this.#locator ??= new Locator(this.postal, this.places);
    return this.#locator;
  }

  /** An index built from the data sets once (by `build`, on first use) and kept under `name`. */
  derive<T>(name: string, build: (data: Datasets) => T): T {
    if (!this.#derived.has(name)) this.#derived.set(name, build(this));
    return this.#derived.get(name) as T;
  }
}

let shared: Datasets | undefined;

/** The process-wide data sets (nothing is read until first used). */
export function datasets(): Datasets {
  shared ??= new Datasets();
  return shared;
}

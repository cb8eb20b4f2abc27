/**
 * What every report page carries, read once per process: Leaflet and uPlot as their npm packages
 * ship them (inlined, so the page opens offline), and the country and state outlines the map
 * draws instead of tiles, simplified to about 300 m.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { simplify } from '@turf/simplify';
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import { RunError } from '../errors.js';
import { roundGeometry } from './_fit.js';

export interface ReportAssets {
  readonly leafletJs: string;
  readonly leafletCss: string;
  readonly uplotJs: string;
  readonly uplotCss: string;
  /** Country (`kind: 'country'`) and states (`kind: 'state'`), simplified. */
  readonly outlines: FeatureCollection;
}

/**
 * About 500 m: finer than a pixel at the zoom that shows all Germany, and it halves the outlines.
 * Neighbouring states are simplified apart, so at street zoom their borders may part slightly.
 */
const OUTLINE_TOLERANCE = 0.005;
const OUTLINE_DECIMALS = 4;

let cached: ReportAssets | undefined;

export function loadReportAssets(): ReportAssets {
  cached ??= {
    leafletJs: read('leaflet/dist/leaflet.js'),
    leafletCss: withoutImages(read('leaflet/dist/leaflet.css')),
    uplotJs: read('uplot/dist/uPlot.iife.min.js'),
    uplotCss: read('uplot/dist/uPlot.min.css'),
    outlines: {
      type: 'FeatureCollection',
      features: [
        ...outlines('de_country_vg5000_2021.geojson', 'country'),
        ...outlines('de_states_vg5000_2021.geojson', 'state'),
      ],
    },
  };
  return cached;
}

const require = createRequire(import.meta.url);

function read(specifier: string): string {
  return readFileSync(require.resolve(specifier), 'utf8');
}

/**
 * Leaflet's stylesheet points at its images (layer switcher, default marker) by relative URL. The
 * page uses neither, and a file:// page must not try to load them, so the URLs go.
 */
function withoutImages(css: string): string {
  return css.replace(/url\((?!#)[^)]*\)/g, 'none');
}

function outlines(file: string, kind: 'country' | 'state'): Feature[] {
  const collection = JSON.parse(readFileSync(join(dataDir(), file), 'utf8')) as FeatureCollection;
  return collection.features.flatMap((feature) =>
    feature.geometry === null
      ? []
      : [
          {
            type: 'Feature' as const,
            properties: { kind, name: String(feature.properties?.name ?? '') },
            geometry: roundGeometry(
              simplify(feature.geometry as Geometry, { tolerance: OUTLINE_TOLERANCE }),
              OUTLINE_DECIMALS,
            ),
          },
        ],
  );
}

/** The emulator's data folder, found from this file in src/ (tests) and in dist/ (the built CLI). */
function dataDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new RunError('INTERNAL', `No package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return join(dir, 'src', 'emulator', 'data');
}

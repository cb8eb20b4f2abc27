/**
 * The GeoPackage as GDAL sees it. Sample jobs run against the emulator as a user runs them
 * (runJobFile, `-o x.geojson -o x.gpkg`): one run writes the GeoJSON and the GeoPackage from the
 * same pass; GDAL then reads the GeoPackage (ogrinfo, ogr2ogr, and its validator) and must find the
 * GeoJSON's features: count, attributes, geometries within 1e-9.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Feature, FeatureCollection, Geometry } from 'geojson';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmulatorHandle, startEmulator } from '../../src/emulator/index.js';
import { runJobFile } from '../../src/run/job-file.js';
import { requireTool, run, VALIDATE_GPKG } from './_tools.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PYTHON = '/usr/bin/python3';

/** Every geometry type, with and without elevation, and the attribute types a GeoJSON input can carry. */
function shapesInput(dir: string): string {
  const feature = (properties: object, geometry: Geometry | null) => ({
    type: 'Feature',
    properties,
    geometry,
  });
  const features = [
    feature(
      { id: 'berlin', pop: 3_600_000, share: 0.5, capital: true, code: '01' },
      {
        type: 'Point',
        coordinates: [13.40495, 52.52001],
      },
    ),
    feature(
      { id: 'karlsruhe', pop: 308_000, share: 2, capital: false, code: 7 },
      {
        type: 'Point',
        coordinates: [8.4037, 49.0069, 115.25],
      },
    ),
    feature(
      { id: 'line', pop: 1, share: 0.125 },
      {
        type: 'LineString',
        coordinates: [
          [8.4, 49],
          [8.5, 49.1],
        ],
      },
    ),
    feature(
      { id: 'polygon', pop: 2 },
      {
        type: 'Polygon',
        coordinates: [
          [
            [8, 48],
            [9, 48],
            [9, 49],
            [8, 49],
            [8, 48],
          ],
          [
            [8.2, 48.2],
            [8.4, 48.2],
            [8.4, 48.4],
            [8.2, 48.2],
          ],
        ],
      },
    ),
    feature(
      { id: 'multipolygon' },
      {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [10, 50],
              [11, 50],
              [11, 51],
              [10, 50],
            ],
          ],
          [
            [
              [12, 50],
              [12.5, 50],
              [12.5, 50.5],
              [12, 50],
            ],
          ],
        ],
      },
    ),
    feature(
      { id: 'multipoint' },
      {
        type: 'MultiPoint',
        coordinates: [
          [7, 50],
          [7.1, 50.1],
        ],
      },
    ),
    feature(
      { id: 'multiline' },
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [6, 51],
            [6.1, 51.1],
          ],
          [
            [6.2, 51.2],
            [6.3, 51.3],
          ],
        ],
      },
    ),
    feature(
      { id: 'collection' },
      {
        type: 'GeometryCollection',
        geometries: [
          { type: 'Point', coordinates: [9.1, 48.8] },
          {
            type: 'LineString',
            coordinates: [
              [9, 48],
              [9.2, 48.9],
            ],
          },
        ],
      },
    ),
    feature({ id: 'nothing' }, null),
  ];
  const path = join(dir, 'shapes-input.geojson');
  writeFileSync(path, JSON.stringify({ type: 'FeatureCollection', features }));
  return path;
}

interface Produced {
  readonly geojson: FeatureCollection;
  readonly gpkg: string;
}

let emulator: EmulatorHandle;
let dir: string;
const produced = new Map<string, Promise<Produced>>();

beforeAll(async () => {
  emulator = await startEmulator({ preload: true });
  dir = mkdtempSync(join(tmpdir(), 'geobatch-system-gpkg-'));
});

afterAll(async () => {
  await emulator?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs a sample job (optionally on another input) as a user would, through runJobFile: one run
 * writing its GeoJSON and its GeoPackage from the same pass.
 */
function produce(name: string, job: string, input?: (dir: string) => string): Promise<Produced> {
  const existing = produced.get(name);
  if (existing !== undefined) return existing;
  const made = (async () => {
    const geojson = join(dir, `${name}.geojson`);
    const gpkg = join(dir, `${name}.gpkg`);
    const summary = await runJobFile(join(ROOT, 'jobs', job), {
      emulator,
      input: input?.(dir),
      output: [geojson, gpkg],
      logger: pino({ level: 'silent' }),
    });
    expect(summary.error).toBeNull();
    expect(summary.outputs.map((o) => [o.format, o.written])).toEqual([
      ['geojson', true],
      ['gpkg', true],
    ]);
    expect(summary.outputs[1]?.records).toBe(summary.outputs[0]?.records);
    const text = await readFile(geojson, 'utf8');
    return { geojson: JSON.parse(text) as FeatureCollection, gpkg };
  })();
  produced.set(name, made);
  return made;
}

function requireGdal(): void {
  requireTool('ogrinfo');
  requireTool('ogr2ogr');
  requireTool(PYTHON, ['-c', 'from osgeo_utils.samples import validate_gpkg']);
}

/** Numbers equal within 1e-9, everything else strictly. */
function close(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    expect(Math.abs(actual - expected), `${where}: ${actual} vs ${expected}`).toBeLessThanOrEqual(1e-9);
  } else if (Array.isArray(expected) && Array.isArray(actual)) {
    expect(actual.length, `${where}: length`).toBe(expected.length);
    for (const [i, e] of expected.entries()) close(actual[i], e, `${where}[${i}]`);
  } else if (
    expected !== null &&
    typeof expected === 'object' &&
    actual !== null &&
    typeof actual === 'object'
  ) {
    expect(Object.keys(actual).sort(), `${where}: keys`).toEqual(Object.keys(expected).sort());
    for (const [key, value] of Object.entries(expected))
      close((actual as Record<string, unknown>)[key], value, `${where}.${key}`);
  } else {
    expect(actual, where).toEqual(expected);
  }
}

/** The GeoJSON's properties as a GeoPackage row holds them: every column present, mixed columns as text. */
function asRow(
  properties: Record<string, unknown>,
  columns: readonly string[],
  textColumns: ReadonlySet<string>,
) {
  return Object.fromEntries(
    columns.map((c) => {
      const value = properties[c] ?? null;
      return [c, value !== null && textColumns.has(c) && typeof value !== 'string' ? String(value) : value];
    }),
  );
}

/** What ogrinfo should call each column, by the typing rule stated in _gpkg-columns.ts. */
function expectedFieldTypes(
  features: readonly Feature[],
  columns: readonly string[],
): Record<string, string> {
  return Object.fromEntries(
    columns.map((c) => {
      const kinds = new Set(
        features
          .map((f) => f.properties?.[c])
          .filter((v) => v !== null && v !== undefined)
          .map((v) => (typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'real') : typeof v)),
      );
      const type =
        kinds.size === 0
          ? 'String'
          : [...kinds].every((k) => k === 'integer')
            ? 'Integer64'
            : [...kinds].every((k) => k === 'integer' || k === 'real')
              ? 'Real'
              : kinds.size === 1 && kinds.has('boolean')
                ? 'Integer(Boolean)'
                : 'String';
      return [c, type];
    }),
  );
}

const GDAL_TYPE_NAMES: Readonly<Record<string, string>> = {
  Point: 'Point',
  LineString: 'Line String',
  Polygon: 'Polygon',
  MultiPoint: 'Multi Point',
  MultiLineString: 'Multi Line String',
  MultiPolygon: 'Multi Polygon',
  GeometryCollection: 'Geometry Collection',
};

function positions(geometry: Geometry): number[][] {
  if (geometry.type === 'GeometryCollection') return geometry.geometries.flatMap(positions);
  const found: number[][] = [];
  const visit = (value: unknown): void => {
    if (!Array.isArray(value)) return;
    if (typeof value[0] === 'number') found.push(value as number[]);
    else for (const inner of value) visit(inner);
  };
  visit(geometry.coordinates);
  return found;
}

async function compareWithGdal(name: string, job: string, input?: (dir: string) => string) {
  requireGdal();
  const { geojson, gpkg } = await produce(name, job, input);
  const summary = run('ogrinfo', ['-ro', '-al', '-so', gpkg]);
  const fromGdal = JSON.parse(run('ogr2ogr', ['-f', 'GeoJSON', '/vsistdout/', gpkg])) as FeatureCollection;
  const features = geojson.features;
  expect(features.length).toBeGreaterThan(5);
  expect(summary).toContain(`Feature Count: ${features.length}\n`);

  // Layer geometry type: the one type every geometry has, else Unknown (any).
  const geometries = features.flatMap((f) => (f.geometry === null ? [] : [f.geometry]));
  const types = new Set(geometries.map((g) => g.type));
  const allZ = geometries.every((g) => positions(g).every((p) => p.length === 3));
  const gdalType =
    types.size === 1 ? `${allZ ? '3D ' : ''}${GDAL_TYPE_NAMES[[...types][0] as string]}` : 'Unknown (any)';
  expect(summary).toContain(`Geometry: ${gdalType}\n`);

  // Extent: the box of every position.
  const all = geometries.flatMap(positions);
  const box = [0, 1].flatMap((axis) => [
    Math.min(...all.map((p) => p[axis] as number)),
    Math.max(...all.map((p) => p[axis] as number)),
  ]);
  const extent = /Extent: \(([-\d.]+), ([-\d.]+)\) - \(([-\d.]+), ([-\d.]+)\)/
    .exec(summary)
    ?.slice(1)
    .map(Number);
  expect(extent).toHaveLength(4);
  // ogrinfo prints the extent (from gpkg_contents) with six decimals.
  for (const [i, v] of [box[0], box[2], box[1], box[3]].entries())
    expect(Math.abs((extent?.[i] as number) - (v as number)), `extent[${i}]`).toBeLessThanOrEqual(5.01e-7);

  // Columns and their types.
  const columns =
    fromGdal.features[0] === undefined ? [] : Object.keys(fromGdal.features[0].properties ?? {});
  const fieldTypes = Object.fromEntries(
    [...summary.matchAll(/^(\S[^:\n]*): (\S+(?: \(\S+\))?) \(\d+\.\d+\)$/gm)].map((m) => [m[1], m[2]]),
  );
  const expectedTypes = expectedFieldTypes(features, columns);
  expect(fieldTypes).toEqual(expectedTypes);
  const textColumns = new Set(columns.filter((c) => expectedTypes[c] === 'String'));

  // Feature by feature: attributes and geometry.
  expect(fromGdal.features).toHaveLength(features.length);
  features.forEach((feature, i) => {
    const other = fromGdal.features[i] as Feature;
    close(other.properties, asRow(feature.properties ?? {}, columns, textColumns), `feature ${i} properties`);
    close(other.geometry, feature.geometry, `feature ${i} geometry`);
  });

  expect(validate(gpkg)).toEqual([]);
}

/**
 * GDAL's validator with its extra checks (every value of its column's declared type), warnings
 * as errors. GDAL before 3.7 predates GeoPackage 1.4 and still asks for the update1 and update3
 * R-tree triggers that 1.4 replaced by update5 to update7 (Annex F.3): only that is let through.
 */
function validate(gpkg: string): string[] {
  const result = spawnSync(PYTHON, [VALIDATE_GPKG, '-k', '--extra', '--warning-as-error', gpkg], {
    encoding: 'utf8',
  });
  if (result.status === 0) return [];
  const problems = `${result.stdout}${result.stderr}`.split('\n').filter((line) => line.trim() !== '');
  return problems.filter((line) => !/^Req 75: rtree_.+_update[13] trigger missing$/.test(line));
}

describe('GeoPackage output read by GDAL', () => {
  it('geocode: points for the matched rows, NULL geometry for the failed ones, numeric job columns', async () => {
    await compareWithGdal('geocode', 'geocode.yaml');
  });

  it('matrix: a line per depot and store pair', async () => {
    await compareWithGdal('matrix', 'matrix.yaml');
  });

  it('boundaries on a GeoJSON input: its properties and points carried through', async () => {
    await compareWithGdal('boundaries', 'boundaries.yaml');
  });

  it('every geometry type (with and without elevation) in one GEOMETRY layer; mixed attributes as text', async () => {
    await compareWithGdal('shapes', 'boundaries.yaml', shapesInput);
  });
});

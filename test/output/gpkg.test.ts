import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Geometry } from 'geojson';
import { describe, expect, it } from 'vitest';
import { IoError } from '../../src/errors.js';
import { openGpkgFile } from '../../src/output/_gpkg-file.js';
import { tableName } from '../../src/output/_gpkg-schema.js';
import { createGeojsonWriter } from '../../src/output/geojson.js';
import { type GpkgOptions, openGpkgOutput } from '../../src/output/gpkg.js';
import type { WriterState } from '../../src/output/writer.js';
import type { Outcome } from '../../src/types.js';
import { columnTypes, decodeBlob, openGpkg, rows } from './_gpkg-read.js';
import { failed, memorySink, ok, row, tempDir } from './_outcomes.js';

const base = { jobColumns: ['lat', 'lon'], inputColumns: () => ['name'] };
const point: Geometry = { type: 'Point', coordinates: [8.4, 49.0] };

async function writeGpkg(path: string, outcomes: Outcome[], options: Partial<GpkgOptions> = {}) {
  const { file, writer } = await openGpkgOutput(path, { ...base, ...options });
  for (const outcome of outcomes) writer.write(outcome);
  writer.end();
  await file.commit();
  return writer;
}

function features(path: string) {
  const db = openGpkg(path);
  const table = rows(db, 'SELECT table_name FROM gpkg_contents')[0]?.table_name as string;
  const all = rows(db, `SELECT * FROM "${table}" ORDER BY fid`).map(({ fid, geom, ...properties }) => ({
    fid,
    geometry: geom === null ? null : decodeBlob(geom as Uint8Array).geometry,
    properties,
  }));
  db.close();
  return all;
}

async function geojsonOf(outcomes: Outcome[]) {
  const { sink, text } = memorySink();
  const writer = createGeojsonWriter(sink, base);
  for (const outcome of outcomes) writer.write(outcome);
  writer.end();
  return (JSON.parse(await text()) as GeoJSON.FeatureCollection).features;
}

const mixedOutcomes = (): Outcome[] => [
  ok(row(0, { name: 'input geometry' }, point), { columns: { lat: 49, lon: 8.4 } }),
  ok(row(1, { name: 'job point' }), {
    columns: { lat: 50.5 },
    geometry: { type: 'Point', coordinates: [7, 50.5] },
  }),
  ok(row(2, { name: 'job null' }, point), { columns: {}, geometry: null }),
  ok(row(3, { name: 'no geometry anywhere' }), { columns: {} }),
  failed(row(4, { name: 'failed keeps input' }, point), 4),
  failed(undefined, 5, 'INPUT_MALFORMED'),
  ok(
    row(6, { name: 'two hits' }),
    { columns: { lat: 1.5 }, geometry: { type: 'Point', coordinates: [1, 1.5] } },
    { columns: { lat: 2.5 }, geometry: { type: 'Point', coordinates: [2, 2.5] } },
  ),
];

describe('GeoPackage writer', () => {
  it('writes a GeoPackage 1.4 file: header ids, the core tables, EPSG:4326 and the feature table registered', async () => {
    const path = join(tempDir(), 'places.gpkg');
    await writeGpkg(path, mixedOutcomes());
    const db = openGpkg(path);
    expect(rows(db, 'PRAGMA application_id')[0]?.application_id).toBe(0x47504b47);
    expect(rows(db, 'PRAGMA user_version')[0]?.user_version).toBe(10400);
    expect(rows(db, 'PRAGMA journal_mode')[0]?.journal_mode).toBe('delete');
    expect(rows(db, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    expect(rows(db, 'PRAGMA foreign_key_check')).toEqual([]);
    expect(Object.keys(columnTypes(db, 'gpkg_contents'))).toEqual([
      'table_name',
      'data_type',
      'identifier',
      'description',
      'last_change',
      'min_x',
      'min_y',
      'max_x',
      'max_y',
      'srs_id',
    ]);
    expect(
      rows(
        db,
        'SELECT srs_id, organization, organization_coordsys_id FROM gpkg_spatial_ref_sys ORDER BY srs_id',
      ),
    ).toEqual([
      { srs_id: -1, organization: 'NONE', organization_coordsys_id: -1 },
      { srs_id: 0, organization: 'NONE', organization_coordsys_id: 0 },
      { srs_id: 4326, organization: 'EPSG', organization_coordsys_id: 4326 },
    ]);
    const contents = rows(db, 'SELECT * FROM gpkg_contents')[0];
    expect(contents).toMatchObject({
      table_name: 'places',
      data_type: 'features',
      identifier: 'places',
      srs_id: 4326,
      min_x: 1,
      min_y: 1.5,
      max_x: 8.4,
      max_y: 50.5,
    });
    expect(contents?.last_change).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(rows(db, 'SELECT * FROM gpkg_geometry_columns')).toEqual([
      { table_name: 'places', column_name: 'geom', geometry_type_name: 'POINT', srs_id: 4326, z: 0, m: 0 },
    ]);
    expect(columnTypes(db, 'places')).toMatchObject({ fid: 'INTEGER', geom: 'POINT' });
    db.close();
    // One self-contained file: no temporary file, no write-ahead log beside it.
    expect(readdirSync(join(path, '..'))).toEqual(['places.gpkg']);
  });

  it('holds the features the GeoJSON output holds: same order, attributes and geometry (NULL where none)', async () => {
    const path = join(tempDir(), 'same.gpkg');
    const writer = await writeGpkg(path, mixedOutcomes());
    const expected = await geojsonOf(mixedOutcomes());
    const actual = features(path);
    expect(actual.map((f) => f.fid)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(actual.map((f) => f.geometry)).toEqual(expected.map((f) => f.geometry));
    // A column a record has no value for (the malformed row has no `name`) is NULL.
    expect(actual.map((f) => f.properties)).toEqual(expected.map((f) => ({ name: null, ...f.properties })));
    expect(writer.stats()).toEqual({ records: 8, unknownKeyRows: 0 });
  });

  it('encodes every RFC 7946 geometry type as the binary header followed by ISO WKB', async () => {
    const geometries: Geometry[] = [
      { type: 'Point', coordinates: [1.5, -2.25] },
      {
        type: 'LineString',
        coordinates: [
          [0, 0],
          [3, 4],
        ],
      },
      {
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [4, 0],
            [4, 4],
            [0, 0],
          ],
          [
            [1, 1],
            [2, 1],
            [2, 2],
            [1, 1],
          ],
        ],
      },
      {
        type: 'MultiPoint',
        coordinates: [
          [1, 2],
          [3, 4],
        ],
      },
      {
        type: 'MultiLineString',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
          [
            [2, 2],
            [3, -3],
          ],
        ],
      },
      {
        type: 'MultiPolygon',
        coordinates: [
          [
            [
              [0, 0],
              [1, 0],
              [1, 1],
              [0, 0],
            ],
          ],
          [
            [
              [5, 5],
              [6, 5],
              [6, 6],
              [5, 5],
            ],
          ],
        ],
      },
      {
        type: 'GeometryCollection',
        geometries: [
          { type: 'Point', coordinates: [9, 9] },
          {
            type: 'LineString',
            coordinates: [
              [-1, -1],
              [1, 1],
            ],
          },
        ],
      },
      { type: 'Point', coordinates: [7, 50, 112.5] },
      {
        type: 'LineString',
        coordinates: [
          [7, 50, 100],
          [8, 51],
        ],
      },
      { type: 'MultiPolygon', coordinates: [] },
    ];
    const path = join(tempDir(), 'shapes.gpkg');
    await writeGpkg(
      path,
      geometries.map((g, i) => ok(row(i, { name: g.type }), { columns: {}, geometry: g })),
    );
    const db = openGpkg(path);
    const blobs = rows(db, 'SELECT geom FROM shapes ORDER BY fid').map((r) =>
      decodeBlob(r.geom as Uint8Array),
    );
    for (const blob of blobs) {
      expect(blob).toMatchObject({ magic: 'GP', version: 0, littleEndian: true, srsId: 4326 });
    }
    expect(blobs.map((b) => b.geometry)).toEqual([
      ...geometries.slice(0, 8),
      // A position without elevation in a geometry with elevation gets 0, as GDAL reads GeoJSON.
      {
        type: 'LineString',
        coordinates: [
          [7, 50, 100],
          [8, 51, 0],
        ],
      },
      { type: 'MultiPolygon', coordinates: [] },
    ]);
    // Points carry no envelope; other shapes carry [minx, maxx, miny, maxy]; empty ones none and the empty flag.
    expect(blobs.map((b) => [b.envelopeCode, b.empty])).toEqual([
      [0, false],
      [1, false],
      [1, false],
      [1, false],
      [1, false],
      [1, false],
      [1, false],
      [0, false],
      [1, false],
      [0, true],
    ]);
    expect(blobs[4]?.envelope).toEqual([0, 3, -3, 2]);
    expect(rows(db, 'SELECT geometry_type_name, z FROM gpkg_geometry_columns')).toEqual([
      { geometry_type_name: 'GEOMETRY', z: 2 },
    ]);
    expect(columnTypes(db, 'shapes').geom).toBe('GEOMETRY');
    db.close();
  });

  it('declares one geometry type when every row has it, with Z mandatory when every geometry has Z', async () => {
    const path = join(tempDir(), 'lines.gpkg');
    const line = (z: number): Geometry => ({
      type: 'LineString',
      coordinates: [
        [0, 0, z],
        [1, 1, z],
      ],
    });
    await writeGpkg(path, [
      ok(row(0, { name: 'a' }), { columns: {}, geometry: line(1) }),
      failed(row(1, { name: 'no geometry' }), 1),
      ok(row(2, { name: 'b' }), { columns: {}, geometry: line(2) }),
    ]);
    const db = openGpkg(path);
    expect(rows(db, 'SELECT geometry_type_name, z, m FROM gpkg_geometry_columns')).toEqual([
      { geometry_type_name: 'LINESTRING', z: 1, m: 0 },
    ]);
    expect(columnTypes(db, 'lines').geom).toBe('LINESTRING');
    db.close();
  });

  it('types each column by its values over the whole run; CSV strings stay TEXT; a mixed column becomes TEXT as JSON shows it', async () => {
    const path = join(tempDir(), 'typed.gpkg');
    const jobColumns = ['count', 'score', 'flag', 'mixed', 'bools', 'never'];
    const values = [
      { count: 1, score: 49, flag: true, mixed: 7, bools: false, never: null },
      { count: 2, score: 8.25, flag: false, mixed: 0.5, bools: true, never: null },
      { count: null, score: null, flag: null, mixed: 'seven', bools: 'x', never: null },
    ];
    await writeGpkg(
      path,
      values.map((columns, i) => ok(row(i, { zip: '01234', name: `n${i}` }), { columns })),
      { jobColumns, inputColumns: () => ['zip', 'name'] },
    );
    const db = openGpkg(path);
    expect(columnTypes(db, 'typed')).toEqual({
      fid: 'INTEGER',
      geom: 'GEOMETRY',
      zip: 'TEXT',
      name: 'TEXT',
      count: 'INTEGER',
      score: 'REAL',
      flag: 'BOOLEAN',
      mixed: 'TEXT',
      bools: 'TEXT',
      never: 'TEXT',
      geobatch_status: 'TEXT',
      geobatch_error: 'TEXT',
    });
    expect(
      rows(
        db,
        'SELECT zip, typeof(count) tc, count, typeof(score) ts, score, flag, typeof(mixed) tm, mixed, bools FROM typed ORDER BY fid',
      ),
    ).toEqual([
      {
        zip: '01234',
        tc: 'integer',
        count: 1,
        ts: 'real',
        score: 49,
        flag: 1,
        tm: 'text',
        mixed: '7',
        bools: 'false',
      },
      {
        zip: '01234',
        tc: 'integer',
        count: 2,
        ts: 'real',
        score: 8.25,
        flag: 0,
        tm: 'text',
        mixed: '0.5',
        bools: 'true',
      },
      {
        zip: '01234',
        tc: 'null',
        count: null,
        ts: 'null',
        score: null,
        flag: null,
        tm: 'text',
        mixed: 'seven',
        bools: 'x',
      },
    ]);
    expect(rows(db, 'PRAGMA integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    db.close();
  });

  it('keeps column names unique regardless of case and clear of the key and geometry columns, saying so', async () => {
    const path = join(tempDir(), 'names.gpkg');
    const warnings: string[] = [];
    await writeGpkg(
      path,
      [ok(row(0, { fid: 'f', Name: 'a', name: 'b', '': 'c', geom: 'g' }), { columns: {} })],
      {
        jobColumns: [],
        inputColumns: () => ['fid', 'Name', 'name', '', 'geom'],
        onWarning: (m) => warnings.push(m),
      },
    );
    const db = openGpkg(path);
    expect(Object.keys(columnTypes(db, 'names'))).toEqual([
      'fid_1',
      'geom_1',
      'fid',
      'Name',
      'name_1',
      'field_4',
      'geom',
      'geobatch_status',
      'geobatch_error',
    ]);
    expect(rows(db, 'SELECT fid_1, geom_1, fid, Name, name_1, field_4, geom FROM names')).toEqual([
      { fid_1: 1, geom_1: null, fid: 'f', Name: 'a', name_1: 'b', field_4: 'c', geom: 'g' },
    ]);
    expect(rows(db, 'SELECT column_name FROM gpkg_geometry_columns')).toEqual([{ column_name: 'geom_1' }]);
    db.close();
    expect(warnings).toEqual([
      'Column "name" is named "name_1" in the GeoPackage (names must differ regardless of case)',
      'Column "" is named "field_4" in the GeoPackage (a column needs a name)',
    ]);
  });

  it("keeps geobatch's own status column its name when the input has it in other case", async () => {
    const path = join(tempDir(), 'cased.gpkg');
    const warnings: string[] = [];
    await writeGpkg(path, [ok(row(0, { Geobatch_Status: 'theirs' }), { columns: {} })], {
      jobColumns: [],
      inputColumns: () => ['Geobatch_Status'],
      onWarning: (m) => warnings.push(m),
    });
    const db = openGpkg(path);
    expect(rows(db, 'SELECT Geobatch_Status_1, geobatch_status FROM cased')).toEqual([
      { Geobatch_Status_1: 'theirs', geobatch_status: 'ok' },
    ]);
    db.close();
    expect(warnings).toEqual([
      'Column "Geobatch_Status" is named "Geobatch_Status_1" in the GeoPackage (names must differ regardless of case)',
    ]);
  });

  it("keeps the job's own column its name when the input has it in other case, renaming the input's", async () => {
    const path = join(tempDir(), 'jobcased.gpkg');
    const warnings: string[] = [];
    await writeGpkg(path, [ok(row(0, { Elevation_M: '12' }), { columns: { elevation_m: 596 } })], {
      jobColumns: ['elevation_m'],
      inputColumns: () => ['Elevation_M'],
      onWarning: (m) => warnings.push(m),
    });
    const db = openGpkg(path);
    expect(rows(db, 'SELECT Elevation_M_1, elevation_m FROM jobcased')).toEqual([
      { Elevation_M_1: '12', elevation_m: 596 },
    ]);
    db.close();
    expect(warnings).toEqual([
      'Column "Elevation_M" is named "Elevation_M_1" in the GeoPackage (names must differ regardless of case)',
    ]);
  });

  it("writes geobatch's own columns once when an earlier output or report is fed back", async () => {
    const path = join(tempDir(), 'again.gpkg');
    const warnings: string[] = [];
    const input = ['id', 'geobatch_row', 'city', 'geobatch_status', 'geobatch_error', 'geobatch_message'];
    const earlier = {
      id: '1',
      geobatch_row: '7',
      city: 'Bonn',
      geobatch_status: 'failed',
      geobatch_error: 'NO_MATCH',
      geobatch_message: 'old',
    };
    const writer = await writeGpkg(
      path,
      [ok(row(0, earlier), { columns: { lat: 50.7, lon: 7.1 } }), failed(row(1, { ...earlier, id: '2' }), 1)],
      { inputColumns: () => input, onWarning: (m) => warnings.push(m) },
    );
    const db = openGpkg(path);
    expect(Object.keys(columnTypes(db, 'again'))).toEqual([
      'fid',
      'geom',
      'id',
      'city',
      'lat',
      'lon',
      'geobatch_status',
      'geobatch_error',
    ]);
    expect(
      rows(db, 'SELECT id, city, lat, lon, geobatch_status, geobatch_error FROM again ORDER BY fid'),
    ).toEqual([
      { id: '1', city: 'Bonn', lat: 50.7, lon: 7.1, geobatch_status: 'ok', geobatch_error: '' },
      { id: '2', city: 'Bonn', lat: null, lon: null, geobatch_status: 'failed', geobatch_error: 'NO_MATCH' },
    ]);
    db.close();
    expect(warnings).toEqual([]);
    expect(writer.stats().unknownKeyRows).toBe(0);
  });

  it('never gives a renamed column the name another key has: `name_1` keeps its own', async () => {
    const path = join(tempDir(), 'kept.gpkg');
    const warnings: string[] = [];
    await writeGpkg(
      path,
      [ok(row(0, { Name: 'a', name: 'b', name_1: 'c', fid_1: 'd', fid: 'e' }), { columns: {} })],
      {
        jobColumns: [],
        inputColumns: () => ['Name', 'name', 'name_1', 'fid_1', 'fid'],
        onWarning: (m) => warnings.push(m),
      },
    );
    const db = openGpkg(path);
    expect(rows(db, 'SELECT Name, name_2, name_1, fid_1, fid, fid_2 FROM kept')).toEqual([
      { Name: 'a', name_2: 'b', name_1: 'c', fid_1: 'd', fid: 'e', fid_2: 1 },
    ]);
    db.close();
    expect(warnings).toEqual([
      'Column "name" is named "name_2" in the GeoPackage (names must differ regardless of case)',
    ]);
  });

  it('indexes every non-empty geometry in the R-tree and leaves the 1.4 triggers for later edits', async () => {
    const path = join(tempDir(), 'indexed.gpkg');
    await writeGpkg(path, mixedOutcomes());
    const db = openGpkg(path);
    const index = rows(db, 'SELECT id, minx, maxx, miny, maxy FROM rtree_indexed_geom ORDER BY id');
    expect(index.map((r) => r.id)).toEqual([1, 2, 5, 7, 8]);
    // The R-tree stores 32-bit floats rounded outwards: the box still covers the point.
    const first = index[0] as { minx: number; maxx: number; miny: number; maxy: number };
    expect(first.minx).toBeLessThanOrEqual(8.4);
    expect(first.maxx).toBeGreaterThanOrEqual(8.4);
    expect(first.miny).toBeLessThanOrEqual(49);
    expect(first.maxy).toBeGreaterThanOrEqual(49);
    expect(
      rows(db, "SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name").map((r) => r.name),
    ).toEqual(
      ['delete', 'insert', 'update2', 'update4', 'update5', 'update6', 'update7'].map(
        (s) => `rtree_indexed_geom_${s}`,
      ),
    );
    expect(rows(db, 'SELECT * FROM gpkg_extensions')).toEqual([
      {
        table_name: 'indexed',
        column_name: 'geom',
        extension_name: 'gpkg_rtree_index',
        definition: 'http://www.geopackage.org/spec/#extension_rtree',
        scope: 'write-only',
      },
    ]);
    db.close();
  });

  it('writes a valid empty layer when no row comes', async () => {
    const path = join(tempDir(), 'empty.gpkg');
    const writer = await writeGpkg(path, []);
    const db = openGpkg(path);
    expect(columnTypes(db, 'empty')).toEqual({
      fid: 'INTEGER',
      geom: 'GEOMETRY',
      name: 'TEXT',
      lat: 'TEXT',
      lon: 'TEXT',
      geobatch_status: 'TEXT',
      geobatch_error: 'TEXT',
    });
    expect(rows(db, 'SELECT min_x, max_y FROM gpkg_contents')).toEqual([{ min_x: null, max_y: null }]);
    db.close();
    expect(writer.stats().records).toBe(0);
  });

  it('commits rows in transactions of bounded size, visible in the partial file before the end', async () => {
    const dir = tempDir();
    const { file, writer } = await openGpkgOutput(join(dir, 'batches.gpkg'), {
      ...base,
      transactionRows: 10,
    });
    for (let i = 0; i < 25; i++) writer.write(ok(row(i, { name: `n${i}` }, point), { columns: {} }));
    const reader = openGpkg(file.path);
    expect(rows(reader, 'SELECT count(*) AS n FROM batches')).toEqual([{ n: 20 }]);
    writer.flush();
    expect(rows(reader, 'SELECT count(*) AS n FROM batches')).toEqual([{ n: 25 }]);
    reader.close();
    expect(existsSync(join(dir, 'batches.gpkg'))).toBe(false);
    await file.close();
  });

  it('resumes from a checkpoint: rows written after it are dropped and the file equals an uninterrupted one', async () => {
    const outcomes = Array.from({ length: 30 }, (_, i) =>
      i % 7 === 3
        ? failed(row(i, { name: `n${i}` }), i)
        : ok(row(i, { name: `n${i}` }), {
            columns: { lat: i % 5 === 0 ? 'text later' : i + 0.5, lon: i },
            geometry: { type: 'Point', coordinates: [i, -i] },
          }),
    );
    const dir = tempDir();
    const whole = join(dir, 'whole.gpkg');
    await writeGpkg(whole, outcomes, { table: 'layer' });

    const path = join(dir, 'resumed.gpkg');
    const first = await openGpkgOutput(path, { ...base, table: 'layer', transactionRows: 4 });
    for (const outcome of outcomes.slice(0, 12)) first.writer.write(outcome);
    const state: WriterState = JSON.parse(JSON.stringify(first.writer.state()));
    await first.file.sync();
    // Written after the checkpoint, some of it committed: what a kill leaves behind.
    for (const outcome of outcomes.slice(12, 21)) first.writer.write(outcome);
    await first.file.close();

    const second = await openGpkgOutput(path, { ...base, table: 'layer', resume: state });
    expect(second.writer.stats().records).toBe(12);
    for (const outcome of outcomes.slice(12)) second.writer.write(outcome);
    second.writer.end();
    await second.file.commit();
    expect(features(path)).toEqual(features(whole));
    const db = openGpkg(path);
    expect(columnTypes(db, 'layer')).toEqual(columnTypes(openGpkg(whole), 'layer'));
    expect(rows(db, 'SELECT count(*) AS n FROM rtree_layer_geom')).toEqual([{ n: 26 }]);
    db.close();
  });

  it('resumes a file that an interrupted run had already finished but not renamed', async () => {
    const outcomes = [0, 1, 2].map((i) => ok(row(i, { name: `n${i}` }, point), { columns: { lat: i } }));
    const path = join(tempDir(), 'late.gpkg');
    const first = await openGpkgOutput(path, base);
    first.writer.write(outcomes[0] as Outcome);
    const state = first.writer.state();
    first.writer.write(outcomes[1] as Outcome);
    first.writer.end();
    await first.file.close();

    const second = await openGpkgOutput(path, { ...base, resume: state });
    second.writer.write(outcomes[1] as Outcome);
    second.writer.write(outcomes[2] as Outcome);
    second.writer.end();
    await second.file.commit();
    expect(features(path).map((f) => f.properties.name)).toEqual(['n0', 'n1', 'n2']);
    const db = openGpkg(path);
    expect(rows(db, "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'trigger'")).toEqual([{ n: 7 }]);
    db.close();
  });

  it('resumes from a checkpoint taken before the first row, dropping the table created after it', async () => {
    const path = join(tempDir(), 'early.gpkg');
    const first = await openGpkgOutput(path, { ...base, inputColumns: () => ['old'] });
    const state = first.writer.state();
    first.writer.write(ok(row(0, { old: 'x' }, point), { columns: { lat: 1 } }));
    first.writer.flush();
    await first.file.close();

    const second = await openGpkgOutput(path, { ...base, resume: state });
    second.writer.write(ok(row(0, { name: 'y' }, point), { columns: { lat: 2 } }));
    second.writer.end();
    await second.file.commit();
    const db = openGpkg(path);
    expect(Object.keys(columnTypes(db, 'early'))).toContain('name');
    expect(rows(db, 'SELECT name, lat FROM early')).toEqual([{ name: 'y', lat: 2 }]);
    expect(rows(db, 'SELECT count(*) AS n FROM rtree_early_geom')).toEqual([{ n: 1 }]);
    db.close();
  });

  it('refuses to resume when the partial file is gone or shorter than the checkpoint', async () => {
    const dir = tempDir();
    const state = { table: 'gone', layout: undefined, kinds: [], records: 0, unknownKeyRows: 0 };
    const missing = await openGpkgOutput(join(dir, 'gone.gpkg'), { ...base, resume: state }).catch((e) => e);
    expect(missing).toBeInstanceOf(IoError);
    expect(missing).toMatchObject({
      code: 'CHECKPOINT_MISMATCH',
      context: { file: join(dir, 'gone.gpkg.partial'), received: 'no file' },
    });

    const path = join(dir, 'short.gpkg');
    const first = await openGpkgOutput(path, base);
    first.writer.write(ok(row(0, { name: 'only' }), { columns: {} }));
    const saved = { ...first.writer.state(), records: 5 };
    await first.file.close();
    const short = await openGpkgOutput(path, { ...base, resume: saved }).catch((e) => e);
    expect(short).toMatchObject({
      code: 'CHECKPOINT_MISMATCH',
      context: { file: `${path}.partial`, expected: '5 rows', received: '1 rows' },
    });
  });

  it('counts rows with keys outside the columns (taken from the first row) and warns once', async () => {
    const warnings: string[] = [];
    const writer = await writeGpkg(
      join(tempDir(), 'keys.gpkg'),
      [
        ok(row(0, { name: 'a' }), { columns: {} }),
        ok(row(1, { name: 'b', extra: 1 }), { columns: {} }),
        ok(row(2, { name: 'c', other: 2 }), { columns: {} }),
      ],
      { onWarning: (m) => warnings.push(m) },
    );
    expect(writer.stats().unknownKeyRows).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Row 2 has key "extra"');
  });

  it('reports a full disk as an IO_ERROR naming the file', async () => {
    const file = await openGpkgFile(join(tempDir(), 'full.gpkg'), false);
    file.db.exec('PRAGMA max_page_count = 8; CREATE TABLE t (x BLOB)');
    const error = (() => {
      try {
        file.guard('Writing', () => {
          for (let i = 0; i < 100; i++) file.db.prepare('INSERT INTO t VALUES (?)').run(new Uint8Array(4096));
        });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(IoError);
    expect(error).toMatchObject({
      code: 'IO_ERROR',
      message: `Writing ${file.path} failed: the disk is full`,
      context: { file: file.path },
    });
    await file.close();
  });

  it('holds 2000 columns, SQLite’s limit, and refuses one more as USAGE naming the limit and the count, not as a disk error', async () => {
    // fid, geom, the job's lat and lon, the status pair: 6 besides the input's.
    const wide = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
    const fits = join(tempDir(), 'fits.gpkg');
    await writeGpkg(fits, [ok(row(0, { c0: 'a' }, point), { columns: { lat: 49 } })], {
      inputColumns: () => wide(1994),
    });
    const db = openGpkg(fits);
    expect(Object.keys(columnTypes(db, 'fits'))).toHaveLength(2000);
    db.close();
    const path = join(tempDir(), 'wide.gpkg');
    const { file, writer } = await openGpkgOutput(path, { ...base, inputColumns: () => wide(1995) });
    let error: unknown;
    try {
      writer.write(ok(row(0, { c0: 'a' }, point), { columns: { lat: 49 } }));
    } catch (caught) {
      error = caught;
    }
    await file.close();
    expect(error).toMatchObject({
      code: 'USAGE',
      message: `The GeoPackage ${path} would have 2001 columns (fid, geom, 1995 of the input, 4 geobatch adds), more than the 2000 an SQLite table holds`,
      context: { file: path, expected: 'at most 2000 columns', received: '2001 columns' },
    });
  });

  it('cannot write to standard output', async () => {
    await expect(openGpkgOutput('-', base)).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('names the layer after the file, as a table name every GIS program accepts', () => {
    expect(tableName('out/places.boundaries.gpkg')).toBe('places_boundaries');
    expect(tableName('Orte Böblingen.GPKG')).toBe('Orte_Böblingen');
    expect(tableName('2024-run.gpkg')).toBe('layer_2024_run');
    expect(tableName('gpkg_things.gpkg')).toBe('layer_gpkg_things');
  });
});

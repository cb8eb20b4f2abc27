/**
 * A GeoPackage output over an existing .gpkg: geobatch writes a whole file, so a GeoPackage there
 * holding other layers (a QGIS project's) is refused before anything is read or sent, left as it
 * was; its own earlier output is replaced, by a nightly run and by a resumed one.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { isGeobatchError } from '../../src/errors.js';
import { otherLayers } from '../../src/output/_gpkg-layers.js';
import { CORE_TABLES } from '../../src/output/_gpkg-schema.js';
import { partialPath } from '../../src/output/_sink.js';
import { checkPlaces } from '../../src/run/_checks.js';
import { journalPath } from '../../src/run/checkpoint.js';
import { lockPath } from '../../src/run/lock.js';
import { type RunSpec, runJob } from '../../src/run/run.js';
import { type FakeJobOptions, fakeJob } from '../engine/_fake.js';
import { caught, geojsonInput, memoryLogger, tempDir, write } from '../fixtures/run-helpers.js';
import { openGpkg, rows } from './_gpkg-read.js';

/** A run of the fake job over `count` features in `dir`/in.geojson, to `dir`/project.gpkg. */
function specOf(dir: string, count: number, spec: Partial<RunSpec> = {}, job: FakeJobOptions = {}) {
  const input = join(dir, 'in.geojson');
  // Written only when it changes: a resume checks the input's size and time.
  if (!existsSync(input) || readFileSync(input, 'utf8') !== geojsonInput(count))
    write(input, geojsonInput(count));
  const fake = fakeJob(job);
  const full: RunSpec = {
    job: fake,
    jobFingerprint: 'fake:v1',
    input: { path: join(dir, 'in.geojson'), format: 'geojson' },
    output: { path: join(dir, 'project.gpkg'), format: 'gpkg' },
    report: { path: join(dir, 'project.errors.csv'), format: 'csv' },
    runReport: null,
    logger: memoryLogger().logger,
    progress: { enabled: false },
    checkpoint: { intervalMs: 10 },
    ...spec,
  };
  return { spec: full, fake };
}

/** Adds layers to the GeoPackage at `path` as ogr2ogr -update would register them (creating the file's core tables if new). */
function addLayers(path: string, layers: readonly string[]): void {
  const db = new DatabaseSync(path);
  try {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'gpkg_contents'").get() !== undefined;
    if (!exists) db.exec(`PRAGMA application_id = 1196444487; PRAGMA user_version = 10400;${CORE_TABLES}`);
    for (const layer of layers) {
      db.exec(`CREATE TABLE "${layer}" (fid INTEGER PRIMARY KEY AUTOINCREMENT, geom POLYGON, name TEXT)`);
      db.prepare(
        "INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (?, 'features', ?, 4326)",
      ).run(layer, layer);
      db.prepare("INSERT INTO gpkg_geometry_columns VALUES (?, 'geom', 'POLYGON', 4326, 0, 0)").run(layer);
    }
  } finally {
    db.close();
  }
}

/** The layers gpkg_contents lists, in its order. */
function layersOf(path: string): string[] {
  const db = openGpkg(path);
  try {
    return rows(db, 'SELECT table_name FROM gpkg_contents ORDER BY rowid').map((r) => String(r.table_name));
  } finally {
    db.close();
  }
}

function featureCount(path: string): number {
  const db = openGpkg(path);
  try {
    return Number(rows(db, 'SELECT count(*) AS n FROM "project"')[0]?.n);
  } finally {
    db.close();
  }
}

describe('runJob: a GeoPackage output over an existing .gpkg', () => {
  it('refuses a GeoPackage holding other layers (USAGE) before any request, naming the file, the layers and what to do, and leaves it byte for byte', async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    addLayers(target, ['parcels', 'roads']);
    const before = readFileSync(target);
    const { spec, fake } = specOf(dir, 20);
    const error = await caught(runJob(spec));
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(error.message).toBe(
      `The output ${target} is a GeoPackage holding 2 other layers (parcels, roads): writing it would replace the whole file and lose them`,
    );
    expect(error.context).toEqual({
      file: target,
      field: 'output',
      expected: 'a new file, or a GeoPackage holding only the layer project geobatch writes',
      received: '2 other layers: parcels, roads',
      hint: `geobatch writes a whole GeoPackage, not a layer into one: name another file for the output (-o, or the job file's output:), or move or delete ${target} first.`,
    });
    expect(fake.calls).toHaveLength(0);
    expect(readFileSync(target).equals(before)).toBe(true);
    for (const file of [partialPath(target), lockPath(target), journalPath(target)])
      expect(existsSync(file), file).toBe(false);
  });

  it("refuses geobatch's own earlier output once another layer was added to it, naming a few of many", async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    expect((await runJob(specOf(dir, 5).spec)).outputs[0]?.written).toBe(true);
    addLayers(target, ['a1', 'a2', 'a3', 'a4', 'a5']);
    const before = readFileSync(target);
    const { spec, fake } = specOf(dir, 5);
    const error = await caught(runJob(spec));
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(error.context).toMatchObject({
      file: target,
      field: 'output',
      received: '5 other layers: a1, a2, a3 and 2 more',
    });
    expect(fake.calls).toHaveLength(0);
    expect(readFileSync(target).equals(before)).toBe(true);
  });

  it('refuses it in a dry run too, in the same words', async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    addLayers(target, ['parcels']);
    const error = await caught(runJob(specOf(dir, 5, { dryRun: true }).spec));
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(error.message).toBe(
      `The output ${target} is a GeoPackage holding 1 other layer (parcels): writing it would replace the whole file and lose them`,
    );
  });

  it('refuses it for a GeoPackage among several outputs, and in `geobatch validate` (checkPlaces)', async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    addLayers(target, ['parcels']);
    const { spec, fake } = specOf(dir, 5, {
      output: { path: join(dir, 'out.csv'), format: 'csv' },
      moreOutputs: [{ path: target, format: 'gpkg' }],
    });
    expect((await caught(runJob(spec))).context).toMatchObject({
      file: target,
      received: '1 other layer: parcels',
    });
    expect(fake.calls).toHaveLength(0);
    expect((await caught(checkPlaces(spec))).context).toMatchObject({ file: target, field: 'output' });
  });

  it("overwrites geobatch's own earlier output, as a nightly run does", async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    await runJob(specOf(dir, 5).spec);
    expect(featureCount(target)).toBe(5);
    const second = await runJob(specOf(dir, 8).spec);
    expect(second.outputs[0]).toMatchObject({ written: true, records: 8 });
    expect(layersOf(target)).toEqual(['project']);
    expect(featureCount(target)).toBe(8);
  });

  it("refuses geobatch's own earlier output once a QGIS project was saved into it (qgis_projects, no layer)", async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    await runJob(specOf(dir, 5).spec);
    const db = new DatabaseSync(target);
    db.exec(
      "CREATE TABLE qgis_projects (name TEXT PRIMARY KEY, metadata BLOB, content BLOB); INSERT INTO qgis_projects VALUES ('myproject', NULL, NULL)",
    );
    db.close();
    // Its own tables (the GeoPackage's, the layer's R-tree) are not counted; the project is.
    expect(otherLayers(target, 'project')).toEqual(['qgis_projects']);
    // So is a table of the user's that only looks like an R-tree, and a view.
    const notes = join(dir, 'notes.gpkg');
    writeFileSync(notes, readFileSync(target));
    const more = new DatabaseSync(notes);
    more.exec(
      'DROP TABLE qgis_projects; CREATE TABLE rtree_notes (id INTEGER PRIMARY KEY, note TEXT); CREATE VIEW my_view AS SELECT 1',
    );
    more.close();
    expect(otherLayers(notes, 'project')).toEqual(['rtree_notes', 'my_view']);
    // Another layer's R-tree goes with its layer, not named apart.
    addLayers(notes, ['roads']);
    const rtree = new DatabaseSync(notes);
    rtree.exec('CREATE VIRTUAL TABLE rtree_roads_geom USING rtree(id, minx, maxx, miny, maxy)');
    rtree.close();
    expect(otherLayers(notes, 'project')).toEqual(['roads', 'rtree_notes', 'my_view']);
    const before = readFileSync(target);
    const error = await caught(runJob(specOf(dir, 8).spec));
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect(isGeobatchError(error) && error.context).toMatchObject({
      file: target,
      received: '1 other layer: qgis_projects',
    });
    expect(readFileSync(target).equals(before)).toBe(true);
  });

  it('replaces a file at the path that is no GeoPackage (text, an SQLite database without gpkg_contents), as before', async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    writeFileSync(target, 'not a database\n');
    expect(otherLayers(target, 'project')).toEqual([]);
    expect((await runJob(specOf(dir, 3).spec)).outputs[0]?.written).toBe(true);
    expect(featureCount(target)).toBe(3);
    const plain = join(dir, 'plain.gpkg');
    const db = new DatabaseSync(plain);
    db.exec('CREATE TABLE t (x)');
    db.close();
    expect(otherLayers(plain, 'plain')).toEqual([]);
  });

  it('takes a layer named as geobatch names it, in other letter case, for its own (SQLite folds ASCII case)', () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    addLayers(target, ['Project', 'roads']);
    expect(otherLayers(target, 'project')).toEqual(['roads']);
  });

  it("resumes an interrupted run over its own earlier output, and refuses the resume once other layers are there, with the checkpoint's hint", async () => {
    const dir = tempDir();
    const target = join(dir, 'project.gpkg');
    await runJob(specOf(dir, 5).spec);
    const controller = new AbortController();
    const first = specOf(
      dir,
      300,
      { signal: controller.signal, engine: { window: 32, concurrency: 4 } },
      {
        delay: () => 1,
        onExecute: () => {
          if (first.fake.executedRows.size >= 60) controller.abort();
        },
      },
    );
    expect((await runJob(first.spec)).ended).toBe('stopped');
    expect(existsSync(partialPath(target))).toBe(true);
    expect(featureCount(target)).toBe(5);

    const copy = join(dir, 'copy');
    writeFileSync(copy, readFileSync(target));
    addLayers(target, ['roads']);
    const refused = await caught(runJob(specOf(dir, 300, { resume: true }).spec));
    expect(isGeobatchError(refused) && refused.code).toBe('USAGE');
    expect(refused.context).toMatchObject({ file: target, received: '1 other layer: roads' });
    expect(refused.context.hint).toBe(
      `Move ${target} away, then run again with --resume: the checkpoint ${journalPath(target)} continues the files at these paths, so another path would not resume it.`,
    );
    expect(existsSync(partialPath(target))).toBe(true);

    writeFileSync(target, readFileSync(copy));
    const resumed = specOf(dir, 300, { resume: true });
    const summary = await runJob(resumed.spec);
    expect(summary).toMatchObject({ resume: { resumed: true } });
    expect(Math.min(...resumed.fake.executedRows)).toBeGreaterThan(0);
    expect(summary.outputs[0]).toMatchObject({ written: true, records: 300 });
    expect(layersOf(target)).toEqual(['project']);
    expect(featureCount(target)).toBe(300);
  });
});

/**
 * The SQL of a GeoPackage 1.4 with one feature table: the core tables (Annex C of the standard),
 * the feature table, and its R-tree spatial index (Annex F.3, the 1.4 trigger set).
 */
import { basename } from 'node:path';
import type { GpkgLayout } from './_gpkg-columns.js';
import { WGS84_SRS_ID } from './_gpkg-geometry.js';

/** "GPKG" in ASCII: what marks an SQLite file as a GeoPackage. */
export const APPLICATION_ID = 0x47504b47;
/** GeoPackage 1.4.0. */
export const USER_VERSION = 10400;

/** EPSG:4326 in WKT 1, as GDAL writes it into gpkg_spatial_ref_sys. */
const WGS84_WKT =
  'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],' +
  'AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],' +
  'UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],' +
  'AUTHORITY["EPSG","4326"]]';

export const CORE_TABLES = `
CREATE TABLE gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL,
  srs_id INTEGER PRIMARY KEY,
  organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL,
  definition TEXT NOT NULL,
  description TEXT
);
CREATE TABLE gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY,
  data_type TEXT NOT NULL,
  identifier TEXT UNIQUE,
  description TEXT DEFAULT '',
  last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE,
  min_y DOUBLE,
  max_x DOUBLE,
  max_y DOUBLE,
  srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id)
);
CREATE TABLE gpkg_geometry_columns (
  table_name TEXT NOT NULL,
  column_name TEXT NOT NULL,
  geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL,
  z TINYINT NOT NULL,
  m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT uk_gc_table_name UNIQUE (table_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id)
);
CREATE TABLE gpkg_extensions (
  table_name TEXT,
  column_name TEXT,
  extension_name TEXT NOT NULL,
  definition TEXT NOT NULL,
  scope TEXT NOT NULL,
  CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name)
);
INSERT INTO gpkg_spatial_ref_sys VALUES
  ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
  ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
  ('WGS 84 geodetic', ${WGS84_SRS_ID}, 'EPSG', 4326, '${WGS84_WKT}',
   'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
`;

export function quoteId(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The feature table. While rows are written, attribute columns are declared BLOB (no type
 * affinity, so every value is stored exactly as bound) and the geometry GEOMETRY; once the last
 * row is in, `types` gives the declared types the values turned out to have.
 */
export function featureTableSql(
  table: string,
  layout: GpkgLayout,
  types?: { readonly geometry: string; readonly columns: readonly string[] },
): string {
  const columns = layout.names.map((name, i) => `${quoteId(name)} ${types?.columns[i] ?? 'BLOB'}`);
  return (
    `CREATE TABLE ${quoteId(table)} (${quoteId(layout.fid)} INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, ` +
    `${quoteId(layout.geom)} ${types?.geometry ?? 'GEOMETRY'}${columns.map((c) => `, ${c}`).join('')})`
  );
}

/** Registers the table and its geometry column; the type, Z flag and extent are settled at the end. */
export function registerTableSql(table: string, layout: GpkgLayout): string {
  const t = literal(table);
  const g = literal(layout.geom);
  return `
INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES (${t}, 'features', ${t}, ${WGS84_SRS_ID});
INSERT INTO gpkg_geometry_columns VALUES (${t}, ${g}, 'GEOMETRY', ${WGS84_SRS_ID}, 2, 0);
INSERT INTO gpkg_extensions VALUES
  (${t}, ${g}, 'gpkg_rtree_index', 'http://www.geopackage.org/spec/#extension_rtree', 'write-only');
CREATE VIRTUAL TABLE ${quoteId(rtreeName(table, layout))} USING rtree(id, minx, maxx, miny, maxy);
`;
}

/** Removes the table and everything registered for it (a resumed run that had not written a row yet). */
export function dropTableSql(table: string, geom: string | undefined): string {
  const t = literal(table);
  return `
DROP TABLE IF EXISTS ${quoteId(table)};
${geom === undefined ? '' : `DROP TABLE IF EXISTS ${quoteId(`rtree_${table}_${geom}`)};`}
DELETE FROM gpkg_extensions WHERE table_name = ${t};
DELETE FROM gpkg_geometry_columns WHERE table_name = ${t};
DELETE FROM gpkg_contents WHERE table_name = ${t};
`;
}

export function rtreeName(table: string, layout: Pick<GpkgLayout, 'geom'>): string {
  return `rtree_${table}_${layout.geom}`;
}

const TRIGGERS = ['insert', 'update2', 'update4', 'update5', 'update6', 'update7', 'delete'] as const;

/**
 * The triggers that keep the index right when another program edits the table. They call
 * ST_IsEmpty and ST_MinX..., which readers such as GDAL provide, so they are created only at the
 * end: the rows this writer inserts go into the index directly.
 */
export function triggersSql(table: string, layout: GpkgLayout): string {
  const t = quoteId(table);
  const c = quoteId(layout.geom);
  const i = quoteId(layout.fid);
  const r = quoteId(rtreeName(table, layout));
  const name = (suffix: string) => quoteId(`${rtreeName(table, layout)}_${suffix}`);
  const box = (row: string) =>
    `${row}.${i}, ST_MinX(${row}.${c}), ST_MaxX(${row}.${c}), ST_MinY(${row}.${c}), ST_MaxY(${row}.${c})`;
  const filled = (row: string) => `(${row}.${c} NOTNULL AND NOT ST_IsEmpty(${row}.${c}))`;
  const unfilled = (row: string) => `(${row}.${c} ISNULL OR ST_IsEmpty(${row}.${c}))`;
  return `
CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${t} WHEN ${filled('NEW')}
BEGIN INSERT OR REPLACE INTO ${r} VALUES (${box('NEW')}); END;
CREATE TRIGGER ${name('update2')} AFTER UPDATE OF ${c} ON ${t} WHEN OLD.${i} = NEW.${i} AND ${unfilled('NEW')}
BEGIN DELETE FROM ${r} WHERE id = OLD.${i}; END;
CREATE TRIGGER ${name('update4')} AFTER UPDATE ON ${t} WHEN OLD.${i} != NEW.${i} AND ${unfilled('NEW')}
BEGIN DELETE FROM ${r} WHERE id IN (OLD.${i}, NEW.${i}); END;
CREATE TRIGGER ${name('update5')} AFTER UPDATE ON ${t} WHEN OLD.${i} != NEW.${i} AND ${filled('NEW')}
BEGIN DELETE FROM ${r} WHERE id = OLD.${i}; INSERT OR REPLACE INTO ${r} VALUES (${box('NEW')}); END;
CREATE TRIGGER ${name('update6')} AFTER UPDATE OF ${c} ON ${t}
  WHEN OLD.${i} = NEW.${i} AND ${filled('NEW')} AND ${filled('OLD')}
BEGIN UPDATE ${r} SET minx = ST_MinX(NEW.${c}), maxx = ST_MaxX(NEW.${c}),
  miny = ST_MinY(NEW.${c}), maxy = ST_MaxY(NEW.${c}) WHERE id = NEW.${i}; END;
CREATE TRIGGER ${name('update7')} AFTER UPDATE OF ${c} ON ${t}
  WHEN OLD.${i} = NEW.${i} AND ${filled('NEW')} AND ${unfilled('OLD')}
BEGIN INSERT INTO ${r} VALUES (${box('NEW')}); END;
CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${t} WHEN OLD.${c} NOT NULL
BEGIN DELETE FROM ${r} WHERE id = OLD.${i}; END;
`;
}

export function dropTriggersSql(table: string, layout: GpkgLayout): string {
  return TRIGGERS.map((s) => `DROP TRIGGER IF EXISTS ${quoteId(`${rtreeName(table, layout)}_${s}`)};`).join(
    '\n',
  );
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The layer name from the file name: letters, digits and `_` only, not starting with a digit and
 * not with a prefix the standard reserves, so that every GIS program accepts it as a table name.
 */
export function tableName(target: string): string {
  const stem = basename(target).replace(/\.gpkg$/i, '');
  const name = stem.replace(/[^\p{L}\p{N}_]+/gu, '_').replace(/^_+|_+$/g, '');
  if (name === '' || /^\p{N}/u.test(name) || /^(gpkg|rtree|sqlite)_/i.test(name)) return `layer_${name}`;
  return name;
}

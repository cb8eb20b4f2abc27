/**
 * What happens to the GeoPackage as a whole: started, cut back to a checkpoint, finished. Each step
 * runs in one transaction, so a crash leaves the file as it was before the step or after it.
 */
import { IoError } from '../errors.js';
import { type ColumnKind, declaredType, type GpkgLayout, storedAsText } from './_gpkg-columns.js';
import type { GpkgFile } from './_gpkg-file.js';
import type { EncodedGeometry, Envelope } from './_gpkg-geometry.js';
import {
  APPLICATION_ID,
  CORE_TABLES,
  dropTableSql,
  dropTriggersSql,
  featureTableSql,
  quoteId,
  registerTableSql,
  rtreeName,
  triggersSql,
  USER_VERSION,
} from './_gpkg-schema.js';

/** What the geometries written so far have in common, for gpkg_geometry_columns and gpkg_contents. */
export interface GeometryFacts {
  /** Geometry type names seen (POINT, MULTIPOLYGON...). */
  readonly types: string[];
  withZ: boolean;
  withoutZ: boolean;
  /** Null until a non-empty geometry came. */
  extent: Envelope | null;
}

/** Adds one geometry to the facts. */
export function noteGeometry(facts: GeometryFacts, geometry: EncodedGeometry): void {
  if (!facts.types.includes(geometry.type)) facts.types.push(geometry.type);
  if (geometry.hasZ) facts.withZ = true;
  else facts.withoutZ = true;
  const box = geometry.envelope;
  if (box === null) return;
  facts.extent ??= [...box];
  const extent = facts.extent;
  extent[0] = Math.min(extent[0], box[0]);
  extent[1] = Math.min(extent[1], box[1]);
  extent[2] = Math.max(extent[2], box[2]);
  extent[3] = Math.max(extent[3], box[3]);
}

/** SQL function that turns the numbers or booleans a column held before it became text into text. */
const TEXT_FUNCTION = 'geobatch_text';

export function registerFunctions(file: GpkgFile): void {
  file.db.function(TEXT_FUNCTION, { deterministic: true, useBigIntArguments: true }, (stored, kind) =>
    storedAsText(stored, kind as ColumnKind),
  );
}

export function startFile(file: GpkgFile): void {
  file.guard('Creating', () => {
    file.db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    file.db.exec(`PRAGMA user_version = ${USER_VERSION}`);
    file.db.exec(`BEGIN; ${CORE_TABLES}; COMMIT`);
  });
}

export function createTable(file: GpkgFile, table: string, layout: GpkgLayout): void {
  file.begin();
  file.guard('Writing', () =>
    file.db.exec(`${featureTableSql(table, layout)}; ${registerTableSql(table, layout)}`),
  );
}

/**
 * Cuts the file back to the first `records` rows a checkpoint vouches for, and undoes `finishTable`
 * in case the interrupted run got that far before it stopped.
 */
export function cutBack(
  file: GpkgFile,
  table: string,
  layout: GpkgLayout | undefined,
  records: number,
): void {
  const { db } = file;
  file.guard('Resuming', () => {
    const id = (db.prepare('PRAGMA application_id').get() as { application_id: number }).application_id;
    if (id !== APPLICATION_ID) throw mismatch(file.path, 'a GeoPackage', `application_id ${id}`);
  });
  file.begin();
  file.guard('Resuming', () => {
    if (layout === undefined) {
      const geom = db
        .prepare('SELECT column_name FROM gpkg_geometry_columns WHERE table_name = ?')
        .get(table);
      db.exec(dropTableSql(table, geom?.column_name as string | undefined));
    } else {
      const t = quoteId(table);
      const f = quoteId(layout.fid);
      const kept = db.prepare(`SELECT count(*) AS n FROM ${t} WHERE ${f} <= ?`).get(records)?.n;
      if (kept !== records) throw mismatch(file.path, `${records} rows`, `${String(kept)} rows`);
      db.exec(dropTriggersSql(table, layout));
      rewriteTable(file, table, featureTableSql(table, layout));
      db.prepare(`DELETE FROM ${t} WHERE ${f} > ?`).run(records);
      db.prepare(`DELETE FROM ${quoteId(rtreeName(table, layout))} WHERE id > ?`).run(records);
    }
  });
  file.commitPending();
}

/** Rewrites a column's earlier numbers or booleans as text, once it got a string. */
export function convertToText(file: GpkgFile, table: string, column: string, was: ColumnKind): void {
  const c = quoteId(column);
  file.guard('Writing', () =>
    file.db
      .prepare(
        `UPDATE ${quoteId(table)} SET ${c} = ${TEXT_FUNCTION}(${c}, ?) WHERE typeof(${c}) IN ('integer', 'real')`,
      )
      .run(was),
  );
}

/** Declares the types the columns turned out to have, the geometry type, the extent, and the index triggers. */
export function finishTable(
  file: GpkgFile,
  table: string,
  layout: GpkgLayout,
  kinds: readonly ColumnKind[],
  geometry: GeometryFacts,
): void {
  const geometryType = geometry.types.length === 1 ? (geometry.types[0] as string) : 'GEOMETRY';
  // z: 0 no geometry has Z, 1 every one has, 2 some have.
  const z = geometry.withZ ? (geometry.withoutZ ? 2 : 1) : 0;
  const extent = geometry.extent ?? [null, null, null, null];
  file.begin();
  file.guard('Finishing', () => {
    rewriteTable(
      file,
      table,
      featureTableSql(table, layout, { geometry: geometryType, columns: kinds.map(declaredType) }),
    );
    file.db
      .prepare('UPDATE gpkg_geometry_columns SET geometry_type_name = ?, z = ? WHERE table_name = ?')
      .run(geometryType, z, table);
    file.db
      .prepare(
        'UPDATE gpkg_contents SET min_x = ?, min_y = ?, max_x = ?, max_y = ?, ' +
          "last_change = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE table_name = ?",
      )
      .run(...extent, table);
    file.db.exec(triggersSql(table, layout));
  });
  file.commitPending();
}

/**
 * Replaces a table's CREATE statement: the way SQLite documents for changes that leave the stored
 * rows as they are (https://sqlite.org/lang_altertable.html#otheralter). Only declared types change
 * here, and every value was stored as bound (BLOB affinity) in the type its column ends up with.
 */
function rewriteTable(file: GpkgFile, table: string, sql: string): void {
  const { db } = file;
  const version = (db.prepare('PRAGMA schema_version').get() as { schema_version: number }).schema_version;
  db.exec('PRAGMA writable_schema = ON');
  try {
    db.prepare("UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?").run(sql, table);
    db.exec(`PRAGMA schema_version = ${version + 1}`);
  } finally {
    db.exec('PRAGMA writable_schema = OFF');
  }
}

function mismatch(path: string, expected: string, received: string): IoError {
  return new IoError('CHECKPOINT_MISMATCH', `${path} does not match the checkpoint`, {
    file: path,
    expected,
    received,
    hint: 'The partial output was changed: start over with --resume --restart-if-changed, or delete the checkpoint and run again.',
  });
}

/**
 * A GeoPackage output is a whole file, renamed over its path at the end: a GeoPackage already
 * there that holds other layers (a QGIS project's parcels and roads, added with ogr2ogr -update)
 * lost them without a word. Such a file is refused before anything is read or sent, as ogr2ogr
 * refuses without -overwrite; the run's own earlier output (only the layer it writes, with the
 * R-tree and metadata tables it writes beside it, none of them in gpkg_contents) is replaced.
 */
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { UsageError } from '../errors.js';
import { tableName } from './_gpkg-schema.js';

/** How many of the other layers a refusal names; `received` counts them all. */
const NAMED_LAYERS = 3;

/**
 * The layers the GeoPackage at `path` lists in gpkg_contents other than `layer`, in their order
 * there, then its other tables that are not the GeoPackage's own (a QGIS project's qgis_projects). None for a path that is no file, or no SQLite database with gpkg_contents: such a file is
 * replaced like any output, as before.
 */
export function otherLayers(path: string, layer: string): string[] {
  if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) return [];
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true });
  } catch {
    return [];
  }
  try {
    const rows = db.prepare('SELECT table_name FROM gpkg_contents ORDER BY rowid').all();
    const listed = rows.map((row) => String(row.table_name)).filter((name) => !sameTable(name, layer));
    // Tables that gpkg_contents does not list are content too: QGIS keeps the projects saved into
    // a GeoPackage in qgis_projects, which is no layer. Only the GeoPackage's own tables, SQLite's,
    // the R-trees of its layers and the layer itself are geobatch's to replace.
    // The R-trees of the layers (rtree_<layer>_<column> and its shadow tables) go with them, named
    // by their layer; a user's rtree_notes is a table of its own.
    const rtrees = [layer, ...listed].map((name) => `rtree_${name}_`);
    const unlisted = db
      .prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY rowid")
      .all()
      .map((row) => String(row.name))
      .filter(
        (name) =>
          !/^(gpkg_|gpkgext_|sqlite_)/i.test(name) &&
          !rtrees.some((prefix) => sameTable(name.slice(0, prefix.length), prefix)) &&
          !sameTable(name, layer) &&
          !listed.some((other) => sameTable(other, name)),
      );
    return [...listed, ...unlisted];
  } catch {
    return [];
  } finally {
    db.close();
  }
}

/** SQLite's rule for names: `Places` is the table `places` (ASCII letters only fold). */
function sameTable(a: string, b: string): boolean {
  const fold = (name: string) => name.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
  return fold(a) === fold(b);
}

/** Throws USAGE for the first GeoPackage output whose file holds other layers than its own. */
export function refuseOtherLayers(
  outputs: readonly { readonly path: string; readonly format: string }[],
): void {
  for (const output of outputs) {
    if (output.format !== 'gpkg' || output.path === '-') continue;
    const layer = tableName(output.path);
    const others = otherLayers(output.path, layer);
    if (others.length === 0) continue;
    const named = others.slice(0, NAMED_LAYERS).join(', ');
    const more = others.length > NAMED_LAYERS ? ` and ${others.length - NAMED_LAYERS} more` : '';
    const count = `${others.length} other layer${others.length === 1 ? '' : 's'}`;
    throw new UsageError(
      `The output ${output.path} is a GeoPackage holding ${count} (${named}${more}): writing it would replace the whole file and lose them`,
      {
        file: output.path,
        field: 'output',
        expected: `a new file, or a GeoPackage holding only the layer ${layer} geobatch writes`,
        received: `${count}: ${named}${more}`,
        hint: `geobatch writes a whole GeoPackage, not a layer into one: name another file for the output (-o, or the job file's output:), or move or delete ${output.path} first.`,
      },
    );
  }
}

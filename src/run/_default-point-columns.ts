/**
 * A CSV header without the columns a point is read from by default (lon/lng/longitude/x,
 * lat/latitude/y) where no mapping names others: every row would fail FIELD_MISSING, one line of
 * the error report per row of a file of millions, and the run exit 3 as if some rows were bad.
 * It is refused before any row, as a mapped column the header lacks is (mapped-columns.ts), and
 * a column holding the geometry as text (QGIS's WKT export) is named, as it is the usual cause.
 */
import { ConfigError } from '../errors.js';
import { defaultColumnsIn, shownColumn } from '../jobs/_fields.js';
import type { DefaultPoint } from './_default-points.js';
import { oneColumnHeader } from './_one-column-header.js';

/** What of mapped-columns.ts's MappedColumns this check reads (taken structurally: that module calls this one). */
interface DefaultPointsOf {
  readonly file: string;
  readonly header?: string;
  readonly defaultPoints?: readonly DefaultPoint[];
}

const AXES = {
  lon: 'longitude column (lon, lng, longitude or x)',
  lat: 'latitude column (lat, latitude or y)',
} as const;

/** Names a header gives a geometry written as text (WKT, WKB in hex): QGIS, ogr2ogr, PostGIS exports. */
const GEOMETRY_TEXT = /^(wkt|wkb|geom|geometry|the_geom|wkb_geometry|shape)$/i;

const SHOWN = 12;

/** Throws CONFIG_INVALID for the first default point an axis of which the header has no column for. */
export function checkDefaultPointColumns(mapped: DefaultPointsOf, header: readonly string[]): void {
  // No header at all: an empty input, which the run reports as such (INPUT_EMPTY).
  if (header.length === 0) return;
  // One column holding another delimiter (`id;lat;lon` read with `,`): every row would fail, and
  // validate said valid. The delimiter is what is wrong, and the hint says so.
  const delimiter = oneColumnHeader(header);
  for (const { keys, placed } of mapped.defaultPoints ?? []) {
    // A point an earlier step gives the row is read before the columns; the rows it fails for
    // fail at that step, and a later one reads nothing.
    if (placed === true) continue;
    const absent = keys.filter(({ axis }) => defaultColumnsIn(header, axis).length === 0);
    const [first] = absent;
    if (first === undefined) continue;
    const holder = mapped.header ?? "the input's header";
    const paths = absent.map(({ key }) => key);
    const listed = header.slice(0, SHOWN).map(shownColumn).join(', ');
    const more = header.length > SHOWN ? `, ... (${header.length} columns)` : '';
    const entries = keys.map(({ key }) => `${key.slice(key.lastIndexOf('.') + 1)}: <column>`).join(', ');
    const mapTo = `map the columns that hold them: \`mapping: { ${entries} }\``;
    const geometry = header.find((column) => GEOMETRY_TEXT.test(column.trim()));
    const hint =
      delimiter !== undefined
        ? delimiter
        : geometry === undefined
          ? `${mapTo} (the header has ${listed}${more})`
          : `the header has ${shownColumn(geometry)}, a geometry written as text, which geobatch does not read: export the points' coordinates as columns (QGIS: GEOMETRY=AS_XY) or the layer as GeoJSON; or ${mapTo}`;
    throw new ConfigError(
      `${mapped.file}: ${paths.join(' and ')} ${paths.length === 1 ? 'is' : 'are'} read from a default column, and ${holder} has no ${absent.map(({ axis }) => AXES[axis]).join(' and no ')}: every row would fail`,
      {
        file: mapped.file,
        path: first.key,
        expected: `a ${absent.map(({ axis }) => AXES[axis]).join(' and a ')}, or a mapping to the columns that hold the points`,
        received: `${listed}${more}`,
        hint,
      },
    );
  }
}

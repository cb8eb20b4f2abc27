/**
 * A GeoJSON file's `crs` member, from the 2008 GeoJSON format that RFC 7946 retired. geobatch reads
 * GeoJSON as RFC 7946 has it, longitude and latitude in WGS84, and converts nothing: a file that
 * declares a projected system (an `ogr2ogr` export in UTM, EPSG:25832, the commonest in German
 * data) would otherwise fail every row as "expected a latitude from -90 to 90", with nothing said
 * of why. The member is read from the look-ahead, where exporters write it, before `features`.
 */
import { UsageError } from '../errors.js';

/**
 * Names of systems whose coordinates are longitude and latitude in degrees, as geobatch reads them:
 * as URNs, as `authority:code` (PROJ's `OGC:CRS84`), and as the OGC's http URIs (OGC API, JSON-FG);
 * WGS84 and ETRS89, and their 3D forms (a height after longitude and latitude is left alone).
 */
const DEGREES =
  /^(urn:ogc:def:crs:(ogc:1\.3:|ogc::)?crs84h?|(ogc:)?crs:?84h?|https?:\/\/www\.opengis\.net\/def\/crs\/ogc\/(1\.3|0)\/crs84h?|(urn:ogc:def:crs:)?epsg:(:|[\d.]*:)?(4326|4258|4979|4937)|https?:\/\/www\.opengis\.net\/def\/crs\/epsg\/[\d.]+\/(4326|4258|4979|4937)|wgs ?84)$/i;

/** A `crs` member's properties, as text: `{"type": ..., "properties": {...}}`. */
const CRS_PROPERTIES = /"crs"\s*:\s*\{[^{}]*"properties"\s*:\s*\{([^{}]*)\}/;

/**
 * The system a `crs` member before the features declares, if any, in each of the 2008 format's
 * forms: named (`"name": "EPSG:25832"`), linked (`"href"`, a code read from a spatialreference.org
 * or OGC address where it has one) and the older `"type": "EPSG", "code": 25832`.
 */
export function declaredCrs(head: string): string | undefined {
  const features = head.search(/"features"\s*:/);
  const before = features === -1 ? head : head.slice(0, features);
  const properties = CRS_PROPERTIES.exec(before)?.[1];
  if (properties === undefined) return undefined;
  const name = /"name"\s*:\s*"([^"]+)"/.exec(properties)?.[1];
  if (name !== undefined) return name;
  const code = /"code"\s*:\s*"?(\d+)/.exec(properties)?.[1];
  if (code !== undefined) return `EPSG:${code}`;
  const href = /"href"\s*:\s*"([^"]+)"/.exec(properties)?.[1];
  if (href === undefined) return undefined;
  const linked = /\/epsg\/(?:[\d.]+\/)?(\d+)(?:\/|$)/i.exec(href)?.[1];
  return linked === undefined ? href : `EPSG:${linked}`;
}

/** The system a `crs` member names when geobatch would misread it as longitude and latitude. */
function projected(crs: string | undefined): crs is string {
  return crs !== undefined && !DEGREES.test(crs.trim());
}

/** What the input declares, as a refusal and a warning both say it. */
function declares(path: string, crs: string): string {
  return `The GeoJSON input ${path} declares its coordinates in ${crs}: geobatch reads GeoJSON as longitude and latitude in WGS84 (RFC 7946) and converts nothing`;
}

const CONVERT_HINT =
  'convert the file first, e.g. `ogr2ogr -t_srs EPSG:4326 out.geojson in.geojson`; or, for a CSV input in Gauss-Krueger or Mercator, set `coordFormat`';

/**
 * The warning for a `crs` member written after the features (`tail`: the text from where the
 * features array ends), which the look-ahead does not reach: its rows are read by then (and fail
 * as out of range, or are placed wrong), so the run can only say so once it has read it.
 */
export function crsAfterFeatures(path: string, tail: string): DeclaredCrs | undefined {
  // The last `crs` key, from the `]` before it: the features array's end, or a member's (a bbox)
  // written between them. A member after it (`"bbox": [...]`) does not hide it.
  const key = Math.max(...[...tail.matchAll(/"crs"\s*:/g)].map((m) => m.index), -1);
  if (key === -1) return undefined;
  const crs = declaredCrs(tail.slice(tail.lastIndexOf(']', key) + 1));
  if (!projected(crs)) return undefined;
  const message = `${declares(path, crs)}; its crs member comes after the features, so this was found only once they were read: a row that failed as out of range, or lies in the wrong place, is why; ${CONVERT_HINT}`;
  return { crs, message };
}

/** A system the input declares that geobatch does not read, and the warning that says so. */
export interface DeclaredCrs {
  readonly crs: string;
  readonly message: string;
}

/** Refuses input whose `crs` names a system geobatch would misread as longitude and latitude. */
export function refuseProjectedCrs(path: string, head: string): void {
  const crs = declaredCrs(head);
  if (!projected(crs)) return;
  throw new UsageError(declares(path, crs), {
    file: path,
    field: 'crs',
    expected: 'longitude and latitude in WGS84 (no crs member, or CRS84 / EPSG:4326)',
    received: crs,
    hint: CONVERT_HINT,
  });
}

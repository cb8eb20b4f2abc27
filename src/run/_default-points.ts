/**
 * Points read from default columns (lon/lng/longitude/x, lat/latitude/y) where there is more than
 * one of a kind to read. A CSV input's header says once which columns every row has
 * (mapped-columns.ts warns from it); an NDJSON record, or a GeoJSON feature's
 * properties, has keys of its own, and each row's point is read from its own (src/jobs/_fields.ts):
 * a record holding `lat`, `lon` and `latitude`, `longitude` is read from the first pair, whatever
 * the records before it held. So the records are watched as the run reads them, and each way of
 * being ambiguous is warned of once, at the first row that shows it: a file whose later records
 * gained keys is caught, and a million records alike say it once.
 *
 * A feature with a Point geometry is where it is: its properties are not read for a point the
 * kind takes from the geometry first, and are not watched for it.
 */
import { defaultColumnsIn, shownColumn, singlePoint } from '../jobs/_fields.js';
import type { Row } from '../types.js';

/** A point whose keys (all or one of its pair) are read from default columns. */
export interface DefaultPoint {
  /** The mapping keys read by default, by axis: `steps[1].mapping.lat`. */
  readonly keys: readonly { readonly axis: 'lon' | 'lat'; readonly key: string }[];
  /**
   * A row's Point geometry is read before the default columns (a feature's point is where it is):
   * the columns are read only for a row without one. False for a pair read from them first (a
   * matrix's origin), and for a pair one key of which is mapped, which is read from columns alone.
   */
  readonly geometryFirst: boolean;
  /**
   * An earlier step writes a point, which it gives the row as its geometry (geocode before
   * elevation): read first, so the row needs no column of the input's for it.
   */
  readonly placed?: boolean;
}

/**
 * What is ambiguous when points are read from default columns and `names` (a header, a record's
 * keys) hold more than one longitude or latitude column among them (`lat`, `lon`, `latitude`,
 * `longitude`: a file that went through another tool before): the first name of each list is
 * read, and a user who meant the others would get other places, every row ok. Undefined when
 * nothing is. The words after "<holder> has more than one <noun>".
 */
export function defaultPointAmbiguity(
  points: readonly DefaultPoint[],
  names: readonly string[],
  noun = 'column',
): string | undefined {
  const candidates = { lon: defaultColumnsIn(names, 'lon'), lat: defaultColumnsIn(names, 'lat') };
  // The keys read by default where their axis has more than one column to be read from.
  const ambiguous = points.filter(({ keys }) =>
    keys.some(({ axis }) => candidates[axis].length > 1 && keys.every((k) => candidates[k.axis].length > 0)),
  );
  if (ambiguous.length === 0) return undefined;
  const read = new Set(ambiguous.flatMap(({ keys }) => keys.map(({ axis }) => axis)));
  const axes = (['lon', 'lat'] as const).filter((axis) => read.has(axis));
  const lists = axes
    .filter((axis) => candidates[axis].length > 1)
    .map((axis) => candidates[axis].map(shownColumn).join(', '));
  const columns = axes.map((axis) => shownColumn(candidates[axis][0] as string));
  const keys = ambiguous.map(({ keys }) => keys.map(({ key }) => key).join(' and ')).join(', or ');
  return (
    `${noun} a point is read from by default (${lists.join('; ')}): ` +
    `${columns.join(' and ')} ${columns.length === 1 ? 'is' : 'are'} read; map ${keys} to read ${columns.length === 1 ? 'another' : 'others'}`
  );
}

/** Distinct warnings at most: past them the records are no longer looked at. */
const MOST = 5;

/** Watches rows for default point columns read ambiguously; `warn` is told each new way once. */
export class RecordPoints {
  private readonly told = new Set<string>();
  /** The last row's keys and whether it had a Point geometry: rows alike are not looked at again. */
  private lastKeys: readonly string[] = [];
  private lastPoint: boolean | undefined;
  private readonly withoutPoint: readonly DefaultPoint[];
  private readonly withPoint: readonly DefaultPoint[];

  constructor(
    points: readonly DefaultPoint[],
    private readonly warn: (message: string) => void,
  ) {
    this.withoutPoint = points;
    this.withPoint = points.filter((point) => !point.geometryFirst);
  }

  /** Whether any row can be read ambiguously at all. */
  get watching(): boolean {
    return this.withoutPoint.length > 0 && this.told.size < MOST;
  }

  check(row: Row): void {
    if (!this.watching) return;
    const keys = Object.keys(row.fields);
    const point = singlePoint(row.geometry)?.type === 'Point';
    if (point === this.lastPoint && sameKeys(keys, this.lastKeys)) return;
    this.lastKeys = keys;
    this.lastPoint = point;
    const feature = row.geometry !== undefined;
    const ambiguity = defaultPointAmbiguity(
      point ? this.withPoint : this.withoutPoint,
      keys,
      feature ? 'property' : 'key',
    );
    if (ambiguity === undefined || this.told.has(ambiguity)) return;
    this.told.add(ambiguity);
    const which = !feature
      ? ''
      : row.geometry === null
        ? ' (a feature with no geometry)'
        : ` (a feature whose geometry is a ${row.geometry?.type})`;
    const more = this.told.size === MOST ? '; no more such warnings for this input' : '';
    this.warn(
      `row ${row.ref.index + 1} of the input${which} has more than one ${ambiguity}; later rows like it are read alike, without another warning${more}`,
    );
  }
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Mapped keys that no record of an NDJSON or GeoJSON input has. A CSV header says at once which
 * columns every row has, and a mapping to one it lacks is refused before any row
 * (mapped-columns.ts). Records may each have keys of their own, so a key the first lacks can be
 * in the next, and nothing can be refused; but a key that none of the first thousand records has
 * is a mapping that reads nothing (`hausnr` where the features say `Hausnr`): an optional field
 * goes out empty on every row and comes back ok, a point is read from the feature's geometry
 * instead, every row ok. So it is warned of, once, with the keys the records have instead.
 */
import { hasField } from '../fields.js';
import { nearColumns, shownColumn } from '../jobs/_fields.js';
import type { Row } from '../types.js';

/** Records looked at before a key none of them has is warned of. */
export const RECORDS_LOOKED_AT = 1000;
/** Distinct keys kept for the hint: the records' keys, not their values, but bounded all the same. */
const KEYS_KEPT = 200;
const SHOWN = 12;
/** The mapping keys of the point a job reads from a feature's geometry when they read nothing. */
const POINT_KEY = /\.(?:lon|lat)$/;
/** The other half of a point's mapping key: `mapping.lat` for `mapping.lon`. */
const twin = (path: string) => path.replace(/\.(lon|lat)$/, (_, half) => (half === 'lon' ? '.lat' : '.lon'));

/** Watches an input's first records for mapped keys that none of them has; `warn` is told once. */
export class RecordKeys {
  /** The mapped keys no record has shown yet, each with the mapping paths that read it. */
  private readonly unseen = new Map<string, string[]>();
  /** The columns the steps before each mapped key's add, for a near miss of one of theirs. */
  private readonly earlier = new Map<string, readonly string[]>();
  private readonly keys = new Set<string>();
  private records = 0;
  private features = false;
  private ended = false;

  /** `columns`: a MappedColumn's fields (src/run/mapped-columns.ts, which imports this module). */
  constructor(
    columns: readonly {
      readonly column: string;
      readonly path: string;
      readonly earlier: readonly string[];
    }[],
    private readonly warn: (message: string) => void,
  ) {
    // A column an earlier step adds is the step's to fill, not the input's.
    for (const { column, path, earlier } of columns) {
      if (earlier.includes(column)) continue;
      this.earlier.set(column, [...(this.earlier.get(column) ?? []), ...earlier]);
      const paths = this.unseen.get(column);
      if (paths === undefined) this.unseen.set(column, [path]);
      else paths.push(path);
    }
  }

  get watching(): boolean {
    return !this.ended && this.unseen.size > 0;
  }

  check(row: Row): void {
    if (!this.watching) return;
    if (row.geometry !== undefined) this.features = true;
    for (const key in row.fields) if (this.keys.size < KEYS_KEPT) this.keys.add(key);
    for (const column of this.unseen.keys()) if (hasField(row.fields, column)) this.unseen.delete(column);
    if (++this.records >= RECORDS_LOOKED_AT) this.end();
  }

  /** The input has ended, or enough records were looked at: says what none of them had. */
  end(): void {
    if (!this.watching || this.records === 0) return;
    this.ended = true;
    const [noun, records] = this.features ? ['property', 'features'] : ['key', 'records'];
    const which =
      this.records >= RECORDS_LOOKED_AT
        ? `the first ${this.records.toLocaleString('en-US')} ${records}`
        : this.records === 1
          ? `the one ${records.slice(0, -1)}`
          : `the ${this.records} ${records}`;
    const keys = [...this.keys];
    const unseen = new Set([...this.unseen.values()].flat());
    for (const [column, paths] of this.unseen) {
      const near = nearColumns(keys, column);
      const nearStep = nearColumns(this.earlier.get(column) ?? [], column);
      const listed = keys.slice(0, SHOWN).map(shownColumn).join(', ') + (keys.length > SHOWN ? ', ...' : '');
      const instead =
        near.length > 0
          ? `they have ${near.map(shownColumn).join(' and ')}: map to it as written`
          : nearStep.length > 0
            ? `an earlier step adds ${nearStep.map(shownColumn).join(' and ')}: map to it as written`
            : keys.length > 0
              ? `they have ${listed}`
              : `they have no ${noun === 'key' ? 'keys' : 'properties'}`;
      // A feature's point mapped to a property it lacks comes from its Point geometry, as if not
      // mapped (src/jobs/_fields.ts readPoint): "a required one failing" was untrue of every row.
      // Both halves unread only: with one there, the row fails on the other (a lon beside no lat).
      const fromGeometry =
        this.features && paths.every((path) => POINT_KEY.test(path) && unseen.has(twin(path)));
      const absent = fromGeometry
        ? "each row's point is read from its feature's Point geometry instead (a feature without one failing)"
        : 'each row reads it as absent (an optional field left out, a required one failing)';
      this.warn(
        `${paths.join(' and ')} ${paths.length === 1 ? 'reads' : 'read'} the ${noun} ${shownColumn(column)}, which none of ${which} has: ${instead}; ${absent}`,
      );
    }
  }
}

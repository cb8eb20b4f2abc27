/**
 * `geobatch validate`'s check of the mapped columns against a CSV input's header: the check a run
 * makes when it opens the input (src/run/mapped-columns.ts), made the same way and refused in the
 * same words. Without it a mapping to a column the header lacks (`plz` where the header says
 * `PLZ`) passed validate and stopped the run with exit 2.
 *
 * Only the header is read. An input that does not exist yet, standard input, or an NDJSON or
 * GeoJSON input (whose records may each have keys of their own, so the run does not check them
 * either) is not checked, and validate says so in one line.
 */
import type { JobConfig } from '../config/load.js';
import type { Step } from '../engine/pipeline.js';
import { checkDefaultPointColumns } from '../run/_default-point-columns.js';
import { RecordPoints } from '../run/_default-points.js';
import { fileExists, openInput, readHeader } from '../run/_header.js';
import { RECORDS_LOOKED_AT, RecordKeys } from '../run/_record-keys.js';
import type { RecordWatch } from '../run/_watch-records.js';
import { checkMappedColumns, defaultPointWarning, mappedColumns } from '../run/mapped-columns.js';

/**
 * Throws the run's CONFIG_INVALID for a mapped column the header does not have. `steps`: as
 * checkSteps (src/run/assemble.ts) returns them, so that a pipeline's later step may read a column
 * an earlier step adds. Returns what validate shows on its `columns` line, or undefined when no
 * mapping reads a column.
 */
export async function checkInputColumns(
  config: JobConfig,
  steps: readonly Step[],
): Promise<string | undefined> {
  const mapped = mappedColumns(config, steps);
  // Points read from default columns alone are checked too, but the columns line is the mapped ones'.
  const said = (line: string) => (mapped.columns.length === 0 ? undefined : line);
  if (mapped.columns.length === 0 && mapped.defaultPoints === undefined) return undefined;
  const { path, format } = config.input;
  if (path === '-') return said('not checked: the input is standard input, read only by the run');
  if (!(await fileExists(path))) return said(`not checked: the input ${path} does not exist (yet)`);
  // Each record may have keys of its own: nothing is refused, what none of the first has is warned of.
  if (format !== 'csv')
    return said(
      `looked for in the first ${RECORDS_LOOKED_AT.toLocaleString('en-US')} ${format === 'ndjson' ? 'records' : 'features'}, as the run looks (each may have keys of its own)`,
    );
  const header = await readHeader(config.input);
  // An empty input has no header: the run stops on it as INPUT_EMPTY, not on a column.
  if (header.length === 0) return said('not checked: the input is empty');
  checkMappedColumns(mapped, header);
  checkDefaultPointColumns(mapped, header);
  if (mapped.columns.length === 0) return undefined;
  const added = mapped.columns.some(({ column }) => !header.includes(column));
  return `every mapped column is in the input's header${added ? ' or added by an earlier step' : ''}`;
}

/**
 * The run's warnings about an NDJSON or GeoJSON input's records, from its first thousand (the
 * run watches them as it reads): a mapped key that none of them has (src/run/_record-keys.ts), and a
 * point read from default columns when there is more than one of a kind to read
 * (src/run/_default-points.ts), which a CSV header tells instead. None when there is nothing to
 * say or the input cannot be read here (see checkInputColumns).
 */
export async function recordNotes(config: JobConfig, steps: readonly Step[]): Promise<string[]> {
  const mapped = mappedColumns(config, steps);
  const { path, format } = config.input;
  if (path === '-' || !(await fileExists(path))) return [];
  if (format === 'csv') {
    const warning =
      mapped.defaultPoints === undefined
        ? undefined
        : defaultPointWarning(mapped, await readHeader(config.input));
    return warning === undefined ? [] : [warning];
  }
  const notes: string[] = [];
  const note = (message: string) => notes.push(message);
  const watches: RecordWatch[] = [
    new RecordPoints(mapped.defaultPoints ?? [], note),
    new RecordKeys(mapped.columns, note),
  ];
  if (!watches.some((watch) => watch.watching)) return [];
  const stop = new AbortController();
  try {
    let records = 0;
    for await (const item of await openInput(config.input, stop.signal)) {
      if (item.kind === 'row') for (const watch of watches) watch.check(item);
      if (++records >= RECORDS_LOOKED_AT || !watches.some((watch) => watch.watching)) break;
    }
    for (const watch of watches) watch.end?.();
  } catch {
    // What the run refuses as it reads the input is checkRows's to say (_validate-rows.ts).
  } finally {
    stop.abort();
  }
  return notes;
}

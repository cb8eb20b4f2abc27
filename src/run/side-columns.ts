/**
 * The columns a step reads from its side inputs (a matrix's `options.destinations.mapping`),
 * checked against each side file's CSV header before the kind reads the file: the check the
 * input's mapped columns get (mapped-columns.ts), in the same words, naming the key by its whole
 * path in the job file (`steps[1].options.destinations.mapping.lon`). `validate` and the start of
 * a run make it alike. Without it, validate passed such a file, and the run stopped on it while
 * building the job, with a path that lacked the step.
 *
 * As for the input, only CSV: NDJSON and GeoJSON records may each have keys of their own. A file
 * that does not exist yet is left to the kind, which refuses it when it reads it; one that is
 * empty, or has its header and no row, is refused here, as the kind would refuse it. A run makes
 * these checks on the reader its kind reads (`checkedSideRows`), so that it opens the file once.
 */
import type { InputSpec, JobConfig, StepConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { InputReader } from '../input/reader.js';
import { columnOf, resolveMapping, shownColumn } from '../jobs/_fields.js';
import type { ReadItem } from '../types.js';
import { fileExists, readStart } from './_header.js';
import { checkOnePointColumn } from './_one-column-point.js';
import { checkMappedColumns, type MappedColumn, type MappedColumns } from './mapped-columns.js';

/** Each side input, with the columns its mapping reads (none when it maps none). */
function sidesOf(config: JobConfig, step: StepConfig) {
  const sides: { name: string; path: string; spec: InputSpec; mapped: MappedColumns }[] = [];
  const at = step.path === '' ? 'options' : `${step.path}.options`;
  for (const [name, input] of Object.entries(step.record.sideInputs?.(step.options) ?? {})) {
    const spec = step.sideInputs[name];
    if (spec === undefined) continue;
    const mapping = resolveMapping(input.mapping);
    checkOnePointColumn(
      config.file,
      `${at}.${name}.mapping`,
      ['lon', 'lat'],
      [columnOf(mapping, 'lon'), columnOf(mapping, 'lat')],
    );
    const columns: MappedColumn[] = Object.entries(mapping).flatMap(([key, source]) =>
      'column' in source
        ? [{ column: source.column, path: `${at}.${name}.mapping.${key}`, earlier: [] }]
        : [],
    );
    sides.push({
      name,
      path: `${at}.${name}`,
      spec,
      mapped: { file: config.file, columns, header: `the header of ${spec.path}` },
    });
  }
  return sides;
}

/**
 * What validate shows for one side input; throws the run's CONFIG_INVALID for a missing column,
 * and for a file with no record, which the kind refuses too (a matrix without destinations) when
 * the run builds it: validate passed such a file, which the run then refused.
 */
async function checkSide(spec: InputSpec, path: string, mapped: MappedColumns): Promise<string> {
  if (spec.format !== 'csv')
    return `columns not checked: ${spec.format === 'ndjson' ? 'NDJSON' : 'GeoJSON'} records may each have keys of their own`;
  if (!(await fileExists(spec.path))) return 'columns not checked: the file does not exist (yet)';
  const { header, hasRecord } = await readStart(spec);
  checkOpened(spec, path, mapped, header, hasRecord);
  return mapped.columns.length === 0 ? 'it holds rows' : 'every mapped column is in its header';
}

/** The checks of an open CSV side file: its mapped columns against its header, then a first row. */
function checkOpened(
  spec: InputSpec,
  path: string,
  mapped: MappedColumns,
  header: readonly string[],
  hasRecord: boolean,
): void {
  if (header.length > 0) checkMappedColumns(mapped, header);
  if (!hasRecord) {
    const what = header.length === 0 ? 'is empty' : 'has a header and no row';
    throw new ConfigError(`${mapped.file}: ${path}: ${spec.path} ${what}; it must hold at least one row`, {
      file: mapped.file,
      path,
      expected: 'a header and at least one data row',
      hint: 'check the path, and that the file was written in full',
    });
  }
}

/**
 * A side input's rows as a run's kind reads them, with the checks `checkSideColumns` makes (its
 * CSV header, a first row) made on the same reader before the kind gets a row: a run opens the
 * file once, where it used to open it for the checks and again for the kind. `spec` is one of
 * `step.sideInputs`; a file of no other format is handed on unchecked, as validate leaves it.
 */
export async function* checkedSideRows(
  config: JobConfig,
  step: StepConfig,
  spec: InputSpec,
  reader: InputReader,
): AsyncGenerator<ReadItem> {
  const side = sidesOf(config, step).find((candidate) => candidate.spec === spec);
  if (side === undefined || spec.format !== 'csv') {
    yield* reader;
    return;
  }
  let first = true;
  for await (const item of reader) {
    if (first) checkOpened(spec, side.path, side.mapped, reader.columns(), true);
    first = false;
    yield item;
  }
  if (first) checkOpened(spec, side.path, side.mapped, reader.columns(), false);
}

/**
 * Throws CONFIG_INVALID for a column a side input's mapping reads that the file's header lacks, and
 * for a side input without a row. Returns, by side input name, what was checked, for validate's
 * lines.
 */
export async function checkSideColumns(
  config: JobConfig,
  step: StepConfig,
): Promise<Readonly<Record<string, string>>> {
  const notes: Record<string, string> = {};
  for (const { name, path, spec, mapped } of sidesOf(config, step))
    notes[name] = await checkSide(spec, path, mapped);
  return notes;
}

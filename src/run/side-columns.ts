/**
 * The columns a step reads from its side inputs (a matrix's `options.destinations.mapping`),
 * checked against each side file's CSV header before the kind reads the file: the check the
 * input's mapped columns get (mapped-columns.ts), in the same words, naming the key by its whole
 * path in the job file (`steps[1].options.destinations.mapping.lon`). `validate` and the start of
 * a run make it alike. Without it, validate passed such a file, and the run stopped on it while
 * building the job, with a path that lacked the step.
 *
 * As for the input, only CSV: NDJSON and GeoJSON records may each have keys of their own. A file
 * that does not exist yet or is empty is left to the kind, which refuses it when it reads it.
 */
import type { InputSpec, JobConfig, StepConfig } from '../config/load.js';
import { resolveMapping } from '../jobs/_fields.js';
import { fileExists, readHeader } from './_header.js';
import { checkMappedColumns, type MappedColumn, type MappedColumns } from './mapped-columns.js';

/** Each side input that its mapping reads columns of, with those columns. */
function mappedSides(config: JobConfig, step: StepConfig) {
  const sides: { name: string; spec: InputSpec; mapped: MappedColumns }[] = [];
  const at = step.path === '' ? 'options' : `${step.path}.options`;
  for (const [name, input] of Object.entries(step.record.sideInputs?.(step.options) ?? {})) {
    const spec = step.sideInputs[name];
    const columns: MappedColumn[] = Object.entries(resolveMapping(input.mapping)).flatMap(([key, source]) =>
      'column' in source
        ? [{ column: source.column, path: `${at}.${name}.mapping.${key}`, earlier: [] }]
        : [],
    );
    if (spec === undefined || columns.length === 0) continue;
    sides.push({ name, spec, mapped: { file: config.file, columns, header: `the header of ${spec.path}` } });
  }
  return sides;
}

/** What validate shows for one side input; throws the run's CONFIG_INVALID for a missing column. */
async function checkSide(spec: InputSpec, mapped: MappedColumns): Promise<string> {
  if (spec.format !== 'csv')
    return `columns not checked: ${spec.format === 'ndjson' ? 'NDJSON' : 'GeoJSON'} records may each have keys of their own`;
  if (!(await fileExists(spec.path))) return 'columns not checked: the file does not exist (yet)';
  const header = await readHeader(spec);
  if (header.length === 0) return 'columns not checked: the file is empty';
  checkMappedColumns(mapped, header);
  return 'every mapped column is in its header';
}

/**
 * Throws CONFIG_INVALID for a column a side input's mapping reads that the file's header lacks.
 * Returns, by side input name, what was checked, for validate's lines; a side input whose mapping
 * reads no column is not there.
 */
export async function checkSideColumns(
  config: JobConfig,
  step: StepConfig,
): Promise<Readonly<Record<string, string>>> {
  const notes: Record<string, string> = {};
  for (const { name, spec, mapped } of mappedSides(config, step)) notes[name] = await checkSide(spec, mapped);
  return notes;
}

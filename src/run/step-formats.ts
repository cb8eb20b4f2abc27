/**
 * Coordinate formats across a pipeline's steps. A step that reads, in one format, a column an
 * earlier step writes in another (geocode's `geo_lon` written in MERCATOR, read by a route as
 * degrees; GEODECIMAL integers read as degrees) fails every row, or reads every point wrong and
 * writes it ok. Each kind says which columns it writes in which format and which mapping keys it
 * reads in which (`JobKind.coordinates`); such a pair of steps is refused from the job file alone,
 * before anything is read or sent, by `validate` and at a run's start alike, naming both steps,
 * the column and the two formats.
 *
 * Refused rather than converted: the file says two different things about one column, and which
 * of them is meant (the writer's format, or the reader's, with the writer's a slip) cannot be told.
 * A geometry a step hands on is WGS84 whatever the formats, so a step that reads the earlier
 * step's point from it (no mapping) is never refused.
 */
import type { JobConfig, StepConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import type { CoordFormat, CoordReads, CoordWrites } from '../jobs/_coord-format.js';
import { isDefaultColumn } from '../jobs/_fields.js';

interface Written {
  readonly step: StepConfig;
  readonly writes: CoordWrites;
}

interface Mismatch {
  readonly column: string;
  readonly reader: StepConfig;
  readonly reads: CoordReads;
  /** The mapping key the column is read for. */
  readonly key: string;
  /** Read by default (the key is not mapped). */
  readonly byDefault: boolean;
  readonly writer: Written;
}

/** The columns `reads` reads from the row, each for its mapping key; default columns among `written`. */
function readColumns(
  step: StepConfig,
  reads: CoordReads,
  written: ReadonlyMap<string, Written>,
): { column: string; key: string; byDefault: boolean }[] {
  const out: { column: string; key: string; byDefault: boolean }[] = [];
  for (const [lonKey, latKey] of reads.pairs) {
    const lon = step.mapping[lonKey];
    const lat = step.mapping[latKey];
    for (const [key, source] of [
      [lonKey, lon],
      [latKey, lat],
    ] as const) {
      if (source !== undefined && 'column' in source)
        out.push({ column: source.column, key, byDefault: false });
    }
    // Unmapped, a pair read from default columns before any geometry takes an earlier step's
    // (src/jobs/_fields.ts: the steps' pair over the input's).
    if (reads.defaults === true && lon === undefined && lat === undefined) {
      const columns = [...written.keys()];
      const lonColumn = columns.find((column) => isDefaultColumn(column, 'lon'));
      const latColumn = columns.find((column) => isDefaultColumn(column, 'lat'));
      if (lonColumn !== undefined && latColumn !== undefined) {
        out.push({ column: lonColumn, key: lonKey, byDefault: true });
        out.push({ column: latColumn, key: latKey, byDefault: true });
      }
    }
  }
  return out;
}

function firstMismatch(config: JobConfig): Mismatch | undefined {
  const written = new Map<string, Written>();
  for (const step of config.steps) {
    const coordinates = step.record.coordinates?.(step.options as never, step.mapping);
    for (const reads of coordinates?.reads ?? []) {
      for (const { column, key, byDefault } of readColumns(step, reads, written)) {
        const writer = written.get(column);
        if (writer !== undefined && writer.writes.format !== reads.format)
          return { column, reader: step, reads, key, byDefault, writer };
      }
    }
    const writes = coordinates?.writes;
    for (const column of writes?.columns ?? []) written.set(column, { step, writes: writes as CoordWrites });
  }
  return undefined;
}

/** A format as a hint names it: degrees by their name too. */
function shown(format: CoordFormat): string {
  return format === 'GEODECIMAL_POINT' ? 'degrees (GEODECIMAL_POINT)' : format;
}

function named(step: StepConfig): string {
  return `${step.name} (${step.path})`;
}

/** What to set so that the two agree: the writer's format, the reader's, or both ways. */
function hintOf(mismatch: Mismatch): string {
  const { reader, reads, writer } = mismatch;
  const ways: string[] = [];
  const set = (step: StepConfig, option: string, format: CoordFormat) => {
    const [key, part] = option.split('.');
    return part === undefined
      ? `${step.path}.options.${key}: ${format}`
      : `${step.path}.options.${key}: { ${part}: ${format} }`;
  };
  if (writer.writes.option !== undefined)
    ways.push(`write it in ${reads.format} (${set(writer.step, writer.writes.option, reads.format)})`);
  if (reads.option !== undefined)
    ways.push(`read it as ${writer.writes.format} (${set(reader, reads.option, writer.writes.format)})`);
  const only =
    reads.option === undefined
      ? `; ${reader.name} reads ${shown(reads.format)} only`
      : writer.writes.option === undefined
        ? `; ${writer.step.name} writes ${shown(writer.writes.format)} only`
        : '';
  return `${ways.join(', or ')}${only}`;
}

/**
 * Throws CONFIG_INVALID for the first step that reads a coordinate column an earlier step writes,
 * in another format than that step writes it in.
 */
export function refuseFormatMismatch(config: JobConfig): void {
  const mismatch = firstMismatch(config);
  if (mismatch === undefined) return;
  const { column, reader, reads, key, byDefault, writer } = mismatch;
  const path = `${reader.path}.mapping.${key}`;
  const how = byDefault ? `by default for ${key}, as ${path} names no column` : path;
  throw new ConfigError(
    `${config.file}: ${named(reader)} reads the column \`${column}\` (${how}) as ${reads.format}, but ${named(writer.step)} writes it in ${writer.writes.format}`,
    {
      file: config.file,
      path,
      field: column,
      expected: `the column in ${reads.format}, as ${reader.name} reads it`,
      received: writer.writes.format,
      hint: hintOf(mismatch),
    },
  );
}

/**
 * What standard output can take: one text output. Checked where the outputs are chosen (the
 * command line's overrides) and again by the run, before a lock is taken or a request sent.
 */
import { UsageError } from '../errors.js';
import type { OutputFormat } from './writer.js';

/** Throws USAGE for `-` among several outputs, or `-` as a GeoPackage. */
export function checkStandardOutput(
  outputs: readonly { readonly path: string; readonly format: OutputFormat }[],
): void {
  const piped = outputs.find((output) => output.path === '-');
  if (piped === undefined) return;
  if (outputs.length > 1) {
    throw new UsageError('Standard output (`-`) can only be the one output of a run', {
      field: 'output',
      received: outputs.map((output) => output.path).join(', '),
      hint: 'Write every output to a file, or pipe one output and run again for the others.',
    });
  }
  if (piped.format === 'gpkg') {
    throw new UsageError('A GeoPackage cannot be written to standard output', {
      field: 'format',
      received: 'gpkg',
      hint: 'Give an output file, e.g. -o out.gpkg.',
    });
  }
}

/**
 * `geobatch validate`'s warning for job columns that replace input columns of the same name (a
 * step with `prefix: ""` over an input that has `lat`, `lon`, `city`): the run warns as it writes
 * its first record, in these words (src/output/files.ts), and validate, which reads the header,
 * said nothing.
 *
 * The input's columns are what the writers take: a CSV header, an NDJSON or GeoJSON input's first
 * readable record's keys, without geobatch's own columns. For every output format, as the run; an
 * input that does not exist yet, standard input, or one the run would refuse is left to the
 * checks that say so.
 */
import type { JobConfig } from '../config/load.js';
import { pipelineColumns, type Step } from '../engine/pipeline.js';
import { inputColumnsOnly } from '../output/_columns.js';
import { replacedColumnsWarning } from '../output/csv.js';
import { fileExists, openInput } from '../run/_header.js';

/** Records read at most to find the first readable one, as _validate-outputs.ts reads. */
const RECORDS = 100;

export async function replacedColumnsNote(
  config: JobConfig,
  steps: readonly Step[],
): Promise<string | undefined> {
  const { input } = config;
  if (input.path === '-' || !(await fileExists(input.path))) return undefined;
  const stop = new AbortController();
  try {
    const reader = await openInput(input, stop.signal);
    let records = 0;
    if (reader.columns().length === 0)
      for await (const _ of reader) if (reader.columns().length > 0 || ++records >= RECORDS) break;
    return replacedColumnsWarning(inputColumnsOnly(reader.columns()), pipelineColumns(steps));
  } catch {
    // What the run refuses as it reads the input is checkRows's to say (_validate-rows.ts).
    return undefined;
  } finally {
    stop.abort();
  }
}

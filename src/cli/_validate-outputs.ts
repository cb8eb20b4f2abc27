/**
 * `geobatch validate`'s check of what the outputs can hold: a GeoPackage's column limit, checked
 * against the input's columns as the run checks it at its start (src/run/_output-columns.ts) and
 * refused in the same words. Without it a CSV of 2,000 columns passed validate, and the run failed
 * only when it wrote its first row, its requests paid for.
 *
 * A CSV input's header is read; an NDJSON or GeoJSON input's records up to the first readable one,
 * whose keys the writers take for columns. An input that does not exist yet, or standard input, is
 * left to the run.
 */
import type { JobConfig } from '../config/load.js';
import { pipelineColumns, type Step } from '../engine/pipeline.js';
import { isGeobatchError } from '../errors.js';
import { fileExists, openInput } from '../run/_header.js';
import { checkOutputColumns } from '../run/_output-columns.js';

/** Records read at most to find the first readable one: an input broken throughout is the run's to report. */
const RECORDS = 100;

export async function checkOutputsHold(config: JobConfig, steps: readonly Step[]): Promise<void> {
  const outputs = [config.output, ...config.moreOutputs];
  const { input } = config;
  if (!outputs.some((output) => output.format === 'gpkg')) return;
  if (input.path === '-' || !(await fileExists(input.path))) return;
  const stop = new AbortController();
  try {
    const reader = await openInput(input, stop.signal);
    // A CSV header is checked as the reader is handed over; other inputs as their first row comes.
    const checked = checkOutputColumns(reader, outputs, pipelineColumns(steps));
    let records = 0;
    for await (const _ of checked) if (reader.columns().length > 0 || ++records >= RECORDS) break;
  } catch (error) {
    // As in _validate-rows.ts: what the run refuses is refused here; what it reports is its own.
    if (isGeobatchError(error) && (error.code === 'USAGE' || error.code === 'INPUT_ENCODING')) throw error;
  } finally {
    stop.abort();
  }
}

/**
 * `geobatch validate`'s look at the input's first rows: each is planned by the first step's job,
 * as the run plans it, and nothing is sent. When every one of them fails before any request, and
 * for the same reason, the run would fail every row: validate says so in a warning, with the
 * reason, and still says valid, as the run still runs. A job without a lon/lat mapping reading a
 * CSV whose header names no coordinate column, degrees in columns declared MERCATOR, a delimiter
 * that leaves one column: each passed validate, and the run then wrote every row to the error
 * report.
 *
 * Only the first step: a later step plans on what the steps before it answered. What the run
 * refuses when it opens the input (not a FeatureCollection, a workbook, UTF-16, a projected crs)
 * is refused here alike; a problem met in reading the rows is the run's to report.
 *
 * An input without a record (0 bytes, a CSV header only, an empty FeatureCollection) is warned
 * of too: the run writes its outputs without a row and exits 4 (INPUT_EMPTY), which a validate
 * that said nothing left for the scheduled run to find out.
 */
import type { JobConfig } from '../config/load.js';
import { isGeobatchError } from '../errors.js';
import { fileExists, openInput } from '../run/_header.js';
import { emptiness } from '../run/_summary-facts.js';
import { planningJob } from './_planning-job.js';

/** As many rows as it takes to tell one bad row from a rule that fails them all, and no more. */
const ROWS = 20;

/** The warning, or undefined when a row plans or the rows could not be read. */
export async function firstRowsWarning(config: JobConfig): Promise<string | undefined> {
  const { input } = config;
  const first = config.steps[0];
  if (first === undefined || input.path === '-' || !(await fileExists(input.path))) return undefined;
  const stop = new AbortController();
  const reasons = new Map<string, string>();
  let rows = 0;
  let whole = true;
  // What the run refuses at its start (not a FeatureCollection, a workbook, UTF-16, a projected crs)
  // validate refuses alike: only what reading the rows meets is the run's to report.
  const reader = await openInput(input, stop.signal).catch((error: unknown) => {
    stop.abort();
    throw error;
  });
  try {
    const job = await planningJob(first);
    for await (const item of reader) {
      rows++;
      // A record that cannot be read (a delimiter that splits no row as the header) fails as surely.
      const planned = item.kind === 'row' ? job.plan(item) : item;
      if (Array.isArray(planned)) return undefined;
      const issue = planned as { code: string; field?: string; message: string };
      // The first row's words: the rows after it fail the same way, with values of their own.
      const key = `${issue.code}\n${issue.field ?? ''}`;
      if (!reasons.has(key)) reasons.set(key, issue.message);
      if (reasons.size > 1) return undefined;
      if (rows >= ROWS) {
        whole = false;
        break;
      }
    }
  } catch (error) {
    // An input the run stops on as it reads it (a GeoJSON that is no FeatureCollection, bytes that
    // are not its encoding) is refused here alike; a job that cannot be built to plan is not ours.
    if (isGeobatchError(error) && (error.code === 'USAGE' || error.code === 'INPUT_ENCODING')) throw error;
    return undefined;
  } finally {
    stop.abort();
  }
  if (rows === 0)
    return `the input ${input.path} ${emptiness(reader)}: a run would write its outputs with no row and exit 4 (INPUT_EMPTY)`;
  const [message] = reasons.values();
  if (message === undefined) return undefined;
  const which = whole
    ? rows === 1
      ? "the input's one row"
      : `each of the input's ${rows} rows`
    : `each of the input's first ${rows} rows`;
  return `${which} would fail before any request${whole ? '' : ', as every row may'}: ${message}`;
}

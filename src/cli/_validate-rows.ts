/**
 * `geobatch validate`'s look at the input's rows: each is planned by the first step's job, as the
 * run plans it, and nothing is sent. The rows that would fail before any request are counted by
 * reason and said in a warning, with the first row of each; when every row read fails for the
 * same reason, the run would fail every row, and the warning says that instead. validate still
 * says valid, as the run still runs. A job without a lon/lat mapping reading a CSV whose header
 * names no coordinate column, degrees in columns declared MERCATOR, a delimiter that leaves one
 * column: each passed validate, and the run then wrote every row to the error report.
 *
 * How many rows: the first ROWS_CHECKED unless `--all-rows`, and the output says which. Only the
 * first 20 were planned, and only until one planned: a file whose row 5,000 had no coordinates
 * validated with no word of it, nor of how little was checked. Planning reads the input as the run
 * does, one row at a time (memory stays flat), at some 200,000 rows (10 MB of CSV) a second: a
 * 10 GB input takes minutes, too long for the check before every run, so it is asked for.
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
import type { AnyJob } from '../engine/job.js';
import { isGeobatchError } from '../errors.js';
import { fileExists, openInput } from '../run/_header.js';
import { emptiness } from '../run/_summary-facts.js';
import { sideInputReader } from '../run/assemble.js';
import type { RowRef } from '../types.js';
import { planningJob } from './_planning-job.js';

/** Rows planned without --all-rows: half a second or so, and any file's first few MB. */
export const ROWS_CHECKED = 100_000;

/** Reasons a warning lists; the rest are counted. */
const REASONS_SHOWN = 3;

/** One reason rows fail for: its first row's words, and how many rows fail so. */
interface Failing {
  readonly message: string;
  readonly first: RowRef;
  count: number;
}

export interface RowCheck {
  /** Rows (and unreadable records) planned. */
  readonly checked: number;
  /** Whether the input ended within them: every row was checked. */
  readonly whole: boolean;
  /** Rows that would fail before any request, by code and field, in the order first met. */
  readonly failing: readonly Failing[];
  /** The input's emptiness in words, when it has no row. */
  readonly empty?: string;
  /** Why no row was planned: the job could not be built to plan (a side input not there yet). */
  readonly notChecked?: string;
}

/**
 * Plans the input's rows, at most `limit` of them (all without one); undefined when there is no
 * file to read (standard input, a path that does not exist yet) or the job cannot be built to plan.
 */
export async function checkRows(config: JobConfig, limit: number | undefined): Promise<RowCheck | undefined> {
  const { input } = config;
  const first = config.steps[0];
  if (first === undefined || input.path === '-' || !(await fileExists(input.path))) return undefined;
  const stop = new AbortController();
  const failing = new Map<string, Failing>();
  let checked = 0;
  let whole = true;
  // What the run refuses at its start (not a FeatureCollection, a workbook, UTF-16, a projected crs)
  // validate refuses alike: only what reading the rows meets is the run's to report.
  const reader = await openInput(input, stop.signal).catch((error: unknown) => {
    stop.abort();
    throw error;
  });
  let job: AnyJob;
  try {
    // A matrix plans its rows against its destinations, read as the run reads them (validate has
    // checked them whole already): without them it could not be built, and no row was checked.
    const files = Object.values(first.sideInputs);
    const present = await Promise.all(files.map((file) => fileExists(file.path)));
    const missing = files.filter((_, i) => !present[i]).map((file) => file.path);
    if (missing.length > 0) {
      stop.abort();
      return {
        checked: 0,
        whole: false,
        failing: [],
        notChecked: `the rows are planned with ${missing.join(' and ')}, which does not exist (yet)`,
      };
    }
    job = await planningJob(first, sideInputReader(config, first, stop.signal));
  } catch (error) {
    stop.abort();
    const why = isGeobatchError(error) || error instanceof Error ? error.message : String(error);
    return { checked: 0, whole: false, failing: [], notChecked: why };
  }
  try {
    for await (const item of reader) {
      if (limit !== undefined && checked >= limit) {
        whole = false;
        break;
      }
      checked++;
      // A record that cannot be read (a delimiter that splits no row as the header) fails as surely.
      const planned = item.kind === 'row' ? job.plan(item) : item;
      if (Array.isArray(planned)) continue;
      const issue = planned as { code: string; field?: string; message: string };
      // The first row's words: the rows after it fail the same way, with values of their own.
      const key = `${issue.code}\n${issue.field ?? ''}`;
      const known = failing.get(key);
      if (known === undefined) failing.set(key, { message: issue.message, first: item.ref, count: 1 });
      else known.count++;
    }
  } catch (error) {
    // An input the run stops on as it reads it (a GeoJSON that is no FeatureCollection, bytes that
    // are not its encoding) is refused here alike; a job that cannot be built to plan is not ours.
    if (isGeobatchError(error) && (error.code === 'USAGE' || error.code === 'INPUT_ENCODING')) throw error;
    return undefined;
  } finally {
    stop.abort();
  }
  return {
    checked,
    whole,
    failing: [...failing.values()],
    ...(checked === 0 ? { empty: emptiness(reader) } : {}),
  };
}

const n = (value: number) => value.toLocaleString('en-US');

/** The `rows` line: how many rows were planned, and how to plan them all when not all were. */
export function rowsLine(check: RowCheck): string {
  if (check.notChecked !== undefined) return `not checked: ${check.notChecked}`;
  const failed = check.failing.reduce((sum, reason) => sum + reason.count, 0);
  const outcome =
    failed === 0
      ? 'none fails before a request'
      : `${n(failed)} ${failed === 1 ? 'fails' : 'fail'} before a request (see the warning)`;
  if (check.whole)
    return `${check.checked === 1 ? 'the one row' : `all ${n(check.checked)}`} checked, nothing sent: ${outcome}`;
  return `the first ${n(check.checked)} checked, nothing sent: ${outcome}; the input has more rows, not checked (--all-rows checks every one)`;
}

/** `row 17 (line 18)`. */
function rowText(ref: RowRef): string {
  return `row ${n(ref.index + 1)} (line ${n(ref.line)})`;
}

/** The warning on the rows that would fail, or undefined when none would. */
export function rowsWarning(check: RowCheck, path: string): string | undefined {
  if (check.empty !== undefined)
    return `the input ${path} ${check.empty}: a run would write its outputs with no row and exit 4 (INPUT_EMPTY)`;
  const [only, ...others] = check.failing;
  if (only === undefined) return undefined;
  if (others.length === 0 && only.count === check.checked) {
    const which = check.whole
      ? check.checked === 1
        ? "the input's one row"
        : `each of the input's ${n(check.checked)} rows`
      : `each of the input's first ${n(check.checked)} rows`;
    return `${which} would fail before any request${check.whole ? '' : ', as every row may'}: ${only.message}`;
  }
  const failed = check.failing.reduce((sum, reason) => sum + reason.count, 0);
  const reasons = check.failing
    .slice(0, REASONS_SHOWN)
    .map(
      (reason) =>
        `${rowText(reason.first)}${reason.count > 1 ? ` and ${n(reason.count - 1)} more` : ''}: ${reason.message}`,
    );
  const more = check.failing.length - REASONS_SHOWN;
  const rest = more > 0 ? `; and ${more} more reasons` : '';
  const of = check.whole
    ? `the input's ${n(check.checked)} rows`
    : `the first ${n(check.checked)} rows checked`;
  return `${n(failed)} of ${of} would fail before any request: ${reasons.join('; ')}${rest}`;
}

/**
 * The error report an earlier run of an output left beside it, which this run does not write
 * over: `-o out.csv` wrote out.errors.csv; a rerun with `-e other.ndjson` (or a job whose
 * `errors:` names another file; `-e -` is refused before any run) puts a new out.csv in place,
 * and out.errors.csv beside it would be read as this run's failed rows.
 *
 * Only the report at its default path beside the output goes, today's or the one earlier versions
 * used (`x.errors.csv` for `x.geojson`; one the user named with `-e` or `errors:` elsewhere is
 * theirs, wherever it is), never the input this run read, and a file geobatch did
 * not write is never deleted, so the old report goes only on evidence, read
 * before this run's summary replaces the earlier one (earlierErrorReports): a summary geobatch
 * wrote of the very output this run put in place names it as the error report it wrote, the file
 * is a plain file (not a link) no newer than that summary, and it starts as geobatch's error
 * reports do (CSV: the geobatch_row ... geobatch_raw header; NDJSON: a record with row, line, job,
 * stage and code, or nothing at all for a summary that counted no row). A file at the default
 * path beside the output without that evidence stays, and a warning says it is not this run's.
 * A report that the summary of another output names as its own run's belongs to that run, and is
 * neither removed nor warned of: `-o x.csv` wrote x.errors.csv, the earlier default path of a
 * later `-o x.geojson`, and x.csv.summary.json beside it names it (othersReports). Such a claim
 * holds while the file is not newer than the summary making it; one changed since is the file
 * of whoever changed it, and is handled as above.
 * Nothing is looked at unless this run put an output in place (then the earlier run's report
 * still describes the output there), and a dry run never gets here.
 */
import { lstat, readdir, realpath } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { defaultErrorsPath } from '../config/_paths.js';
import { removeFile } from '../output/_sink.js';
import { REPORT_COLUMNS } from '../output/report.js';
import { type RunSummary, summaryPath } from '../output/summary.js';
import { head } from './_stale-reports.js';
import type { EarlierErrors, Journal } from './checkpoint.js';

export type { EarlierErrors } from './checkpoint.js';

/** What a summary's name ends with beside its output (`x.csv.summary.json`). */
const SUMMARY_SUFFIX = summaryPath('');

/**
 * Reads, as the session starts, the summaries that may describe its outputs (the default beside
 * each, the summary this run writes, the one the checkpoint resumed names), keeping what each
 * summary geobatch wrote of one of `outputs` says of the error report its run put in place; with
 * what the checkpoint carried from its first session (Journal.earlierErrors), whose stop wrote a
 * summary over the finished run's. A checkpoint is a file anyone can edit: what it carries counts
 * only for the default report paths beside the outputs, never for a file elsewhere.
 */
export async function earlierErrorReports(
  outputs: readonly string[],
  summaryFile: string | null,
  journal: Journal | undefined,
): Promise<EarlierErrors[]> {
  const files = outputs.filter((o) => o !== '-');
  const candidates = new Set(files.map(summaryPath));
  if (summaryFile !== null) candidates.add(summaryFile);
  if (typeof journal?.summaryFile === 'string') candidates.add(journal.summaryFile);
  const found: EarlierErrors[] = carried(journal, files);
  for (const path of candidates) {
    const earlier = await summaryOf(path, files).catch(() => undefined);
    if (earlier !== undefined) found.push(earlier);
  }
  return found;
}

function carried(journal: Journal | undefined, outputs: readonly string[]): EarlierErrors[] {
  const list: unknown = journal?.earlierErrors;
  if (!Array.isArray(list)) return [];
  return list.filter((item: unknown): item is EarlierErrors => {
    const e = item as Partial<EarlierErrors> | null;
    if (typeof e !== 'object' || e === null) return false;
    if (typeof e.output !== 'string' || !outputs.includes(e.output)) return false;
    if (typeof e.summary !== 'string' || typeof e.summaryMs !== 'number') return false;
    if (typeof e.format !== 'string' || typeof e.rows !== 'number' || typeof e.errors !== 'string')
      return false;
    return besideOutput(e.output as string).includes(resolve(e.errors));
  });
}

/**
 * The paths a default error report of `output` has had: `x.geojson.errors.csv` now (the output's
 * extension kept unless it is the report's own), and `x.errors.csv`, where earlier versions put
 * every output's report. Without the latter, the first run after the change left the earlier
 * version's report beside the output, to be read as this run's by a script that reads it.
 */
function besideOutput(output: string): string[] {
  const stem = output.slice(0, output.length - extname(output).length);
  const paths = (['csv', 'ndjson'] as const).flatMap((format) => [
    resolve(defaultErrorsPath(output, '', format)),
    resolve(`${stem}.errors.${format}`),
  ]);
  return [...new Set(paths)];
}

async function summaryOf(path: string, outputs: readonly string[]): Promise<EarlierErrors | undefined> {
  const earlier = await reportOfSummary(path);
  return earlier !== undefined && outputs.includes(earlier.output) ? earlier : undefined;
}

/** What the summary at `path`, if geobatch wrote it of a run that wrote an output, says of its error report. */
async function reportOfSummary(path: string): Promise<EarlierErrors | undefined> {
  const stats = await lstat(path);
  if (!stats.isFile()) return undefined;
  const text = await head(path, 4 * 1024 * 1024);
  if (text === undefined || !/^\{\s*"version": 1,\s*"job": "/.test(text)) return undefined;
  const parsed = JSON.parse(text) as {
    dryRun?: unknown;
    output?: { path?: unknown; written?: unknown } | null;
    report?: { path?: unknown; format?: unknown; rows?: unknown; written?: unknown } | null;
  };
  const output = parsed.output?.path;
  const report = parsed.report;
  if (parsed.dryRun !== false || typeof output !== 'string') return undefined;
  if (report?.written !== true || typeof report.path !== 'string' || report.path === '-') return undefined;
  return {
    output,
    summary: path,
    summaryMs: stats.mtimeMs,
    errors: report.path,
    format: typeof report.format === 'string' ? report.format : '',
    rows: typeof report.rows === 'number' ? report.rows : -1,
  };
}

/**
 * Removes the error report an earlier run of an output this run put in place left, when this run
 * does not write over it and the evidence says it is that run's (above); warns of one beside the
 * output it leaves.
 */
export async function removeStaleErrorReports(
  summary: RunSummary,
  earlier: readonly EarlierErrors[],
  logger: Logger,
): Promise<void> {
  const placed = summary.outputs.filter((o) => o.written && o.path !== '-').map((o) => o.path);
  if (placed.length === 0) return;
  const current = summary.report === null || summary.report.path === '-' ? null : summary.report.path;
  // Never a file this run wrote or names as its own, nor the input it read (an error report run
  // again as input, as the README advises, sits at the very path), through a link too.
  const own = new Set(
    [...summary.outputs.map((o) => o.path), current, summary.summaryFile, summary.runReport]
      .filter((path): path is string => path !== null && path !== '-')
      .map((path) => resolve(path)),
  );
  if (summary.input.path !== '-') {
    own.add(resolve(summary.input.path));
    own.add(await realpath(summary.input.path).catch(() => resolve(summary.input.path)));
  }
  // Only the default report beside the first output: a report the user named (`-e`, `errors:`)
  // is theirs to keep, wherever it is (a night's dated report, one kept for review), whatever
  // the summary of its run says. A file at the default path beside another output is no report
  // of geobatch's.
  const candidates = new Map<string, { output: string; evidence?: EarlierErrors }>();
  const first = summary.output?.path;
  if (first !== undefined && placed.includes(first))
    for (const path of besideOutput(first)) candidates.set(path, { output: first });
  for (const evidence of earlier) {
    // The summary of any output this run put in place: x.errors.csv is the default report of an
    // x.csv this run wrote as its second output, as of the x.geojson it wrote first.
    const path = resolve(evidence.errors);
    const candidate = candidates.get(path);
    if (candidate === undefined || !placed.includes(evidence.output)) continue;
    if (candidate.evidence === undefined || candidate.evidence.summaryMs < evidence.summaryMs)
      candidates.set(path, { output: evidence.output, evidence });
  }
  const instead =
    summary.report === null
      ? 'this run writes none'
      : current === null
        ? "this run's went to standard output"
        : `this run's is ${current}`;
  for (const [path, { output, evidence }] of candidates) {
    if (own.has(path)) continue;
    const stats = await lstat(path).catch(() => undefined);
    if (stats === undefined) continue;
    const claims = await othersReports(path, placed, own);
    // Another run's report, as its summary says and as that run left it: not this one's to judge.
    if (claims.some((claim) => stats.isFile() && stats.mtimeMs <= claim.summaryMs)) continue;
    const why =
      evidence === undefined ? unclaimed(output, stats, claims) : await whyNot(path, stats, evidence);
    if (why !== undefined) {
      logger.warn(
        { file: path, output },
        `Left ${path} beside ${output}, though it is not this run's error report (${instead}): ${why}; it does not describe the output in place`,
      );
      continue;
    }
    try {
      await removeFile(path);
      logger.info(
        { file: path, output },
        `Removed the error report ${path}, written by an earlier run of ${output} (its summary named it): it no longer describes the output, and ${instead}`,
      );
    } catch (error) {
      logger.warn(
        { file: path, output, err: error },
        `The error report ${path} of an earlier run could not be removed; it does not describe this run (${instead})`,
      );
    }
  }
}

/**
 * What the summaries beside `path` (the *.summary.json in its directory) of outputs this run did
 * not put in place say of it: each that names it as the error report its run wrote. This run's
 * own files are not among them, nor a summary of an output it replaced (that run's report is the
 * stale one).
 */
async function othersReports(
  path: string,
  placed: readonly string[],
  own: ReadonlySet<string>,
): Promise<EarlierErrors[]> {
  const directory = dirname(path);
  const names = await readdir(directory).catch(() => [] as string[]);
  const claims: EarlierErrors[] = [];
  for (const name of names) {
    if (!name.endsWith(SUMMARY_SUFFIX) || own.has(join(directory, name))) continue;
    const claim = await reportOfSummary(join(directory, name)).catch(() => undefined);
    if (claim !== undefined && !placed.includes(claim.output) && resolve(claim.errors) === path)
      claims.push(claim);
  }
  return claims;
}

/** Why a file no summary of this run's outputs names is left; what is said is what was looked at. */
function unclaimed(
  output: string,
  stats: Awaited<ReturnType<typeof lstat>>,
  claims: EarlierErrors[],
): string {
  const claim = claims[0];
  if (claim === undefined)
    return `neither a summary of ${output} nor any other *${SUMMARY_SUFFIX} beside it names that file as its run's error report`;
  const named = `${claim.summary} names it as the error report of ${claim.output}, but`;
  if (stats.isSymbolicLink()) return `${named} it is a link, which geobatch never writes`;
  if (!stats.isFile()) return `${named} it is not a file`;
  return `${named} it was changed after that summary was written`;
}

/** Why the file at `path` may not be the report `evidence` says the earlier run wrote; undefined when it is. */
async function whyNot(
  path: string,
  stats: Awaited<ReturnType<typeof lstat>>,
  evidence: EarlierErrors,
): Promise<string | undefined> {
  if (stats.isSymbolicLink()) return 'it is a link, which geobatch never writes';
  if (!stats.isFile()) return 'it is not a file';
  if (stats.mtimeMs > evidence.summaryMs)
    return `it was changed after ${evidence.summary}, which named it, was written`;
  const text = await head(path, 64 * 1024).catch(() => undefined);
  if (text === undefined) return 'it could not be read';
  const ours =
    evidence.format === 'ndjson'
      ? ndjsonReport(text, evidence.rows)
      : evidence.format === 'csv' && csvReport(text);
  return ours ? undefined : "it does not start as geobatch's error reports do";
}

/** A CSV error report's header: geobatch's columns, in order, then the input's. */
function csvReport(text: string): boolean {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const first = REPORT_COLUMNS[0];
  const delimiter = body.charAt(first.length);
  if (!body.startsWith(first) || delimiter === '') return false;
  const header = REPORT_COLUMNS.join(delimiter);
  const after = body.charAt(header.length);
  return body.startsWith(header) && (after === delimiter || after === '\r' || after === '\n');
}

/**
 * An NDJSON error report: its first record starts with the report's keys in the order geobatch
 * writes them (a record can be far longer than the part read); empty only when it counted none.
 */
function ndjsonReport(text: string, rows: number): boolean {
  if (text === '') return rows === 0;
  return /^\{"row":\d+,"line":\d+,"job":"(?:[^"\\]|\\.)*","stage":"[^"]*","code":"/.test(text);
}

/**
 * The two log records every run writes at info, whatever else is logged: `run.start` (what runs,
 * on what, with which settings and versions) and `run.end` (how it ended, what it cost). A log
 * file of many nightly runs can then be read run by run without the summary files; the README
 * lists their fields. Neither carries a credential: only paths, counts and settings.
 */
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import type { Logger } from 'pino';
import type { JobConfig } from '../config/load.js';
import { ENGINE_DEFAULTS } from '../engine/options.js';
import { exitStatusOf, isGeobatchError } from '../errors.js';
import { DEFAULT_SEED, type RowSelection } from '../input/sample.js';
import type { RunSummary } from '../output/summary.js';
import { runReportOf } from './_checks.js';
import { summaryFileOf } from './_summary-facts.js';
import { outputsOf, type RunSpec } from './spec.js';

let version: string | undefined;

/** geobatch's own version, from its package.json (beside src/ and dist/ alike). */
export function geobatchVersion(): string {
  version ??= (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return version;
}

/** How the run was asked for, beyond what the spec says. */
export interface RunRequest {
  readonly emulator: boolean;
  readonly selection?: RowSelection;
}

/** `geocode` for a job named after its kind, `nightly (geocode)` otherwise. */
function title(config: JobConfig): string {
  return config.name === config.kind ? config.name : `${config.name} (${config.kind})`;
}

function shown(path: string): string {
  if (path === '-') return '-';
  const near = relative(process.cwd(), path);
  return near.startsWith('..') ? path : near;
}

export function logRunStart(logger: Logger, config: JobConfig, spec: RunSpec, request: RunRequest): void {
  const selection = request.selection ?? {};
  const record = {
    event: 'run.start',
    job: config.name,
    kind: config.kind,
    file: config.file,
    input: { path: spec.input.path, format: spec.input.format },
    output: { path: spec.output.path, format: spec.output.format },
    outputs: outputsOf(spec).map((output) => ({ path: output.path, format: output.format })),
    errors: spec.report === null ? null : { path: spec.report.path, format: spec.report.format },
    summary: summaryFileOf(spec),
    report: spec.dryRun === true ? null : runReportOf(spec),
    options: {
      resume: spec.resume === true,
      dryRun: spec.dryRun === true,
      emulator: request.emulator,
      limit: selection.limit ?? null,
      sample: selection.sample ?? null,
      seed: selection.sample === undefined ? null : String(selection.seed ?? DEFAULT_SEED),
      concurrency: spec.engine?.concurrency ?? null,
      rate: spec.requestsPerSecond ?? null,
    },
    versions: { geobatch: geobatchVersion(), node: process.version },
  };
  const how = [
    spec.dryRun === true ? 'dry run' : undefined,
    spec.resume === true ? 'resume' : undefined,
    request.emulator ? 'emulator' : undefined,
    selection.limit === undefined
      ? undefined
      : selection.limit === 1
        ? 'first row'
        : `first ${selection.limit} rows`,
    selection.sample === undefined ? undefined : `sample of ${selection.sample}, seed ${record.options.seed}`,
  ].filter((part) => part !== undefined);
  logger.info(
    record,
    `${title(config)} started: ${shown(spec.input.path)} -> ${shown(spec.output.path)}` +
      `${record.outputs.length > 1 ? ` (+${record.outputs.length - 1} more)` : ''}` +
      `${how.length === 0 ? '' : ` (${how.join(', ')})`}; geobatch ${geobatchVersion()}, Node ${process.version}`,
  );
  if (spec.dryRun !== true) logWindowLimits(logger, spec, selection);
}

/**
 * A batched job whose window holds fewer full requests than the run may send at once: elevation
 * (500 points a request) keeps about 4 of 16 in flight at the defaults, which against a service
 * answering in 100 ms took 2.6 times as long as a window of 8192 (README, Memory). Said once, at
 * the start, with the setting that would fill them; not for a try (`--limit`, `--sample`) whose
 * rows all fit in the window, nor for a file too small to hold more rows, where nothing is held
 * back.
 */
function logWindowLimits(logger: Logger, spec: RunSpec, selection: RowSelection): void {
  const window = spec.engine?.window ?? ENGINE_DEFAULTS.window;
  const rows = Math.min(
    selection.limit ?? Number.POSITIVE_INFINITY,
    selection.sample ?? Number.POSITIVE_INFINITY,
    rowsAtMost(spec.input.path),
  );
  if (rows <= window) return;
  const concurrency = spec.engine?.concurrency ?? ENGINE_DEFAULTS.concurrency;
  const jobs = spec.steps === undefined ? [spec.job] : spec.steps.map((step) => step.job);
  for (const job of jobs) {
    const batch = job.batching?.maxItems ?? 1;
    const inFlight = Math.max(1, Math.floor(window / batch));
    if (batch <= 1 || inFlight >= concurrency) continue;
    logger.info(
      {
        event: 'run.window',
        kind: job.kind,
        window,
        batchSize: batch,
        requestsInFlight: inFlight,
        concurrency,
      },
      `${job.kind}: run.window (${window} rows) keeps about ${inFlight} ${inFlight === 1 ? 'request' : 'requests'} of ${batch} rows in flight, of the ${concurrency} the run may send at once; run.window: ${concurrency * batch} would send them all, for more memory (README, Memory)`,
    );
  }
}

/**
 * The most rows an input file can hold, known before reading it: every row takes two bytes at
 * least (a value and a line end), so a file of 4 KiB holds no more than a default window. Unknown
 * (Infinity) for standard input or a file that cannot be looked at.
 */
function rowsAtMost(path: string): number {
  if (path === '-') return Number.POSITIVE_INFINITY;
  try {
    return Math.floor(statSync(path).size / 2);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

export function logRunEnd(logger: Logger, config: JobConfig, summary: RunSummary): void {
  const { rows, requests } = summary;
  const saved = requests.savedByDedup + requests.savedByBatching + requests.savedByLocalAnswers;
  logger.info(
    {
      event: 'run.end',
      job: config.name,
      kind: config.kind,
      ended: summary.ended,
      // A dry run's rows are planned, not written: a collector alerting on run.end tells them apart.
      dryRun: summary.dryRun,
      exitCode: summary.exitCode,
      error: summary.error === null ? null : { code: summary.error.code, message: summary.error.message },
      rows: { read: rows.read, written: rows.written, ok: rows.ok, failed: rows.failed },
      requests: { http: requests.http, sent: requests.sent, saved },
      durationMs: summary.timing.durationMs,
      output: summary.output?.written === true ? summary.output.path : null,
      outputs: summary.outputs.filter((output) => output.written).map((output) => output.path),
      errors: summary.report?.written === true ? summary.report.path : null,
      summary: summary.summaryFile,
      report: summary.runReport,
    },
    `${title(config)} ended ${summary.ended}${summary.dryRun ? ' (dry run)' : ''}, exit ${summary.exitCode}: ${rows.read} rows, ` +
      // HTTP requests, retries included, as `requests.http` counts them: the closing line's
      // "requests" are the requests made, which a retry does not add to.
      `${rows.ok} ok, ${rows.failed} failed; ${requests.http} HTTP request${requests.http === 1 ? '' : 's'}, ${saved} saved; ` +
      `${(summary.timing.durationMs / 1000).toFixed(1)} s`,
  );
}

/** A run refused before its first row (locked, checkpoint mismatch...): still an end record. */
export function logRunRefused(
  logger: Logger,
  config: JobConfig,
  error: unknown,
  startedAt: number,
  dryRun = false,
): void {
  const code = isGeobatchError(error) ? error.code : 'INTERNAL';
  const message = error instanceof Error ? error.message : String(error);
  const exitCode = exitStatusOf(code);
  logger.info(
    {
      event: 'run.end',
      job: config.name,
      kind: config.kind,
      ended: 'refused',
      dryRun,
      exitCode,
      error: { code, message },
      rows: { read: 0, written: 0, ok: 0, failed: 0 },
      requests: { http: 0, sent: 0, saved: 0 },
      durationMs: Date.now() - startedAt,
      output: null,
      outputs: [],
      errors: null,
      summary: null,
      report: null,
    },
    `${title(config)} refused${dryRun ? ' (dry run)' : ''}, exit ${exitCode}: ${code}`,
  );
}

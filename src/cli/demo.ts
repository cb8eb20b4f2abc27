/**
 * `geobatch demo`: every sample job in jobs/ against the embedded emulator, exactly as `geobatch
 * run --emulator` would run it, then a table and a check that each error report lists exactly the
 * failures planted in the samples (samples/expected-failures.json).
 */
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { parse } from 'csv-parse/sync';
import { emulatorEndpoints, loadJobFile } from '../config/load.js';
import { applyOverrides } from '../config/overrides.js';
import type { EmulatorHandle, RequestLogEntry } from '../emulator/index.js';
import { UsageError } from '../errors.js';
import { createLogger } from '../log.js';
import { assemble } from '../run/assemble.js';
import { type RunSummary, runJob } from '../run/run.js';
import { letSignalsGo } from './_early-signals.js';
import { DEMO_HELP } from './_help.js';
import { where } from './_summary.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Expected {
  readonly row: number;
  readonly id: string;
  readonly code: string;
}

export interface DemoResult {
  readonly file: string;
  readonly summary: RunSummary;
  /** Requests the emulator answered during this job (its own count, retries included). */
  readonly served: number;
  /**
   * Requests the job asked the emulator, each once: its distinct X-Request-Ids, so that the
   * retries of a request and its hedges (sent again while the first was slow, on a busy machine)
   * do not count again. What the job's batching promises is counted here.
   */
  readonly asked: number;
  /** Failures in the report that were not expected, and expected ones that are missing. */
  readonly unexpected: readonly string[];
  /** Whether samples/expected-failures.json names this job file: another's failures are not checked. */
  readonly checked: boolean;
}

/** The report's failed rows as `row:code`, whatever the report's format. */
async function reportedFailures(summary: RunSummary): Promise<Set<string>> {
  if (summary.report === null || summary.report.rows === 0) return new Set();
  const text = await readFile(summary.report.path, 'utf8');
  const records: { row: unknown; code: unknown }[] =
    summary.report.format === 'csv'
      ? (parse(text, { columns: true }) as Record<string, string>[]).map((r) => ({
          row: r.geobatch_row,
          code: r.geobatch_error,
        }))
      : text
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => JSON.parse(line) as { row: number; code: string });
  return new Set(records.map((r) => `${String(r.row)}:${String(r.code)}`));
}

function compare(expected: readonly Expected[], reported: ReadonlySet<string>): string[] {
  const wanted = new Set(expected.map((e) => `${e.row}:${e.code}`));
  return [
    ...[...reported].filter((r) => !wanted.has(r)).map((r) => `unexpected failure ${r}`),
    ...[...wanted].filter((w) => !reported.has(w)).map((w) => `expected failure missing ${w}`),
  ];
}

/**
 * Where the demo writes by default: the job files' own `out/` in a clone; in an installed package
 * (inside node_modules) `./geobatch-demo` in the working directory, never into node_modules.
 */
export function defaultDemoOutput(root = ROOT, cwd = process.cwd()): string | undefined {
  return root.split(sep).includes('node_modules') ? join(cwd, 'geobatch-demo') : undefined;
}

/**
 * Where a job writes in the demo: its own target; with `output`, the target's file name inside
 * that directory, whatever directory the job file names (`../out/` of a job file elsewhere would
 * climb out of it). A name two jobs share gets the job's name in front, so no job overwrites
 * another's. `format` sets the extension.
 */
function outputPath(
  target: string,
  job: string,
  options: DemoOptions,
  taken: Set<string>,
): string | undefined {
  const output = options.output ?? defaultDemoOutput();
  if (output === undefined && options.format === undefined) return undefined;
  const named = options.format === undefined ? target : target.replace(/\.[^./]+$/, `.${options.format}`);
  if (output === undefined) return named;
  const own = join(output, basename(named));
  const path = taken.has(own) ? join(output, `${job}.${basename(named)}`) : own;
  taken.add(path);
  return path;
}

/** The job file's own run report moves into `output` too; by default it is beside the output. */
function reportPath(runReport: string | false | undefined, output: string | undefined): string | undefined {
  return typeof runReport === 'string' && output !== undefined
    ? join(dirname(output), basename(runReport))
    : undefined;
}

/** Job files to run: geocode (the main job) first, then the rest by name. */
async function jobFiles(dir: string): Promise<string[]> {
  const names = (
    await readdir(dir).catch((error: NodeJS.ErrnoException) => {
      throw new UsageError(
        `--jobs: ${dir} ${error.code === 'ENOTDIR' ? 'is not a directory' : error.code === 'ENOENT' ? 'does not exist' : `cannot be read (${error.code ?? 'error'})`}`,
        { field: 'jobs', file: dir, expected: 'a directory of job files (.yaml, .yml, .json)', cause: error },
      );
    })
  )
    .filter((n) => /\.(ya?ml|json)$/.test(n))
    .sort();
  // An empty (or mistyped) directory ran nothing and closed with "every sample job finished".
  if (names.length === 0)
    throw new UsageError(`--jobs: ${dir} holds no job files`, {
      field: 'jobs',
      file: dir,
      expected: 'a directory of job files (.yaml, .yml, .json)',
    });
  const main = names.filter((n) => n.startsWith('geocode.'));
  return [...main, ...names.filter((n) => !main.includes(n))].map((n) => join(dir, n));
}

export interface DemoOptions {
  /** Directory of job files. @default the package's jobs/ */
  readonly jobs?: string;
  /**
   * Directory for every file the demo writes, wherever the job files point (see outputPath).
   * @default see defaultDemoOutput
   */
  readonly output?: string;
  /** Output format instead of each job file's. */
  readonly format?: 'csv' | 'ndjson' | 'geojson';
  /** A running emulator to use (and leave running); by default one is started and stopped. */
  readonly emulator?: EmulatorHandle;
  readonly quiet?: boolean;
}

export async function runDemo(options: DemoOptions = {}): Promise<DemoResult[]> {
  const expected = JSON.parse(
    await readFile(join(ROOT, 'samples', 'expected-failures.json'), 'utf8'),
  ) as Record<string, Expected[]>;
  const logger = createLogger({ level: options.quiet === false ? 'info' : 'warn' });
  const emulator =
    options.emulator ?? (await (await import('../emulator/index.js')).startEmulator({ preload: true }));
  const service = { endpoints: emulatorEndpoints(emulator.urls.origin), credentials: emulator.credentials };
  const results: DemoResult[] = [];
  const taken = new Set<string>();
  try {
    for (const file of await jobFiles(options.jobs ?? join(ROOT, 'jobs'))) {
      const loaded = await loadJobFile(file);
      const output = outputPath(loaded.output.path, jobName(file), options, taken);
      const report = reportPath(loaded.runReport, output);
      const config = applyOverrides(loaded, { service, output, format: options.format, report });
      // resume: a demo interrupted earlier continues instead of refusing to start.
      const { spec, client } = await assemble(config, { logger, resume: true, progress: false });
      const before = emulator.stats().total;
      const since = emulator.requestLog().at(-1)?.seq ?? 0;
      try {
        const summary = await runJob(spec);
        const served = emulator.stats().total - before;
        const asked = askedSince(emulator.requestLog(), since);
        // Keyed by job file (a kind may have several: address-search by position, address,
        // rectangle). A job of the user's (--jobs) is not held to a sample job's failures.
        // A sample job reads its sample: a user's `mine/geocode.yaml` over another input was held
        // to the sample's planted failures by its name alone, and failed the demo.
        const planted = (await readsItsSample(file, loaded.input.path)) ? expected[jobName(file)] : undefined;
        const unexpected = planted === undefined ? [] : compare(planted, await reportedFailures(summary));
        results.push({ file, summary, served, asked, unexpected, checked: planted !== undefined });
      } finally {
        await client.close();
      }
    }
  } finally {
    if (options.emulator === undefined) await emulator.close();
  }
  return results;
}

/**
 * Whether a job file is a sample job: the package's own, or one of its name elsewhere (a copy
 * with its paths made absolute) that reads the same input as the package's.
 */
async function readsItsSample(file: string, input: string): Promise<boolean> {
  const own = join(ROOT, 'jobs', basename(file));
  if (resolve(file) === resolve(own)) return true;
  const sample = await loadJobFile(own).catch(() => undefined);
  return sample !== undefined && resolve(sample.input.path) === resolve(input);
}

/** Distinct requests in the log after `since`: a request without an id counts on its own. */
function askedSince(log: readonly RequestLogEntry[], since: number): number {
  const ids = new Set<string>();
  for (const entry of log) if (entry.seq > since) ids.add(entry.requestId ?? `#${entry.seq}`);
  return ids.size;
}

/** A job file's name without its extension: `jobs/address-search-by-address.yaml` -> `address-search-by-address`. */
function jobName(file: string): string {
  return basename(file).replace(/\.[^.]+$/, '');
}

function table(results: readonly DemoResult[]): string {
  const header = ['job', 'rows', 'ok', 'failed', 'requests', 'seconds', 'failures as expected'];
  const rows = results.map(({ file, summary, served, unexpected, checked }) => [
    jobName(file),
    String(summary.rows.read),
    String(summary.rows.ok),
    String(summary.rows.failed),
    String(served),
    (summary.timing.durationMs / 1000).toFixed(2),
    summary.ended === 'stopped'
      ? `no: stopped (${summary.error?.code})`
      : !checked
        ? 'not a sample job'
        : unexpected.length === 0
          ? 'yes'
          : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function files(results: readonly DemoResult[]): string {
  const width = Math.max(...results.map(({ file }) => jobName(file).length));
  return results
    .flatMap(({ file, summary }) => [
      summary.output === null ? [] : [`  ${jobName(file).padEnd(width)} ${where(summary.output.path)}`],
      summary.report === null || summary.report.rows === 0
        ? []
        : [
            `  ${''.padEnd(width)} ${where(summary.report.path)} (error report, ${summary.report.rows} ${summary.report.rows === 1 ? 'row' : 'rows'})`,
          ],
    ])
    .flat()
    .join('\n');
}

export function demoCommand(): Command {
  return new Command('demo')
    .description('run every sample job against the embedded emulator and show what each did')
    .option('--jobs <dir>', 'directory of job files', join(ROOT, 'jobs'))
    .option('--output <dir>', 'write every output and report here, wherever the job files point')
    .addHelpText('after', DEMO_HELP)
    .action(async (flags: { jobs: string; output?: string }) => {
      // The demo keeps nothing to resume: a Ctrl-C ends it at once.
      letSignalsGo();
      const results = await runDemo({ jobs: flags.jobs, output: flags.output });
      process.stdout.write(`\n${table(results)}\n\nFiles:\n${files(results)}\n`);
      const problems = results.flatMap((r) => r.unexpected.map((u) => `${jobName(r.file)}: ${u}`));
      const stopped = results.filter((r) => r.summary.ended === 'stopped');
      if (problems.length > 0 || stopped.length > 0) {
        process.stdout.write(`\nNot as expected:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
        process.exitCode = 1;
      } else {
        const unchecked = results.filter((r) => !r.checked).length;
        process.stdout.write(
          unchecked === 0
            ? '\nEvery sample job finished; each error report holds exactly the planted failures.\n'
            : unchecked === results.length
              ? `\nEvery job finished; none is a sample job, so no error report was checked against planted failures.\n`
              : `\nEvery job finished; the error reports of the sample jobs hold exactly the planted failures (${unchecked} not a sample job, not checked).\n`,
        );
      }
    });
}

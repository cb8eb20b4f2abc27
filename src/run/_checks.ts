/**
 * What a run checks before it takes a lock or reads a row: the spec's values, the files it would
 * write (none may be the input, another of its files, or an existing directory), and the
 * directories they go to (each must exist or be creatable, and take new files).
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isPostgresUrl } from '../cache/_pg-url.js';
import { resolveEngineOptions } from '../engine/options.js';
import { type GeobatchError, IoError, isGeobatchError, UsageError, withContext } from '../errors.js';
import { refuseOtherLayers } from '../output/_gpkg-layers.js';
import { partialPath } from '../output/_sink.js';
import { checkStandardOutput } from '../output/_standard-output.js';
import { summaryPath } from '../output/summary.js';
import { refuseDirectories, type Target } from '../output/targets.js';
import { runReportPath } from '../report/index.js';
import { canonical } from './_canonical-path.js';
import { sameFile } from './_same-file.js';
import { summaryFileOf } from './_summary-facts.js';
import {
  makeDirectory,
  probeDirectory,
  probeFile,
  removeEmptyDirectories,
  whyUnwritable,
} from './_writable.js';
import { journalPath } from './checkpoint.js';
import { cannotCreate, lockPath } from './lock.js';
import { outputsOf, type RunSpec, type SideInputFile } from './spec.js';

/** What the checks of the files a run writes read of a spec (`geobatch validate` has no more). */
export type FilesSpec = Pick<
  RunSpec,
  'input' | 'output' | 'moreOutputs' | 'report' | 'runReport' | 'dryRun' | 'resume' | 'sideInputs'
>;

/** Where the HTML run report goes: as the spec says, else beside a file output; none for `-`. */
export function runReportOf(spec: Pick<RunSpec, 'runReport' | 'output'>): string | null {
  if (spec.runReport !== undefined) return spec.runReport;
  return spec.output.path === '-' ? null : runReportPath(spec.output.path);
}

/**
 * Throws USAGE for `restartIfChanged` without `resume`: without --resume a checkpoint is refused
 * before it is looked at, and the flag would do nothing. The command line asks before the run is
 * logged (a bad flag ends before any run); a library caller's spec is asked here.
 */
export function refuseRestartAlone(flags: {
  readonly restartIfChanged?: boolean;
  readonly resume?: boolean;
}): void {
  if (flags.restartIfChanged === true && flags.resume !== true)
    throw new UsageError('--restart-if-changed: only applies with --resume', {
      field: 'restartIfChanged',
      hint: 'Add --resume (a nightly job passes both), or drop --restart-if-changed.',
    });
}

/** Throws USAGE for a spec that cannot be run as given. */
export function validate(spec: RunSpec): void {
  resolveEngineOptions(spec.engine);
  checkFiles(spec);
  refuseRestartAlone(spec);
  for (const [name, value] of [
    ['checkpoint.intervalMs', spec.checkpoint?.intervalMs],
    ['requestsPerSecond', spec.requestsPerSecond],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      throw new UsageError(`Expected \`${name}\` to be a positive number, got \`${value}\``);
    }
  }
}

/** The files a run writes: outputs, error report and run report, each its own and none the input. */
export function checkFiles(spec: FilesSpec): void {
  const input = spec.input.path === '-' ? '-' : resolve(spec.input.path);
  const taken = checkOutputs(spec, input);
  const written = new Set([input, ...taken]);
  checkReports(spec, written, input);
  written.delete(input);
  checkSideInputs(spec.sideInputs ?? [], written);
}

/**
 * The request cache is a file of its own: named as an output or a report (`--cache out.csv`), the
 * run replaced the cache under itself, left its -wal beside the output, and the next night's run
 * stopped on "not an SQLite database", with `cache clear --force` as advice, which would delete
 * the output; named as the input or a side input, that advice would delete the user's data.
 */
export function checkCacheFile(location: string, spec: FilesSpec): void {
  if (isPostgresUrl(location)) return;
  checkOwnFile(location, spec, {
    name: `The request cache ${location}`,
    field: 'cache',
    expected: 'a file of its own for the request cache',
    hint: "give --cache (or GEOBATCH_CACHE, or the job file's cache:) a file of its own, such as out.cache.sqlite, or leave it out for the default cache; --no-cache for none",
  });
}

/**
 * The log file is a file of its own: named as the input (`--log-file data.csv`), the run appended
 * its log to the user's data and read its own lines back as rows; named as an output, the log was
 * lost when the output was put in place.
 */
export function checkLogFile(location: string, spec: FilesSpec): void {
  checkOwnFile(location, spec, {
    name: `The log file ${location}`,
    field: 'log-file',
    expected: 'a file of its own for the log',
    hint: 'give --log-file a file of its own, such as run.log',
  });
}

/** What a file the run keeps besides its data is called in a refusal, and what to do. */
interface OwnFile {
  readonly name: string;
  readonly field: string;
  readonly expected: string;
  readonly hint: string;
}

/** Refuses `location` when it is one of the files the run reads or writes, naming which. */
function checkOwnFile(location: string, spec: FilesSpec, own: OwnFile): void {
  const cache = canonical(location);
  const html = spec.dryRun === true ? null : runReportOf(spec);
  const written: [string, string][] = [
    ...outputsOf(spec).flatMap((output): [string, string][] =>
      output.path === '-' ? [] : [['an output', output.path]],
    ),
    ...(spec.report === null ? [] : [['the error report', spec.report.path] as [string, string]]),
  ];
  const files: [string, string | null][] = [
    ['the input', spec.input.path === '-' ? null : spec.input.path],
    ...(spec.sideInputs ?? []).map((side): [string, string] => [
      `${side.key}, a file the run reads`,
      side.path,
    ]),
    ...written,
    // The files beside them the run keeps while it writes: a cache there blocked every later run
    // (a checkpoint that reads as SQLite) or was deleted under the run (a .partial placed).
    ...written.flatMap(([role, file]): [string, string][] => [
      [`${role}'s .partial file`, partialPath(file)],
      [`${role}'s lock`, lockPath(file)],
    ]),
    ['the run report', html],
    ['the run summary', spec.output.path === '-' ? null : summaryPath(spec.output.path)],
    ["the run's checkpoint", spec.output.path === '-' ? null : journalPath(spec.output.path)],
  ];
  for (const [role, file] of files) {
    if (file === null || !sameFile(canonical(file), cache)) continue;
    throw new UsageError(`${own.name} is ${role} too`, {
      file: location,
      field: own.field,
      expected: own.expected,
      received: `${role}'s path`,
      hint: own.hint,
    });
  }
  // A file the run writes under it: the file made there (`--cache o33 -o o33/a.csv`) was then in
  // the way of the output's directory, and the run refused it only once the file was made.
  for (const [role, file] of written) {
    const inside = relative(cache, canonical(file));
    if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) continue;
    throw new UsageError(`${own.name} is the directory ${role}, ${file}, goes in`, {
      file: location,
      field: own.field,
      expected: own.expected,
      received: `the directory of ${role}`,
      hint: own.hint,
    });
  }
}

/**
 * No file the run writes is one a step reads whole (a matrix's destinations): the output renamed
 * over it would replace the user's file, and a resumed run would read its own output as input.
 */
function checkSideInputs(sides: readonly SideInputFile[], written: ReadonlySet<string>): void {
  for (const side of sides) {
    if (side.path === '-') continue;
    const read = resolve(side.path);
    const file = [...written].find((path) => sameFile(path, read));
    if (file === undefined) continue;
    throw new UsageError(
      `The run would write ${file}, which is ${side.key} (${side.path}), a file it reads`,
      {
        file,
        path: side.key,
        hint: 'write the output, the error report and the run report to files of their own',
      },
    );
  }
}

/** The outputs: `-` alone, none the input, none twice. Resolves to their absolute paths. */
function checkOutputs(spec: FilesSpec, input: string): Set<string> {
  const outputs = outputsOf(spec);
  checkStandardOutput(outputs);
  if (spec.resume === true && spec.output.path === '-') {
    throw new UsageError('A run writing to standard output cannot be resumed', {
      hint: 'Write to a file to use --resume.',
    });
  }
  const seen = new Set<string>();
  for (const output of outputs) {
    if (output.path === '-') continue;
    const path = canonical(output.path);
    if (sameFile(path, input))
      throw new UsageError(`The output ${output.path} is the input: writing it would overwrite the input`, {
        file: output.path,
        hint: "Name another output (the job file's output: or outputs:, or -o).",
      });
    if (seen.has(path)) {
      throw new UsageError(`The output ${output.path} is named twice (the job file's outputs:, or -o)`, {
        file: output.path,
        hint: 'Name each output once; each is written in the format of its extension.',
      });
    }
    seen.add(path);
  }
  return seen;
}

/** The error report and the run report: files of their own, neither an output, the input nor each other. */
function checkReports(spec: FilesSpec, taken: Set<string>, input: string): void {
  const outputs = new Set(taken);
  const own = (role: string, file: string) => {
    if (file === '-')
      throw new UsageError(`The ${role} needs a file path, not \`-\``, {
        file,
        expected: `a file path for the ${role}`,
        received: '-',
        hint: `Name a file for the ${role} (${NAMED_BY[role] ?? role}).`,
      });
    const path = canonical(file);
    if (taken.has(path) || sameFile(path, input)) {
      // Which file it is too: "a file of its own" alone left the user to guess (an error report
      // fed back as the input, with its default name, is the common case).
      const also = sameFile(path, input) ? 'the input' : outputs.has(path) ? 'an output' : 'the error report';
      throw new UsageError(`The ${role} ${file} must be a file of its own: it is also ${also}`, {
        file,
        expected: `a file of its own for the ${role}`,
        received: `${also}'s path`,
        hint: `Name another file for the ${role} (${NAMED_BY[role] ?? role}).`,
      });
    }
    taken.add(path);
  };
  if (spec.report !== null) own('error report', spec.report.path);
  const html = spec.dryRun === true ? null : runReportOf(spec);
  if (html !== null) own('run report', html);
}

/**
 * The files whose `.lock` a run holds: every output (the first first, its lock named in LOCKED
 * messages and the checkpoint's hint) and the error report. Two runs of different jobs writing
 * one of them (a shared second output, one `errors:` path) would write one `.partial` file at
 * once, so each is locked, not only the first output.
 */
export function lockedFiles(spec: Pick<RunSpec, 'output' | 'moreOutputs' | 'report'>): string[] {
  const files = [...outputsOf(spec).map((o) => o.path), ...(spec.report === null ? [] : [spec.report.path])];
  const seen = new Set<string>();
  return files.filter((file) => {
    const path = resolve(file);
    if (file === '-' || seen.has(path)) return false;
    seen.add(path);
    return true;
  });
}

/** The checkpoint a run keeps: none for output to `-` or with checkpoints off. */
export function checkpointOf(spec: Pick<RunSpec, 'output' | 'checkpoint'>): string | undefined {
  if (spec.output.path === '-' || spec.checkpoint?.enabled === false) return undefined;
  return spec.checkpoint?.path ?? journalPath(spec.output.path);
}

/**
 * Throws USAGE for a file the run would write that is an existing directory, or a GeoPackage
 * output's file that holds other layers (output/_gpkg-layers.ts). Resuming a checkpoint, the fix
 * for an output or the error report is to move the file or directory away, not to name another
 * file (the hint of output/targets.ts): the checkpoint continues the files at these paths, and
 * another path would not resume it.
 */
export async function refuseDirectoryTargets(spec: RunSpec): Promise<void> {
  const all = targets(spec);
  try {
    await refuseDirectories(all);
    refuseOtherLayers(outputsOf(spec));
  } catch (error) {
    if (!isGeobatchError(error) || spec.resume !== true) throw error;
    const file = error.context.file;
    const role = all.find((target) => target.path === file)?.role;
    const checkpoint = checkpointOf(spec);
    if ((role !== 'output' && role !== 'error report') || checkpoint === undefined || !existsSync(checkpoint))
      throw error;
    throw withContext(error, {
      ...error.context,
      hint: `Move ${file} away, then run again with --resume: the checkpoint ${checkpoint} continues the files at these paths, so another path would not resume it.`,
    });
  }
}

/** Every file the run may write: none of them may be an existing directory. */
export function targets(spec: RunSpec): Target[] {
  const outputs = outputsOf(spec);
  const list: Target[] = outputs.map((output) => ({
    role: 'output',
    path: output.path,
    suggest: `result.${output.format}`,
  }));
  if (spec.report !== null)
    list.push({ role: 'error report', path: spec.report.path, suggest: `errors.${spec.report.format}` });
  const first = spec.output.path;
  if (spec.dryRun === true || first === '-') return list;
  for (const file of [...outputs.map((o) => o.path), ...(spec.report === null ? [] : [spec.report.path])])
    list.push({ role: 'temporary file', path: partialPath(file), inPlace: true });
  for (const file of lockedFiles(spec)) list.push({ role: 'lock', path: lockPath(file), inPlace: true });
  list.push({ role: 'summary', path: summaryFileOf(spec) ?? '-' });
  const html = runReportOf(spec);
  if (html !== null) list.push({ role: 'run report', path: html, suggest: 'report.html' });
  const checkpoint = checkpointOf(spec);
  if (checkpoint !== undefined) list.push({ role: 'checkpoint', path: checkpoint });
  return list;
}

/** Where the user names each file a run writes, for hints. */
const NAMED_BY: Readonly<Record<string, string>> = {
  output: "-o, or the job file's output:",
  'error report': "-e, or the job file's errors:",
  'run report': "--report, or the job file's report:",
};

/**
 * Outputs and reports may go to directories that do not exist yet (a fresh `out/`). A directory
 * that cannot be made or written is a path the user must change (USAGE, like a directory named
 * as the output), found before the lock is taken; a full disk or the like stays IO_ERROR.
 */
export async function makeDirectories(spec: RunSpec): Promise<string[]> {
  const made: string[] = [];
  for (const { role, path } of placedFiles(spec)) {
    if (path === '-') continue;
    const directory = dirname(resolve(path));
    try {
      made.push(...makeDirectory(directory));
      await access(directory, constants.W_OK);
    } catch (cause) {
      removeEmptyDirectories(made);
      throw unwritable(role, path, cause);
    }
  }
  return made;
}

/**
 * `geobatch validate`'s look at where the outputs and reports go, creating nothing: what
 * `refuseDirectoryTargets` and `makeDirectories` would refuse as the run starts (an existing
 * directory named as a file, a GeoPackage holding other layers, a file in the way of a directory,
 * a directory that cannot be written) is refused in the same words. A directory that does not exist yet passes.
 */
export async function checkPlaces(spec: FilesSpec): Promise<void> {
  const files = placedFiles(spec);
  await refuseDirectories(
    files.map(({ role, path }) => ({
      role,
      path,
      ...(role === 'run report' ? { suggest: 'report.html' } : {}),
      ...(role === 'output' || role === 'error report' ? { suggest: suggestionOf(spec, role, path) } : {}),
    })),
  );
  refuseOtherLayers(outputsOf(spec));
  for (const { role, path } of files) {
    if (path === '-') continue;
    try {
      await probeDirectory(dirname(resolve(path)));
    } catch (cause) {
      throw unwritable(role, path, cause);
    }
  }
  // Then the run creates its locks, in their order: a directory that refuses a new file though
  // access() lets it be written (/proc, /sys for root) is refused in the lock's words.
  for (const file of lockedFiles(spec)) {
    try {
      await probeFile(dirname(resolve(file)));
    } catch (cause) {
      throw cannotCreate(lockPath(file), cause);
    }
  }
}

/** The file name `targets` offers inside a directory named as an output or the error report. */
function suggestionOf(spec: FilesSpec, role: string, path: string): string {
  if (role === 'error report') return `errors.${spec.report?.format ?? 'csv'}`;
  return `result.${outputsOf(spec).find((output) => output.path === path)?.format ?? 'csv'}`;
}

/** The outputs, the error report and the run report, by role: the files whose directories a run makes. */
function placedFiles(spec: FilesSpec): { role: string; path: string }[] {
  const html = runReportOf(spec);
  return [
    ...outputsOf(spec).map((output) => ({ role: 'output', path: output.path })),
    ...(spec.report === null ? [] : [{ role: 'error report', path: spec.report.path }]),
    ...(html === null ? [] : [{ role: 'run report', path: html }]),
  ];
}

function unwritable(role: string, path: string, cause: unknown): GeobatchError {
  const problem = whyUnwritable(path, cause, `the ${role} (${NAMED_BY[role] ?? role})`);
  if (problem === undefined) {
    return new IoError('IO_ERROR', `Cannot create the directory for ${path}: ${(cause as Error).message}`, {
      file: path,
      hint: 'Check free disk space and permissions.',
      cause,
    });
  }
  return new UsageError(`The ${role} ${path} cannot be written: ${problem.reason}`, {
    file: path,
    expected: 'a file path in a directory that can be written',
    received: problem.reason,
    hint: `${problem.fix}.`,
    cause,
  });
}

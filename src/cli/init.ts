/**
 * `geobatch init <input>`: a commented job file for an input, from its first rows. The kind and
 * the mapping are guessed (see _candidates.ts for the rule, _columns.ts for the names); what was
 * guessed is said on standard error, and what could not be is left as TODO in the file.
 */
import { access, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { directoryName } from '../config/_paths.js';
import { IoError, isGeobatchError, UsageError } from '../errors.js';
import { formatFromPath, inputFile, openReader, sniffCsvFile } from '../input/open.js';
import type { InputEncoding, InputFormat } from '../input/reader.js';
import { JOB_KIND_NAMES, jobKind } from '../jobs/index.js';
import { colourWanted } from '../log.js';
import { makeDirectory, whyUnwritable } from '../run/_writable.js';
import { shellWord } from '../shell-word.js';
import type { Row } from '../types.js';
import { evaluate, type InputHead, rankKinds } from './_candidates.js';
import { initHelp } from './_help.js';
import { guessDecimal } from './_init-decimal.js';
import { draftText } from './_init-draft.js';
import { describeInit, type InitResult } from './_init-notes.js';
import type { CsvDialect } from './_job-yaml.js';
import { utmColumns } from './_options-guess.js';

export type { InitResult } from './_init-notes.js';

/** Rows read to guess from: enough to see past a few bad ones, few enough to be instant. */
const HEAD_ROWS = 200;

export interface InitOptions {
  readonly kind?: string;
  /** The job file to write; `-` writes standard output. @default `<input name>.<kind>.yaml` */
  readonly output?: string;
  readonly format?: string;
  readonly force?: boolean;
}

async function readRows(path: string, format: InputFormat, encoding: InputEncoding) {
  const reader = await openReader({ path, format, encoding });
  const rows: Row[] = [];
  let items = 0;
  for await (const item of reader) {
    if (item.kind === 'row') rows.push(item);
    // Leaving the loop closes the file: the rest is not read.
    if (++items >= HEAD_ROWS) break;
  }
  return { rows, columns: [...reader.columns()] };
}

/** The input's first rows; a file that is not UTF-8 is read as windows-1252, and says so. */
export async function readHead(path: string, flagFormat?: string): Promise<InputHead> {
  if (path === '-')
    throw new UsageError('init reads the first rows of a file: name the input file, not `-`', {
      field: 'input',
    });
  // Node resolves '' to the working directory, which was then refused as "does not exist".
  if (path.trim() === '')
    throw new UsageError('no input file named: the path is empty', {
      field: 'input',
      expected: 'the path of a CSV, NDJSON or GeoJSON file',
      received: JSON.stringify(path),
      hint: 'Name the input file whose first rows init reads.',
    });
  // `in.csv/` names a directory whatever is there, as run's -i says; it read "does not exist".
  const slash = directoryName(path);
  if (slash !== undefined)
    throw new UsageError(`init: ${slash}`, {
      field: 'input',
      file: path,
      expected: 'the path of a file',
      received: path,
    });
  // A missing file or a directory is said as such, not as a name whose format cannot be told.
  await inputFile(path);
  const format = (flagFormat ?? formatFromPath(path)) as InputFormat | undefined;
  if (format === undefined || !['csv', 'ndjson', 'geojson'].includes(format)) {
    throw new UsageError(`--format: cannot tell the format of ${path} from its name`, {
      field: 'format',
      expected: 'csv, ndjson or geojson',
      received: format ?? extname(path),
      hint: 'Add --format csv (or ndjson, geojson).',
    });
  }
  const absolute = resolve(path);
  const head = await readFirstRows(absolute, format);
  if (head.columns.length === 0 && head.rows.length === 0) await refuseEmpty(path, absolute);
  return head;
}

async function readFirstRows(path: string, format: InputFormat): Promise<InputHead> {
  let head: InputHead;
  try {
    head = { path, format, ...(await readRows(path, format, 'utf-8')) };
  } catch (error) {
    if (!isGeobatchError(error) || error.code !== 'INPUT_ENCODING') throw error;
    const encoding = 'windows-1252';
    head = { path, format, encoding, ...(await readRows(path, format, encoding)) };
  }
  return format === 'csv' ? { ...head, dialect: await csvDialect(path, head.rows) } : head;
}

/** How the CSV input is written, from its first bytes (as the reader sees them) and first rows. */
async function csvDialect(path: string, rows: readonly Row[]): Promise<CsvDialect> {
  return { ...(await sniffCsvFile(path)), ...guessDecimal(rows) };
}

/** Nothing to guess from: said as such, not as "no job kind can read it (columns: none)". */
async function refuseEmpty(path: string, absolute: string): Promise<never> {
  const empty = (await stat(absolute)).size === 0;
  throw new UsageError(
    `${path}: ${empty ? 'the file is empty' : 'no header and no row could be read from it'}; init guesses the job from a header and the first rows`,
    {
      field: 'input',
      file: path,
      expected: 'a header line, or at least one record',
      received: empty ? 'an empty file' : 'no header and no record',
      hint: 'Check that the path names the file you meant, and that it was written completely.',
    },
  );
}

function defaultJobName(head: InputHead, kind: string): string {
  return `${basename(head.path, extname(head.path))}.${kind}.yaml`;
}

/** The kind and its candidate: the one named with --kind, else the best guess. */
async function choose(head: InputHead, jobPath: string, forced?: string) {
  const ranked = await rankKinds(head, jobPath);
  if (forced !== undefined) {
    const kind = jobKind(forced);
    if (kind === undefined) {
      throw new UsageError(`--kind: unknown job kind \`${forced}\``, {
        field: 'kind',
        expected: JOB_KIND_NAMES.join(', '),
        received: forced,
      });
    }
    const others = ranked.map((c) => c.kind.name).filter((name) => name !== forced);
    return { candidate: await evaluate(kind, head, jobPath), alternatives: others };
  }
  const [best, ...rest] = ranked;
  if (best === undefined) {
    const utm = utmColumns(head.columns, head.rows);
    const why =
      utm === undefined
        ? ''
        : `; ${utm.join(' and ')} look like UTM metres (zone 32N or 33N, EPSG:25832 or 25833), which no coordFormat reads`;
    throw new UsageError(
      `no job kind can read ${basename(head.path)} as it stands (columns: ${head.columns.join(', ') || 'none'})${why}`,
      {
        field: 'kind',
        hint:
          utm === undefined
            ? `Name the kind with --kind (${JOB_KIND_NAMES.join(', ')}): init then writes the file with a TODO for each field it cannot map.`
            : 'Convert the coordinates to WGS84 degrees first (in QGIS, or `ogr2ogr -s_srs EPSG:25832 -t_srs EPSG:4326`), or to SUPERKONFORM or MERCATOR, which coordFormat reads; then run init on the converted file.',
      },
    );
  }
  return { candidate: best, alternatives: rest.map((c) => c.kind.name) };
}

/**
 * A directory named as the job file is refused before --force is looked at: overwriting it
 * failed with a bare EISDIR, and the refusal of an existing file offered --force for it.
 */
async function refuseDirectory(path: string, suggest: string): Promise<void> {
  // A trailing slash names a directory, existing or not: `-o drafts/` wrote a file called drafts.
  const directory =
    directoryName(path) !== undefined ||
    path.endsWith('\\') ||
    (await stat(resolve(path)).then(
      (info) => info.isDirectory(),
      () => false,
    ));
  if (directory)
    throw new UsageError(`-o/--output: ${path} is a directory, not a job file`, {
      field: 'output',
      file: path,
      expected: 'the path of the job file to write',
      received: 'a directory',
      hint: `Name the file in it: -o ${shellWord(join(path, suggest))}`,
    });
}

async function refuseExisting(path: string, force: boolean): Promise<void> {
  if (force) return;
  const exists = await access(path).then(
    () => true,
    () => false,
  );
  if (exists)
    throw new UsageError(`-o/--output: ${path} exists; init does not overwrite a job file`, {
      field: 'output',
      file: path,
      hint: 'Name another file with -o, or add --force to overwrite it.',
    });
}

export async function initJobFile(input: string, options: InitOptions = {}): Promise<InitResult> {
  const head = await readHead(input, options.format);
  const toStdout = options.output === '-';
  // Until the kind is known, relative paths are planned from the folder the file will be in.
  const planned = resolve(toStdout || options.output === undefined ? 'job.yaml' : options.output);
  const { candidate, alternatives } = await choose(head, planned, options.kind);
  const jobPath = toStdout ? planned : resolve(options.output ?? defaultJobName(head, candidate.kind.name));
  const shownPath = toStdout ? resolve(defaultJobName(head, candidate.kind.name)) : jobPath;
  const kindFlag = options.kind === undefined ? '' : ` --kind ${options.kind}`;
  const { text, todos } = draftText(candidate, {
    head,
    jobPath: shownPath,
    alternatives,
    // The input as it was given, directory and all, so that the command runs again where it ran.
    command: `\`geobatch init ${shellWord(input)}${kindFlag}\``,
  });
  if (toStdout) process.stdout.write(text);
  else {
    // As written: resolving drops the trailing slash that names a directory.
    await refuseDirectory(
      options.output === undefined ? jobPath : options.output,
      defaultJobName(head, candidate.kind.name),
    );
    await refuseExisting(jobPath, options.force === true);
    // A draft's directory is made as a run makes its outputs'; a file that cannot be written is
    // said in words, not as a bare ENOENT or ENOTDIR.
    try {
      makeDirectory(dirname(jobPath));
      await writeFile(jobPath, text);
    } catch (cause) {
      const problem = whyUnwritable(
        jobPath,
        cause,
        'the job file (-o)',
        defaultJobName(head, candidate.kind.name),
      );
      if (problem !== undefined)
        throw new UsageError(`-o/--output: cannot write ${jobPath}: ${problem.reason}`, {
          field: 'output',
          file: jobPath,
          expected: 'a file path in a directory that can be written',
          received: problem.reason,
          hint: `${problem.fix}, or print the draft with -o -.`,
          cause,
        });
      throw new IoError('IO_ERROR', `Cannot write the job file ${jobPath}: ${(cause as Error).message}`, {
        file: jobPath,
        hint: 'Choose a directory you can write to with -o, or print the draft with -o -.',
        cause,
      });
    }
  }
  return { text, candidate, todos, written: toStdout ? '-' : jobPath, alternatives, head };
}

interface InitFlags {
  kind?: string;
  output?: string;
  format?: string;
  force?: boolean;
}

export function initCommand(): Command {
  return new Command('init')
    .description('write a commented job file for an input, guessing the job kind and the mapping')
    .argument('<input>', 'input file (CSV, NDJSON or GeoJSON): its first rows are read')
    .addOption(new Option('-k, --kind <kind>', 'the job kind, instead of the guess').choices(JOB_KIND_NAMES))
    .option('-o, --output <job>', 'job file to write (`-` = standard output; default <input>.<kind>.yaml)')
    .addOption(
      new Option('-f, --format <format>', "the input's format, when its extension does not say").choices([
        'csv',
        'ndjson',
        'geojson',
      ]),
    )
    .option('--force', 'overwrite an existing job file')
    .addHelpText('after', initHelp())
    .action(async (input: string, flags: InitFlags) => {
      const result = await initJobFile(input, flags);
      const colour = colourWanted(process.env, process.stderr.isTTY === true);
      process.stderr.write(`${describeInit(result, colour, flags.kind !== undefined)}\n`);
    });
}

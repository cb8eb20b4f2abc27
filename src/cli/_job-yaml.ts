/**
 * The job file `geobatch init` writes: YAML with a comment on every line that says what it is,
 * why it was guessed, and what is left to do (TODO). Made from the kind's registry record alone
 * (mapping fields, option schema and docs), so that it fits every kind, including ones added later.
 */
import { basename, dirname, extname, isAbsolute, relative, sep } from 'node:path';
import { stringify } from 'yaml';
import type { z } from 'zod';
import { defaultErrorsPath } from '../config/load.js';
import type { JobKind } from '../jobs/index.js';
import { OUTPUT_EXTENSIONS } from '../output/writer.js';
import { shellWord } from '../shell-word.js';
import type { Row } from '../types.js';
import type { ColumnGuess } from './_columns.js';
import { type DecimalMix, mixNote } from './_init-decimal.js';
import type { OptionGuess } from './_options-guess.js';

/** What init read of the input. */
export interface InputHead {
  /** Absolute. */
  readonly path: string;
  readonly format: 'csv' | 'ndjson' | 'geojson';
  /** Set when the input is not UTF-8 and init found the encoding that reads it. */
  readonly encoding?: string;
  readonly columns: readonly string[];
  /** The first rows (up to init's look-ahead), records that could not be read left out. */
  readonly rows: readonly Row[];
  /** CSV: how the file is written, which the drafted CSV output follows (see csvDialect in init.ts). */
  readonly dialect?: CsvDialect;
}

/** A CSV input's way of writing: what the program that wrote it (German Excel, say) reads back. */
export interface CsvDialect {
  readonly delimiter: string;
  /** It starts with a UTF-8 byte order mark (Excel's "CSV UTF-8"). */
  readonly bom: boolean;
  /** Its numbers have a decimal comma (`1.234,50`, `6,95`): a clear majority of those with a mark. */
  readonly decimalComma: boolean;
  /** Any of the rows read holds a number with a decimal mark, either one. */
  readonly decimalNumbers?: boolean;
  /** The numbers the guess does not read, or both kinds when none was guessed: a TODO in the draft. */
  readonly decimalMix?: DecimalMix;
}

/** A mapping key init could not fill, written so that the file does not load (see _init-todo.ts). */
export interface Todo {
  /** The mapping key left to set. */
  readonly field: string;
  /** What is known of it: the comment beside the key, and init's TODO line on standard error. */
  readonly why: string;
  /** The column a CSV draft's key reads: a name no header has, which says what to do. */
  readonly placeholder: string;
}

export interface JobDraft {
  readonly kind: JobKind;
  readonly head: InputHead;
  /** Absolute path the job file will have: its relative paths start from its folder. */
  readonly jobPath: string;
  readonly mapping: ReadonlyMap<string, ColumnGuess>;
  /** Unmapped keys written with a value that keeps the file from loading until they are set. */
  readonly todos?: readonly Todo[];
  /** The comment beside a field left unmapped, instead of "no column found". */
  readonly notes?: ReadonlyMap<string, string>;
  /** What keeps the file from running as written; each is a TODO at the top. */
  readonly problems: readonly string[];
  /** Options read off the values, written uncommented with the reason. */
  readonly options?: ReadonlyMap<string, OptionGuess>;
  /** Other kinds that could read the input. */
  readonly alternatives: readonly string[];
  /** How init was called, for the header. */
  readonly command?: string;
}

const FORMAT_NAMES = { csv: 'CSV', ndjson: 'NDJSON', geojson: 'GeoJSON' } as const;

/** Where comments start, so that they line up. */
const COMMENT_AT = 30;

function scalar(value: string): string {
  return stringify(value).trimEnd();
}

function line(text: string, comment?: string): string {
  if (comment === undefined) return text;
  return `${text.padEnd(Math.max(COMMENT_AT, text.length + 2))}# ${comment}`;
}

/** The docs' Markdown (`code`, \|) as plain text for a comment. */
function plain(doc: string): string {
  return doc.replace(/`/g, '').replace(/\\\|/g, '|');
}

/**
 * A path as the job file writes it: relative to the job file, so that the two can move together;
 * absolute when they share nothing but the root (`../../../data/x.csv` would say less).
 */
function fromJob(jobPath: string, target: string): string {
  const base = dirname(jobPath);
  const near = relative(base, target);
  const climbs = near.split(sep).filter((part) => part === '..').length;
  const depth = base.split(sep).filter((part) => part !== '').length;
  return isAbsolute(near) || (climbs > 0 && climbs >= depth) ? target : near;
}

/**
 * The output init proposes: out/<input name>.<kind>.<the input's extension>, beside the job file;
 * the format's own extension when geobatch does not write that one (a `.geojsonl` input, a `.dat`
 * read with --format csv): a draft naming it was refused when it loaded.
 */
export function outputOf(draft: Pick<JobDraft, 'kind' | 'head'>): string {
  const name = basename(draft.head.path, extname(draft.head.path));
  const given = extname(draft.head.path);
  const writable = OUTPUT_EXTENSIONS[given.toLowerCase()] === draft.head.format;
  return `out/${name}.${draft.kind.name}${writable ? given : `.${draft.head.format}`}`;
}

/** The header, its commands with the job file's name quoted for a shell (`'#1 Kunden.yaml'`). */
function header(draft: JobDraft, jobName: string): string[] {
  const { kind } = draft;
  const job = shellWord(jobName);
  const lines = [
    `# A geobatch ${kind.name} job, written by ${draft.command ?? '`geobatch init`'}.`,
    '# Check every line marked TODO or "guessed", then:',
    `#   geobatch validate ${job}`,
    `#   geobatch run ${job} --emulator --limit 50    # a try on the emulator, no key needed`,
    `#   geobatch run ${job}                          # against the service (README: Against the real service)`,
    '#',
    `# ${kind.name}: ${kind.summary}`,
  ];
  if (draft.alternatives.length > 0)
    lines.push(
      `# Other kinds that can read this input: ${draft.alternatives.join(', ')} (geobatch init --kind <kind>).`,
    );
  lines.push(`# The input's columns: ${draft.head.columns.join(', ') || '(none found)'}`);
  for (const problem of draft.problems) lines.push(`# TODO: ${problem}`);
  return lines;
}

/**
 * The input: a path, with what init found of how the file is written. Numbers with a decimal
 * comma (the dialect's guess, as the output's `decimal` follows it) are declared, so that `1.500`
 * is read as the thousand it is there rather than asked about.
 */
function inputLines(draft: JobDraft): string[] {
  const path = scalar(fromJob(draft.jobPath, draft.head.path));
  const format = `${FORMAT_NAMES[draft.head.format]}; paths are relative to this file`;
  const { encoding, dialect } = draft.head;
  const mix = dialect?.decimalMix;
  if (encoding === undefined && dialect?.decimalComma !== true && mix === undefined)
    return [line(`input: ${path}`, format)];
  return [
    'input:',
    line(`  path: ${path}`, format),
    ...(encoding === undefined
      ? []
      : [line(`  encoding: ${encoding}`, 'guessed: the file is not UTF-8, and reads as this')]),
    // A mix is said above the key, where it is not cut short by the column of comments.
    ...(mix === undefined ? [] : wrap(mixNote(mix)).map((text) => `  # ${text}`)),
    ...(dialect?.decimalComma === true
      ? [line('  decimal: ","', 'guessed: its numbers have a decimal comma, `.` grouping thousands')]
      : mix === undefined
        ? []
        : [line('  # decimal: ","', 'TODO: "," or ".", as said above')]),
  ];
}

/**
 * A TODO key's value: for CSV its placeholder column, which the header check refuses; NDJSON and
 * GeoJSON have no header to check, so no column at all, which the loader refuses.
 */
function todoValue(todo: Todo, format: InputHead['format']): string {
  return format === 'csv' ? scalar(todo.placeholder) : '{ column: null }';
}

/** A field's line: its column, else its TODO key, else commented with the word on why. */
function fieldLine(draft: JobDraft, field: string): string {
  const guess = draft.mapping.get(field);
  if (guess !== undefined) return line(`  ${field}: ${scalar(guess.column)}`, `guessed ${guess.reason}`);
  const todo = draft.todos?.find((key) => key.field === field);
  if (todo !== undefined)
    return line(`  ${field}: ${todoValue(todo, draft.head.format)}`, `TODO: ${todo.why}`);
  const note = draft.notes?.get(field);
  if (note !== undefined) return line(`  # ${field}:`, note);
  if (pointsInGeometry(draft.head) && (field === 'lon' || field === 'lat'))
    return line(`  # ${field}:`, "not needed: each feature's Point geometry is read");
  return line(`  # ${field}:`, 'no column found');
}

function mappingLines(draft: JobDraft): string[] {
  const { kind } = draft;
  const lines = [
    '',
    `# mapping: the column (or a constant, \`field: { value: DE }\`) each request field reads.`,
  ];
  lines.push(...wrap(`${kind.name} reads: ${plain(kind.docs.mapping)}`).map((text) => `# ${text}`));
  const on = draft.mapping.size > 0 || (draft.todos ?? []).length > 0;
  lines.push(on ? 'mapping:' : '# mapping:');
  for (const field of kind.mappingFields) lines.push(fieldLine(draft, field));
  return lines;
}

export function pointsInGeometry(head: JobDraft['head']): boolean {
  return head.rows.some((row) => row.geometry?.type === 'Point');
}

function isRequired(schema: z.ZodType | undefined): boolean {
  return schema !== undefined && !schema.safeParse(undefined).success;
}

function optionLines(kind: JobKind, guessed: ReadonlyMap<string, OptionGuess> = new Map()): string[] {
  const shape = kind.options.shape as Readonly<Record<string, z.ZodType>>;
  const docs = kind.docs.options as Readonly<Record<string, string>>;
  const keys = Object.keys(shape);
  const required = keys.filter((key) => isRequired(shape[key]));
  const lines = ['', '# options, each with its default; uncomment a line to change it.'];
  lines.push(required.length > 0 || guessed.size > 0 ? 'options:' : '# options:');
  for (const key of keys) {
    const doc = plain(docs[key] ?? '');
    const guess = guessed.get(key);
    if (guess !== undefined) lines.push(line(`  ${key}: ${stringify(guess.value).trimEnd()}`, guess.reason));
    else if (required.includes(key)) lines.push(line(`  ${key}:`, `TODO (required): ${doc}`));
    else lines.push(line(`  # ${key}:`, doc));
  }
  return lines;
}

/** Splits a long comment at spaces so it stays readable. */
function wrap(text: string, width = 96): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    if (current !== '' && current.length + word.length + 1 > width) {
      out.push(current);
      current = `  ${word}`;
    } else current = current === '' ? word : `${current} ${word}`;
  }
  if (current !== '') out.push(current);
  return out;
}

const OUTPUT_COMMENT = "the input's columns and the job's; the extension sets the format";

/**
 * The output, written the way the input is when that is not plain CSV: a file from German Excel
 * (`;`, decimal commas, a byte order mark) should open in it again as it came, not as one column.
 */
function outputLines(draft: JobDraft, output: string): string[] {
  const dialect = draft.head.dialect;
  const ext = extname(output).toLowerCase();
  const tsv = ext === '.tsv';
  const csv = ext === '.csv' || ext === '.txt' || tsv;
  const delimiter = dialect === undefined || (tsv && dialect.delimiter === '\t') ? ',' : dialect.delimiter;
  // A `;` file whose rows show no decimal at all was still most likely written where `;` is the
  // list separator because `,` is the decimal mark (Excel in German): the output's coordinates
  // with points would be read there as thousands (13.7366 as 137366) or as text.
  const semicolonOnly = dialect?.decimalNumbers === false && delimiter === ';';
  const decimal = (dialect?.decimalComma === true || semicolonOnly) && (delimiter !== ',' || tsv);
  // Output is UTF-8: Excel reads it right only after a byte order mark, and a windows-1252 input
  // was most likely written by Excel's plain "CSV" (its "CSV UTF-8" writes the mark itself).
  const bom =
    dialect?.bom === true
      ? 'the input starts with one (Excel)'
      : draft.head.encoding !== undefined
        ? 'the input is windows-1252; Excel reads UTF-8 right only after one'
        : undefined;
  if (!csv || dialect === undefined || (delimiter === ',' && bom === undefined && !decimal))
    return [line(`output: ${scalar(output)}`, OUTPUT_COMMENT)];
  const shown = delimiter === '\t' ? 'tab' : JSON.stringify(delimiter);
  return [
    'output:',
    line(`  path: ${scalar(output)}`, OUTPUT_COMMENT),
    ...(delimiter === ',' ? [] : [line(`  delimiter: ${shown}`, "guessed: the input's delimiter")]),
    ...(decimal
      ? [
          line(
            '  decimal: ","',
            semicolonOnly
              ? 'guessed: `;` separates the values where `,` is the decimal mark (German Excel); the input shows no decimals'
              : 'guessed: the input writes numbers with a decimal comma',
          ),
        ]
      : []),
    ...(bom === undefined ? [] : [line('  bom: true', `guessed: a byte order mark; ${bom}`)]),
  ];
}

export function renderJobFile(draft: JobDraft): string {
  const jobName = basename(draft.jobPath);
  const output = outputOf(draft);
  return `${[
    ...header(draft, jobName),
    `job: ${draft.kind.name}`,
    ...inputLines(draft),
    ...outputLines(draft, output),
    line(
      `# errors: ${scalar(defaultErrorsPath(output, basename(draft.jobPath), 'csv'))}`,
      'the default: failed rows and why',
    ),
    ...mappingLines(draft),
    ...optionLines(draft.kind, draft.options),
  ].join('\n')}\n`;
}

/**
 * `geobatch validate`'s note on a CSV output that the program that wrote the input would not read
 * back: the input separated by `;` (German Excel) or tabs, an output left at the comma it is
 * written with by default. Excel then shows every record in one column. A note, not a refusal:
 * the output's reader may well want commas; setting `output.delimiter` (to `,` too) says so. A
 * `.tsv` output, written with tabs, is not one left at commas.
 */
import type { JobConfig } from '../config/load.js';
import { sniffCsvFile } from '../input/open.js';
import { fileExists } from '../run/_header.js';
import { outputSpec } from '../run/assemble.js';

const NAMES: Readonly<Record<string, string>> = { ';': '";"', '\t': 'tab', '|': '"|"' };

/** The note, or undefined when every CSV output is written as the input is (or says how it is). */
export async function dialectWarning(config: JobConfig): Promise<string | undefined> {
  const { input } = config;
  if (input.format !== 'csv' || input.path === '-' || !(await fileExists(input.path))) return undefined;
  const delimiter =
    input.delimiter === undefined || input.delimiter === 'auto'
      ? (await sniffCsvFile(input.path)).delimiter
      : input.delimiter;
  if (delimiter === ',') return undefined;
  // Written with commas as the run writes it: not a .tsv output, written with tabs unless told
  // otherwise (the note called one "by commas").
  const commas = [config.output, ...config.moreOutputs].filter(
    (output) => output.format === 'csv' && outputSpec(output).delimiter === undefined,
  );
  const [first] = commas;
  if (first === undefined) return undefined;
  const name = NAMES[delimiter] ?? JSON.stringify(delimiter);
  const paths = commas.map((output) => (output.path === '-' ? 'standard output' : output.path)).join(', ');
  return (
    `the input is separated by ${name}, ${paths} by commas (output.delimiter is not set): the program ` +
    `that wrote the input may show each of its records in one column. Set output.delimiter: ${name} ` +
    '(with decimal: "," and bom: true for German Excel) to write it as the input is, or ' +
    'output.delimiter: "," to keep the commas and this note quiet'
  );
}

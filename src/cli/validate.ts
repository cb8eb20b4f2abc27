/**
 * `geobatch validate <job>`: load and check a job file without reading rows or calling the
 * service, and show what it resolves to. Every rule a run would refuse the file by is checked (the
 * steps' columns too, learnt without sending anything), and so are the mapped columns against a
 * CSV input's header, the one part of the input read (_validate-columns.ts), and those of a side
 * input (a matrix's destinations) against its header (src/run/side-columns.ts). A problem is a
 * ConfigError (exit 2) naming the file, the path inside it and what was expected, in the run's
 * words. What the environment gives a run (credentials, a service address) is a warning, since a
 * job is often validated where its keys are not, unless `--check-env` asks for it to be checked.
 */
import { Command } from 'commander';
import { isPostgresUrl, maskPassword } from '../cache/_pg-url.js';
import { resolveCacheSettings } from '../cache/settings.js';
import { unsetVariable } from '../config/env.js';
import { type JobConfig, loadJobFile, type StepConfig } from '../config/load.js';
import { isGeobatchError } from '../errors.js';
import { fileExists } from '../run/_header.js';
import { checkJobFiles, checkJobPlaces, checkService, checkSideInputs, checkSteps } from '../run/assemble.js';
import { checkSideColumns } from '../run/side-columns.js';
import { scrub } from '../secrets.js';
import { VALIDATE_HELP } from './_help.js';
import { checkInputColumns, recordNotes } from './_validate-columns.js';
import { dialectWarning } from './_validate-dialect.js';
import { checkOutputsHold } from './_validate-outputs.js';
import { replacedColumnsNote } from './_validate-replaced.js';
import { checkRows, ROWS_CHECKED, rowsLine, rowsWarning } from './_validate-rows.js';

/** Where the request cache of a run of this job would be, as the environment stands. */
function describeCache(config: JobConfig): string {
  const block = 'cache' in config.document ? config.document.cache : undefined;
  const settings = resolveCacheSettings(block, config.dir);
  if (settings === undefined) return 'off';
  const where = isPostgresUrl(settings.location) ? maskPassword(settings.location) : settings.location;
  return `${where} (${settings.mode}, from ${settings.source === 'default' ? 'the default' : settings.source === 'env' ? 'GEOBATCH_CACHE' : 'the job file'})`;
}

/** The input's declared decimal mark, as its line shows it: how its numbers will be read. */
function decimalOf(decimal: JobConfig['input']['decimal']): string {
  return decimal === undefined ? '' : `, decimal "${decimal}"`;
}

function mappingText(step: StepConfig): string {
  const mapping = Object.entries(step.mapping).map(([field, source]) =>
    'column' in source ? `${field} <- column ${source.column}` : `${field} = ${JSON.stringify(source.value)}`,
  );
  return mapping.length === 0 ? '(defaults)' : mapping.join(', ');
}

/**
 * A step's lines: its side inputs, with how their mapped columns were checked (`sides`), and its
 * mapping (a one-job file shows them without a heading).
 */
function stepLines(
  step: StepConfig,
  sides: Readonly<Record<string, string>>,
  line: (label: string, value: string) => string,
): string[] {
  return [
    ...Object.entries(step.sideInputs).map(([name, spec]) =>
      line(name, `${spec.path} (${spec.format})${sides[name] === undefined ? '' : `; ${sides[name]}`}`),
    ),
    line('mapping', mappingText(step)),
  ];
}

/**
 * `columns`: how the mapped columns were checked against the input, when a mapping reads any;
 * `sides`: per step, how its side inputs' were (checkSideColumns); `rows`: how many of the input's
 * rows were planned, when it was read.
 */
function describe(
  config: JobConfig,
  columns: string | undefined,
  sides: readonly Readonly<Record<string, string>>[],
  rows: string | undefined,
): string[] {
  const credentials = Object.entries(config.service.credentials)
    .filter(([, value]) => unsetVariable(value) === undefined)
    .map(([name]) => name);
  const line = (label: string, value: string) => `  ${label.padEnd(13)}${value}`;
  const pipeline = config.steps.length > 1;
  const steps = pipeline
    ? config.steps.flatMap((step, i) => [
        `  step ${i + 1}: ${step.name}${step.name === step.kind ? '' : ` (${step.kind})`}: ${
          step.record.summary
        }`,
        ...stepLines(step, sides[i] ?? {}, (label, value) => `  ${line(label, value)}`),
      ])
    : stepLines(config.steps[0] as StepConfig, sides[0] ?? {}, line);
  return [
    `${config.file}: valid ${pipeline ? `pipeline of ${config.steps.length} steps` : `${config.kind} job`}`,
    line('input', `${config.input.path} (${config.input.format}${decimalOf(config.input.decimal)})`),
    ...[config.output, ...config.moreOutputs].map((output) =>
      line('output', `${output.path} (${output.format})`),
    ),
    line('errors', `${config.errors.path} (${config.errors.format})`),
    line(
      'report',
      config.runReport === false ? 'none' : (config.runReport ?? `${config.output.path}.report.html`),
    ),
    ...steps,
    ...(columns === undefined ? [] : [line('columns', columns)]),
    ...(rows === undefined ? [] : [line('rows', rows)]),
    line('cache', describeCache(config)),
    line(
      'credentials',
      credentials.length === 0
        ? 'none in the environment'
        : `${credentials.join(', ')} (from the environment)`,
    ),
  ];
}

/**
 * Standard output, scrubbed as a run's log is: the file's values are shown, and a partner name (an
 * account name, scrubbed, not refused) in a constant or a path was printed here as it was.
 */
function say(text: string): void {
  process.stdout.write(scrub(text));
}

/**
 * The run's refusal for lack of a service address or credentials (checkService), which the
 * environment, not the file, decides: with `--check-env` it is validate's too, before anything is
 * printed, as the run's; without, a warning, since a job is often checked where its keys are not.
 */
function serviceWarning(config: JobConfig, checkEnv: boolean): string | undefined {
  try {
    checkService(config);
    return undefined;
  } catch (error) {
    if (checkEnv || !isGeobatchError(error)) throw error;
    return `${error.message}${error.context.hint ? ` (${error.context.hint})` : ''}`;
  }
}

export function validateCommand(): Command {
  return new Command('validate')
    .description('check a job file and show what it resolves to, without running it')
    .argument('<job>', 'job file (YAML or JSON)')
    .option(
      '--check-env',
      'check the environment too: a credential or service address a run would lack is an error (exit 2), not a warning',
    )
    .option(
      '--all-rows',
      `plan every row of the input, not only the first ${ROWS_CHECKED.toLocaleString('en-US')} (streamed; some 200,000 rows a second)`,
    )
    .addHelpText('after', VALIDATE_HELP)
    .action(async (file: string, flags: { checkEnv?: boolean; allRows?: boolean }) => {
      const config = await loadJobFile(file);
      const steps = await checkSteps(config);
      checkJobFiles(config);
      await checkJobPlaces(config);
      // Side inputs first: a run reads them while it builds the steps, before it opens the input.
      const sides: Readonly<Record<string, string>>[] = [];
      for (const step of config.steps) sides.push(await checkSideColumns(config, step));
      await checkSideInputs(config);
      const columns = await checkInputColumns(config, steps);
      const points = await recordNotes(config, steps);
      await checkOutputsHold(config, steps);
      // Before anything is printed: an input the run refuses is refused here, not after "valid".
      const check = await checkRows(config, flags.allRows === true ? undefined : ROWS_CHECKED);
      const rows = check === undefined ? undefined : rowsWarning(check, config.input.path);
      const replaced = await replacedColumnsNote(config, steps);
      const dialect = await dialectWarning(config);
      const service = serviceWarning(config, flags.checkEnv === true);
      const planned = check === undefined || check.empty !== undefined ? undefined : rowsLine(check);
      say(`${describe(config, columns, sides, planned).join('\n')}\n`);
      if (rows !== undefined) say(`  warning: ${rows}\n`);
      for (const note of points) say(`  warning: ${note}\n`);
      if (replaced !== undefined) say(`  warning: ${replaced}\n`);
      if (dialect !== undefined) say(`  note: ${dialect}\n`);
      // A job whose mapping reads no column says nothing of its input above: a wrong path would
      // pass, to be refused by the run.
      const { path } = config.input;
      if (columns === undefined && path !== '-' && !(await fileExists(path)))
        say(`  warning: the input ${path} does not exist (yet): a run would stop on it\n`);
      if (service !== undefined) say(`  warning: ${service}\n`);
    });
}

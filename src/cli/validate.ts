/**
 * `geobatch validate <job>`: load and check a job file without reading input or calling the
 * service, and show what it resolves to. A problem is a ConfigError (exit 2) naming the file, the
 * path inside it and what was expected; missing credentials are a warning, since a job is often
 * validated where its keys are not.
 */
import { Command } from 'commander';
import { unsetVariable } from '../config/env.js';
import { type JobConfig, loadJobFile } from '../config/load.js';
import { isGeobatchError } from '../errors.js';
import { checkService } from '../run/assemble.js';
import { VALIDATE_HELP } from './_help.js';

function describe(config: JobConfig): string[] {
  const mapping = Object.entries(config.mapping).map(([field, source]) =>
    'column' in source ? `${field} <- column ${source.column}` : `${field} = ${JSON.stringify(source.value)}`,
  );
  const credentials = Object.entries(config.service.credentials)
    .filter(([, value]) => unsetVariable(value) === undefined)
    .map(([name]) => name);
  const line = (label: string, value: string) => `  ${label.padEnd(13)}${value}`;
  return [
    `${config.file}: valid ${config.kind} job`,
    line('input', `${config.input.path} (${config.input.format})`),
    ...Object.entries(config.sideInputs).map(([name, spec]) => line(name, `${spec.path} (${spec.format})`)),
    line('output', `${config.output.path} (${config.output.format})`),
    line('errors', `${config.errors.path} (${config.errors.format})`),
    line('mapping', mapping.length === 0 ? '(defaults)' : mapping.join(', ')),
    line(
      'credentials',
      credentials.length === 0
        ? 'none in the environment'
        : `${credentials.join(', ')} (from the environment)`,
    ),
  ];
}

export function validateCommand(): Command {
  return new Command('validate')
    .description('check a job file and show what it resolves to, without running it')
    .argument('<job>', 'job file (YAML or JSON)')
    .addHelpText('after', VALIDATE_HELP)
    .action(async (file: string) => {
      const config = await loadJobFile(file);
      process.stdout.write(`${describe(config).join('\n')}\n`);
      try {
        checkService(config);
      } catch (error) {
        if (!isGeobatchError(error)) throw error;
        process.stdout.write(
          `  warning: ${error.message}${error.context.hint ? ` (${error.context.hint})` : ''}\n`,
        );
      }
    });
}

/**
 * `geobatch validate <job>`: load and check a job file without reading input or calling the
 * service, and show what it resolves to. A problem is a ConfigError (exit 2) naming the file, the
 * path inside it and what was expected; missing credentials are a warning, since a job is often
 * validated where its keys are not.
 */
import { dirname } from 'node:path';
import { Command } from 'commander';
import { isPostgresUrl, maskPassword } from '../cache/_pg-url.js';
import { resolveCacheSettings } from '../cache/settings.js';
import { type JobConfig, loadJobFile } from '../config/load.js';
import { isGeobatchError } from '../errors.js';
import { checkService } from './_assemble.js';

/** Where the request cache of a run of this job would be, as the environment stands. */
function describeCache(config: JobConfig): string {
  const block = 'cache' in config.document ? config.document.cache : undefined;
  const settings = resolveCacheSettings(block, dirname(config.file));
  if (settings === undefined) return 'off';
  const where = isPostgresUrl(settings.location) ? maskPassword(settings.location) : settings.location;
  return `${where} (${settings.mode}, from ${settings.source === 'default' ? 'the default' : settings.source === 'env' ? 'GEOBATCH_CACHE' : 'the job file'})`;
}

function describe(config: JobConfig): string[] {
  const mapping = Object.entries(config.mapping).map(([field, source]) =>
    'column' in source ? `${field} <- column ${source.column}` : `${field} = ${JSON.stringify(source.value)}`,
  );
  const credentials = Object.keys(config.service.credentials);
  const line = (label: string, value: string) => `  ${label.padEnd(13)}${value}`;
  return [
    `${config.file}: valid ${config.kind} job`,
    line('input', `${config.input.path} (${config.input.format})`),
    ...(config.destinations
      ? [line('destinations', `${config.destinations.input.path} (${config.destinations.input.format})`)]
      : []),
    line('output', `${config.output.path} (${config.output.format})`),
    line('errors', `${config.errors.path} (${config.errors.format})`),
    line('mapping', mapping.length === 0 ? '(defaults)' : mapping.join(', ')),
    line('cache', describeCache(config)),
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

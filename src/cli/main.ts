#!/usr/bin/env node
/** The geobatch command line: the one place that maps errors to exit codes. */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { isGeobatchError, isUsageCode } from '../errors.js';
import { cacheCommand } from './cache.js';
import { demoCommand } from './demo.js';
import { emulatorCommand } from './emulator.js';
import { runCommand } from './run.js';
import { validateCommand } from './validate.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = new Command('geobatch')
  .description('Batch geodata enrichment through the SmartMaps geo services')
  .version(pkg.version)
  .exitOverride()
  .addCommand(runCommand())
  .addCommand(validateCommand())
  .addCommand(emulatorCommand())
  .addCommand(demoCommand())
  .addCommand(cacheCommand());
// addCommand does not pass exitOverride down; every command must throw rather than exit.
for (const command of program.commands) command.exitOverride();

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCode(error);
}

function exitCode(error: unknown): number {
  // Commander has already printed its own message (unknown option, missing argument...).
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
  process.stderr.write(`geobatch: ${error instanceof Error ? error.message : String(error)}\n`);
  if (isGeobatchError(error)) {
    if (error.context.hint) process.stderr.write(`hint: ${error.context.hint}\n`);
    return isUsageCode(error.code) ? 2 : 1;
  }
  return 1;
}

/**
 * The geobatch command line, as main.ts starts it. Exit statuses come from one table (EXIT_BY_CODE in errors.ts): a run's
 * from its summary, a thrown error's from its code, anything else is 1.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { EXIT_STATUS, exitStatusOf, isGeobatchError } from '../errors.js';
import { checkPathFlags } from './_empty-paths.js';
import { PROGRAM_HELP } from './_help.js';
import { cacheCommand } from './cache.js';
import { demoCommand } from './demo.js';
import { emulatorCommand } from './emulator.js';
import { initCommand } from './init.js';
import { queueCommand, statusCommand } from './queue.js';
import { runCommand } from './run.js';
import { validateCommand } from './validate.js';
import { workerCommand } from './worker.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = new Command('geobatch')
  .description('Batch geodata enrichment through the SmartMaps geo services')
  .version(pkg.version)
  .exitOverride()
  .showHelpAfterError('(add --help for examples)')
  .addHelpText('after', PROGRAM_HELP)
  .addCommand(initCommand())
  .addCommand(runCommand())
  .addCommand(validateCommand())
  .addCommand(emulatorCommand())
  .addCommand(demoCommand())
  .addCommand(cacheCommand())
  .addCommand(workerCommand())
  .addCommand(statusCommand())
  .addCommand(queueCommand());
// addCommand does not pass exitOverride down; every command must throw rather than exit.
for (const command of program.commands)
  command.exitOverride().showHelpAfterError('(add --help for examples)');
plainErrors(program);
checkPathFlags(program);

/**
 * Commander's own errors (an unknown option, a missing argument) in the one form every other
 * refusal has: "geobatch: ..." on standard error, so that a script matching on it sees them too.
 */
function plainErrors(command: Command): void {
  command.configureOutput({
    outputError: (text, write) => write(text.replace(/^error: /, 'geobatch: ')),
  });
  for (const sub of command.commands) plainErrors(sub);
}

// A command whose promise can no longer settle (everything it waited on is gone) would otherwise
// end with Node's exit status 13 and no word: say so, and end as a stopped run. 'exit' handlers
// (the lock's) still run.
let settled = false;
process.once('beforeExit', () => {
  if (settled) return;
  process.stderr.write('geobatch: the command stalled with nothing left to wait for (a bug); stopping\n');
  process.exit(EXIT_STATUS.stopped);
});

try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.exitCode = exitCode(error);
} finally {
  settled = true;
}

function exitCode(error: unknown): number {
  // Commander has already printed its own message (unknown option, missing argument...).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_STATUS.ok : EXIT_STATUS.usage;
  process.stderr.write(`geobatch: ${error instanceof Error ? error.message : String(error)}\n`);
  if (isGeobatchError(error)) {
    if (error.context.hint) process.stderr.write(`hint: ${error.context.hint}\n`);
    return exitStatusOf(error.code);
  }
  return EXIT_STATUS.stopped;
}

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { checkPathFlags, takesPath } from '../../src/cli/_empty-paths.js';
import { cacheCommand } from '../../src/cli/cache.js';
import { demoCommand } from '../../src/cli/demo.js';
import { emulatorCommand } from '../../src/cli/emulator.js';
import { initCommand } from '../../src/cli/init.js';
import { queueCommand, statusCommand } from '../../src/cli/queue.js';
import { runCommand } from '../../src/cli/run.js';
import { validateCommand } from '../../src/cli/validate.js';
import { workerCommand } from '../../src/cli/worker.js';
import { GeobatchError } from '../../src/errors.js';
import { tempDir } from '../fixtures/run-helpers.js';
import { cli, ROOT } from './_cli.js';

/** Every command as program.ts holds them, with its action replaced by a record that it ran. */
function program(ran: string[]): Command {
  const root = new Command('geobatch');
  for (const make of [
    initCommand,
    runCommand,
    validateCommand,
    emulatorCommand,
    demoCommand,
    cacheCommand,
    workerCommand,
    statusCommand,
    queueCommand,
  ])
    root.addCommand(make());
  const silence = (command: Command) => {
    command.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
    if (command.commands.length === 0) command.action(() => void ran.push(command.name()));
    for (const sub of command.commands) silence(sub);
  };
  silence(root);
  return checkPathFlags(root);
}

/** `run`, `cache prune`: each command that acts, by the words that call it. */
function leaves(command: Command, words: string[] = []): { words: string[]; command: Command }[] {
  if (command.commands.length === 0) return [{ words, command }];
  return command.commands.flatMap((sub) => leaves(sub, [...words, sub.name()]));
}

describe('an empty path given to a flag', () => {
  it('finds the path flags of every command by the name of their value', () => {
    const found = leaves(program([])).flatMap(({ words, command }) =>
      command.options.filter(takesPath).map((option) => `${words.join(' ')} ${option.long}`),
    );
    expect(found.sort()).toEqual(
      [
        'run --input',
        'run --output',
        'run --errors',
        'run --report',
        'run --cache',
        'run --log-file',
        'init --output',
        'demo --jobs',
        'demo --output',
        'cache path --cache',
        'cache stats --cache',
        'cache prune --cache',
        'cache clear --cache',
        'worker --log-file',
        'status --output',
      ].sort(),
    );
  });

  it('is a usage error naming the flag, before any command starts', async () => {
    for (const { words, command } of leaves(program([]))) {
      const required = command.registeredArguments.filter((a) => a.required).map(() => 'x.yaml');
      for (const option of command.options.filter(takesPath)) {
        for (const value of ['', '  ']) {
          const ran: string[] = [];
          const args = [...words, ...required, option.long as string, value];
          const error = await program(ran)
            .parseAsync(args, { from: 'user' })
            .then(
              () => undefined,
              (e: unknown) => e,
            );
          expect(error, args.join(' ')).toBeInstanceOf(GeobatchError);
          const { code, message, context } = error as GeobatchError;
          const flag = [option.short, option.long].filter(Boolean).join('/');
          expect(code).toBe('USAGE');
          expect(message).toBe(
            `${flag}: a path is needed, got ${value === '' ? 'an empty value' : 'only spaces'}`,
          );
          expect(context).toMatchObject({
            field: (option.long as string).slice(2),
            expected: 'a path',
            received: JSON.stringify(value),
          });
          expect(ran).toEqual([]);
        }
      }
    }
  });

  it('refuses an empty one among several outputs, and takes `-` and real paths', async () => {
    const ran: string[] = [];
    const error = await program(ran)
      .parseAsync(['run', 'job.yaml', '-o', 'a.csv', '-o', ''], { from: 'user' })
      .catch((e: unknown) => e);
    expect((error as GeobatchError).context.field).toBe('output');
    await program(ran).parseAsync(['run', 'job.yaml', '-o', '-', '-i', 'in.csv', '--cache', 'c.sqlite'], {
      from: 'user',
    });
    expect(ran).toEqual(['run']);
  });

  it('leaves the working directory as it was: geobatch demo --output "" writes nothing there', async () => {
    const cwd = tempDir();
    const demo = cli(['demo', '--output', '', '--jobs', join(ROOT, 'jobs')], {}, { cwd });
    expect(await demo.exited).toBe(2);
    expect(demo.err()).toContain('geobatch: --output: a path is needed, got an empty value\nhint: ');
    expect(readdirSync(cwd)).toEqual([]);
  });
});

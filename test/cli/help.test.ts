import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseAge } from '../../src/cache/lifetimes.js';
import { cacheCommand } from '../../src/cli/cache.js';
import { demoCommand } from '../../src/cli/demo.js';
import { emulatorCommand } from '../../src/cli/emulator.js';
import { initCommand } from '../../src/cli/init.js';
import { queueCommand, statusCommand } from '../../src/cli/queue.js';
import { runCommand } from '../../src/cli/run.js';
import { validateCommand } from '../../src/cli/validate.js';
import { workerCommand } from '../../src/cli/worker.js';
import { JOB_KIND_NAMES } from '../../src/jobs/index.js';
import { cli } from './_cli.js';

/** A subcommand as its parent holds it (`cache prune`). */
function sub(command: Command, name: string): Command {
  const found = command.commands.find((c) => c.name() === name);
  if (found === undefined) throw new Error(`no ${command.name()} ${name}`);
  return found;
}

function help(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

describe('--help', () => {
  const commands = {
    run: runCommand,
    init: initCommand,
    validate: validateCommand,
    emulator: emulatorCommand,
    demo: demoCommand,
    cache: cacheCommand,
    worker: workerCommand,
    status: statusCommand,
    queue: queueCommand,
    'queue prune': () => sub(queueCommand(), 'prune'),
    'cache path': () => sub(cacheCommand(), 'path'),
    'cache stats': () => sub(cacheCommand(), 'stats'),
    'cache prune': () => sub(cacheCommand(), 'prune'),
    'cache clear': () => sub(cacheCommand(), 'clear'),
  };

  for (const [name, make] of Object.entries(commands)) {
    it(`ends \`geobatch ${name} --help\` with examples of the command itself`, () => {
      const text = help(make());
      const examples = text.slice(text.indexOf('Examples:'));
      expect(text).toContain('Examples:');
      expect(examples).toMatch(new RegExp(`\\$ geobatch ${name}\\b`));
    });
  }

  it('gives only options each command has in its examples', () => {
    for (const [name, make] of Object.entries(commands)) {
      const command = make();
      // A group's examples are its subcommands', checked with them.
      if (command.commands.length > 0) continue;
      const text = help(command);
      const known = new Set(command.options.flatMap((option) => [option.long, option.short]));
      for (const line of text.slice(text.indexOf('Examples:')).split('\n')) {
        const start = line.indexOf(`geobatch ${name} `);
        if (start < 0) continue;
        // The invocation alone: not its comment, nor a command chained after it.
        const invocation = line.slice(start).split(/\s(?:#|&&|\|)/)[0] ?? '';
        for (const flag of invocation.match(/(?<=\s)--?[a-z][\w-]*/g) ?? [])
          expect(known.has(flag), `${name}: ${flag}`).toBe(true);
      }
    }
  });

  it('gives only ages cache prune and queue prune accept in their examples, here and in the README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const helps = [cacheCommand(), sub(cacheCommand(), 'prune'), sub(queueCommand(), 'prune')].map(help);
    const ages = [...`${helps.join('\n')}\n${readme}`.matchAll(/--older-than (\w+)/g)].map((m) => m[1]);
    expect(ages.length).toBeGreaterThanOrEqual(2);
    for (const age of ages) expect(parseAge(age as string), age).toBeGreaterThan(0);
  });

  it('lists every job kind of the registry in init --help', () => {
    const text = help(initCommand());
    for (const kind of JOB_KIND_NAMES) expect(text).toMatch(new RegExp(`^  ${kind} +\\S`, 'm'));
  });

  it('shows the new run flags with what they cost', () => {
    const text = help(runCommand());
    expect(text).toMatch(/--limit <n> +only the first N rows/);
    // Commander wraps the description: compare with the wrapping taken out.
    expect(text.replace(/\s+/g, ' ')).toContain(
      '--sample <n> N rows drawn at random from the whole input (reads it all, holds N rows)',
    );
    expect(text).toMatch(/--seed <s>/);
    expect(text).toMatch(/--log-format <format>/);
  });

  it('gives the defaults of --concurrency and --rate, and says --log-file writes JSON lines', () => {
    const text = help(runCommand()).replace(/\s+/g, ' ');
    expect(text).toContain(
      "-c, --concurrency <n> requests in flight at once, all services together (default: the job file's service.throttle.concurrency, else 16)",
    );
    expect(text).toContain(
      "-r, --rate <rps> requests per second across all services; 0 = no client-side limit (default: the job file's service.throttle.rate, else none)",
    );
    expect(text).toMatch(
      /--log-file <path> write logs to this file instead of standard error, as JSON lines/,
    );
    expect(help(workerCommand()).replace(/\s+/g, ' ')).toContain('as JSON lines');
  });

  it('starts `geobatch --help` with where to begin, and points at the help of each command', async () => {
    const run = cli(['--help']);
    expect(await run.exited).toBe(0);
    expect(run.out()).toContain('$ geobatch init customers.csv');
    expect(run.out()).toMatch(/^ {2}init \[options\] <input>/m);
    expect(run.out()).toContain('geobatch <command> --help');
  });

  it.each([
    [['run', '--bogus', 'job.yaml'], "geobatch: unknown option '--bogus'"],
    [['validate'], "geobatch: missing required argument 'job'"],
    [['cache', 'stats', '--bogus'], "geobatch: unknown option '--bogus'"],
    [['frob'], "geobatch: unknown command 'frob'"],
  ])('refuses %j in the one form every refusal has: a geobatch: line, exit 2', async (args, line) => {
    const run = cli(args);
    expect(await run.exited).toBe(2);
    expect(run.err().split('\n')[0]).toBe(line);
  });
});

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseAge } from '../../src/cache/lifetimes.js';
import { cacheCommand } from '../../src/cli/cache.js';
import { demoCommand } from '../../src/cli/demo.js';
import { emulatorCommand } from '../../src/cli/emulator.js';
import { initCommand } from '../../src/cli/init.js';
import { runCommand } from '../../src/cli/run.js';
import { validateCommand } from '../../src/cli/validate.js';
import { JOB_KIND_NAMES } from '../../src/jobs/index.js';
import { cli } from './_cli.js';

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
  };

  for (const [name, make] of Object.entries(commands)) {
    it(`ends \`geobatch ${name} --help\` with examples of the command itself`, () => {
      const text = help(make());
      const examples = text.slice(text.indexOf('Examples:'));
      expect(text).toContain('Examples:');
      expect(examples).toMatch(new RegExp(`\\$ geobatch ${name}\\b`));
    });
  }

  it('gives only ages cache prune accepts in its examples, here and in the README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const ages = [...`${help(cacheCommand())}\n${readme}`.matchAll(/--older-than (\w+)/g)].map((m) => m[1]);
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

  it('starts `geobatch --help` with where to begin, and points at the help of each command', async () => {
    const run = cli(['--help']);
    expect(await run.exited).toBe(0);
    expect(run.out()).toContain('$ geobatch init customers.csv');
    expect(run.out()).toMatch(/^ {2}init \[options\] <input>/m);
    expect(run.out()).toContain('geobatch <command> --help');
  });
});

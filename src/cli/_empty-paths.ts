/**
 * An empty path given to a flag (`-o ''`, `--cache "$UNSET"`) is refused before any command
 * starts. Node resolves '' to the working directory, so each flag went on with that instead: a
 * run read or wrote "the directory . ", `demo --output ''` filled it with every sample's files,
 * `cache path --cache ''` printed it. Which flags take a path is read from their value's name in
 * the help (`<path>`, `<dir>`, `<job>`, `<file>`), so that a flag added later is covered too.
 */
import type { Command, Option } from 'commander';
import { UsageError } from '../errors.js';

/** Names of a flag's value that mean a file or directory (a URL flag, `--queue <url>`, checks its own). */
const PATH_VALUES: ReadonlySet<string> = new Set(['path', 'dir', 'job', 'file']);

/** Whether `option` takes a path, by the name of its value: `-o, --output <path>`. */
export function takesPath(option: Option): boolean {
  const value = /[<[]([\w-]+)(?:\.\.\.)?[>\]]/.exec(option.flags)?.[1];
  return value !== undefined && PATH_VALUES.has(value);
}

/** The flag as its errors name it: `-o/--output`, `--cache`. */
function flagName(option: Option): string {
  return [option.short, option.long].filter((flag) => flag !== undefined).join('/');
}

/** Throws a USAGE error for the first path flag of `command` given an empty (or blank) value. */
export function refuseEmptyPaths(command: Command): void {
  const values = command.opts();
  for (const option of command.options) {
    if (!takesPath(option)) continue;
    const value: unknown = values[option.attributeName()];
    // A repeatable flag (`-o a.csv -o b.csv`) holds every value given.
    const given = Array.isArray(value) ? value : [value];
    const empty = given.find((one) => typeof one === 'string' && one.trim() === '');
    if (empty === undefined) continue;
    const flag = flagName(option);
    throw new UsageError(
      `${flag}: a path is needed, got ${empty === '' ? 'an empty value' : 'only spaces'}`,
      {
        field: option.long?.replace(/^--/, '') ?? flag,
        expected: 'a path',
        received: JSON.stringify(empty),
        hint: `An empty path would mean the working directory. Give ${flag} a path, or leave it out; a shell variable meant to hold it may be unset.`,
      },
    );
  }
}

/** Makes every command under `program` refuse an empty path flag before its action starts. */
export function checkPathFlags(program: Command): Command {
  return program.hook('preAction', (_program, action) => refuseEmptyPaths(action));
}

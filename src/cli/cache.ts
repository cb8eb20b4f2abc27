/**
 * `geobatch cache path|stats|prune|clear`: look into and tidy the request cache. Each takes
 * `--cache` (a file or a postgres:// URL), else GEOBATCH_CACHE, else the default file.
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { isDamage } from '../cache/_damage.js';
import { CLEARABLE, NOT_A_CACHE, problemOf, unusable } from '../cache/_errors.js';
import { isPostgresUrl, maskPassword } from '../cache/_pg-url.js';
import { parseAge, resolveLifetimes } from '../cache/lifetimes.js';
import { openStore } from '../cache/run-cache.js';
import { CACHE_ENV, commandCache, commandLocation } from '../cache/settings.js';
import { CACHE_INTERFACES, type CacheInterface, type CacheStats, type CacheStore } from '../cache/store.js';
import { type GeobatchError, isGeobatchError, UsageError } from '../errors.js';
import { scrub } from '../secrets.js';
import {
  CACHE_CLEAR_HELP,
  CACHE_HELP,
  CACHE_PATH_HELP,
  CACHE_PRUNE_HELP,
  CACHE_STATS_HELP,
} from './_help.js';

interface Flags {
  cache?: string;
}

interface ClearFlags extends Flags {
  interface?: string;
  force?: boolean;
}

/**
 * How long one query of `stats`, `prune` or `clear` may run on a PostgreSQL cache. Each scans or
 * deletes across the whole table, which on a cache of a hundred million answers takes minutes.
 * With a run's 30 s (the limit that tells a frozen database) such a prune would fail while
 * PostgreSQL went on deleting, the error saying nothing was done when it was. A database that
 * stops answering is still given up on, after this.
 */
const MAINTENANCE_QUERY_MS = 60 * 60_000;

function out(text: string): void {
  process.stdout.write(`${text}\n`);
}

function shown(location: string): string {
  return isPostgresUrl(location) ? maskPassword(location) : location;
}

/**
 * Opens an existing cache; undefined (and a line saying so) when there is none yet. An empty
 * file is none yet: opening it to write would make a cache of it, a change with nothing to tidy.
 */
async function open(location: string, readOnly: boolean, json: boolean): Promise<CacheStore | undefined> {
  const none = () =>
    // `--json` stays JSON for a pipe (`| jq`): no cache is a document too.
    out(
      json
        ? JSON.stringify({ location: shown(location), cache: null })
        : `no cache at ${shown(location)} yet`,
    );
  if (!isPostgresUrl(location) && (!existsSync(location) || isEmptyFile(location))) {
    none();
    return undefined;
  }
  const store = await openStore(location, { readOnly, queryTimeoutMs: MAINTENANCE_QUERY_MS });
  if (store === undefined) none();
  return store;
}

async function using<T>(
  location: string,
  readOnly: boolean,
  work: (store: CacheStore) => Promise<T>,
  json = false,
) {
  const store = await open(location, readOnly, json);
  if (store === undefined) return;
  try {
    await work(store);
  } catch (error) {
    // Damage past the pages opening reads, found by the work: said as a run says it, with the fix.
    if (isDamage(error))
      throw unusable(shown(location), `it is damaged (SQLite: ${(error as Error).message})`, {
        problem: 'damaged',
        cause: error,
      });
    // The database lost or given up on under the work (its server stopped, the session ended, a
    // query unanswered for MAINTENANCE_QUERY_MS): said as opening it would say it, with the fix,
    // not as pg's bare message.
    if (isPostgresUrl(location) && !isGeobatchError(error))
      throw unusable(shown(location), `PostgreSQL: ${scrub((error as Error).message)}`, {
        problem: 'failed',
        cause: error,
      });
    throw error;
  } finally {
    await store.close();
  }
}

function bytes(n: number | null): string {
  if (n === null) return '-';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

function when(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(headers), ...rows.map(line)];
}

function describeStats(stats: CacheStats): string[] {
  const n = (v: number) => v.toLocaleString('en-US');
  return [
    `${stats.location} (${stats.kind}, schema ${stats.schemaVersion}, ${bytes(stats.sizeBytes)} on disk)`,
    '',
    ...(stats.interfaces.length === 0
      ? ['no entries']
      : table(
          ['interface', 'entries', 'not found', 'bytes', 'oldest (UTC)', 'newest (UTC)'],
          stats.interfaces.map((i) => [
            i.interface,
            n(i.entries),
            n(i.notFound),
            bytes(i.bytes),
            when(i.oldest),
            when(i.newest),
          ]),
        )),
    '',
    'recent runs',
    ...(stats.runs.length === 0
      ? ['none recorded']
      : table(
          ['ended (UTC)', 'job', 'hits', 'misses', 'writes', 'requests saved'],
          stats.runs.map((r) => [
            when(r.endedAt),
            r.job,
            n(r.hits),
            n(r.misses),
            n(r.writes),
            n(r.requestsSaved),
          ]),
        )),
  ];
}

function checkInterface(value: string | undefined): CacheInterface | undefined {
  if (value === undefined || (CACHE_INTERFACES as readonly string[]).includes(value)) {
    return value as CacheInterface | undefined;
  }
  throw new UsageError(`--interface: expected one of ${CACHE_INTERFACES.join(', ')}, got \`${value}\``, {
    field: 'interface',
    received: value,
  });
}

function isEmptyFile(location: string): boolean {
  const stat = statSync(location);
  return stat.isFile() && stat.size === 0;
}

/** `cache path`: where the cache is, or that none is in use and why. */
function printPath(flags: Flags): void {
  const { location } = commandCache(flags.cache);
  out(location === undefined ? `no cache in use: ${CACHE_ENV}=off turns it off` : shown(location));
}

async function clear(flags: ClearFlags): Promise<void> {
  const only = checkInterface(flags.interface);
  const location = commandLocation(flags.cache);
  if (!isPostgresUrl(location) && existsSync(location) && statSync(location).isDirectory()) {
    throw new UsageError(`${location} is a directory, not a cache file: nothing was deleted`, {
      file: location,
      hint: `Name the cache file with --cache, such as ${location}/cache.sqlite; \`geobatch cache path\` prints the one in use.`,
    });
  }
  try {
    await using(location, false, async (store) => {
      const n = await store.clear(only);
      out(`cleared ${n.toLocaleString('en-US')} entries${only ? ` of ${only}` : ''} from ${store.location}`);
    });
  } catch (error) {
    const problem = problemOf(error);
    // A database, or one interface's entries, is never cleared by deleting the file.
    if (problem === undefined || isPostgresUrl(location) || only !== undefined) throw error;
    if (CLEARABLE.has(problem) || (flags.force === true && NOT_A_CACHE.has(problem))) {
      return removeFile(location, (error as GeobatchError).context.received);
    }
    if (NOT_A_CACHE.has(problem)) throw refusal(location, error as GeobatchError);
    throw error;
  }
}

/** The file goes (and its WAL and -shm): a damaged cache, or with --force any file that is no cache. */
function removeFile(location: string, was: string | undefined): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${location}${suffix}`, { force: true });
  const what = was === undefined ? 'it was not a usable cache' : `it was ${was}; --force`;
  out(`deleted ${location} (${what}); the next run starts an empty cache there`);
}

/** `clear` never deletes, unasked, a file that is not a geobatch cache: likely the wrong path. */
function refusal(location: string, error: GeobatchError): UsageError {
  const looksLike = error.context.received ?? 'not a geobatch cache';
  return new UsageError(`${location} is not a geobatch cache but ${looksLike}: nothing was deleted`, {
    file: location,
    received: looksLike,
    ...(error.context.detail === undefined ? {} : { detail: error.context.detail }),
    hint: `Check --cache and ${CACHE_ENV}: they probably name the wrong file (\`geobatch cache path\` prints the one in use). To delete it and start an empty cache there anyway, add --force.`,
    cause: error,
  });
}

const cacheOption = () => new Option('--cache <path>', 'the cache: an SQLite file or a postgres:// URL');

export function cacheCommand(): Command {
  const command = new Command('cache')
    .description('inspect and tidy the request cache')
    .addHelpText('after', CACHE_HELP);
  command.addCommand(
    new Command('path')
      .description('print where the cache is')
      .addOption(cacheOption())
      .addHelpText('after', CACHE_PATH_HELP)
      .action(printPath),
  );
  command.addCommand(
    new Command('stats')
      .description('entries and bytes per interface, oldest and newest, hits of recent runs')
      .addOption(cacheOption())
      .option('--json', 'print the figures as JSON')
      .addHelpText('after', CACHE_STATS_HELP)
      .action(async (flags: Flags & { json?: boolean }) => {
        await using(
          commandLocation(flags.cache),
          true,
          async (store) => {
            const stats = await store.stats();
            out(flags.json === true ? JSON.stringify(stats, null, 2) : describeStats(stats).join('\n'));
          },
          flags.json === true,
        );
      }),
  );
  command.addCommand(
    new Command('prune')
      .description('delete expired entries (default lifetimes), or those older than --older-than')
      .addOption(cacheOption())
      .option('--older-than <age>', 'delete every entry older than this: 30d, 12h, 90m')
      .addHelpText('after', CACHE_PRUNE_HELP)
      .action(async (flags: Flags & { olderThan?: string }) => {
        const age = flags.olderThan === undefined ? undefined : parseAge(flags.olderThan);
        if (flags.olderThan !== undefined && age === undefined) {
          throw new UsageError(
            `--older-than: expected an age such as 30d, 12h or 90m, got \`${flags.olderThan}\``,
            {
              field: 'older-than',
              received: flags.olderThan,
            },
          );
        }
        await using(commandLocation(flags.cache), false, async (store) => {
          const rule = age === undefined ? { lifetimes: resolveLifetimes() } : { before: Date.now() - age };
          out(`pruned ${(await store.prune(rule)).toLocaleString('en-US')} entries from ${store.location}`);
        });
      }),
  );
  command.addCommand(
    new Command('clear')
      .description(
        'delete every entry, or those of one interface; deletes a geobatch cache file that is damaged',
      )
      .addOption(cacheOption())
      .addOption(new Option('--interface <name>', 'only this interface').choices([...CACHE_INTERFACES]))
      .option(
        '--force',
        "also delete a file that is not a geobatch cache (not SQLite, another program's database) and start an empty cache there",
      )
      .addHelpText('after', CACHE_CLEAR_HELP)
      .action(clear),
  );
  // addCommand does not pass exitOverride down; main maps errors to exit codes.
  for (const sub of command.commands) sub.exitOverride();
  return command;
}

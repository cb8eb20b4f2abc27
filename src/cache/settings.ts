/**
 * Where the cache is and how it is used, from (strongest first) the command line, the
 * GEOBATCH_CACHE variable, the job file's `cache:` block, and the default file under
 * $XDG_CACHE_HOME. Relative paths are relative to the working directory on the command line and
 * in the environment, and to the job file in the job file.
 *
 * One exception to that order: a job file's `cache: false` beats GEOBATCH_CACHE. The variable is
 * set once for every job of a machine (a cron environment) and says where the cache is; the job
 * file says whether this job's data may be kept at all. Only an explicit location (`--cache PATH`,
 * a library caller's `cache.location`) overrides it, and the run then says so.
 */
import { homedir } from 'node:os';
import path from 'node:path';
import { directoryName, fromHome } from '../config/_paths.js';
import type { CacheBlock, CacheMode } from '../config/cache.js';
import { CACHE_MODES } from '../config/cache.js';
import { UsageError } from '../errors.js';
import { isPostgresUrl } from './_pg-url.js';
import type { LifetimeDays } from './lifetimes.js';

export const CACHE_ENV = 'GEOBATCH_CACHE';

/** GEOBATCH_CACHE=off turns the cache off, as --no-cache does. */
const OFF = 'off';

export type Env = Readonly<Record<string, string | undefined>>;

/** What the command line says: `--cache PATH` (a string), `--no-cache` (false), `--cache-mode`. */
export interface CacheFlags {
  readonly location?: string | false;
  readonly mode?: string;
  /**
   * `location` is a distributed run's cache URL as a worker has it from the queue database:
   * without a password, which is never stored there (queue/recipe.ts workerCacheFlags).
   */
  readonly fromQueue?: true;
}

export interface CacheSettings {
  /** An absolute file path or a `postgres://` URL. */
  readonly location: string;
  readonly mode: CacheMode;
  readonly lifetimes: LifetimeDays;
  /** Where the location came from, for messages. */
  readonly source: 'flag' | 'env' | 'job' | 'default';
  /** The job file says `cache: false`, and `--cache PATH` overrides it: the run says so. */
  readonly overridesJobOff?: true;
  /** See CacheFlags.fromQueue. */
  readonly fromQueue?: true;
}

/** `$XDG_CACHE_HOME/geobatch/cache.sqlite`, `~/.cache/geobatch/cache.sqlite` when unset. */
export function defaultCachePath(env: Env = process.env): string {
  const base = env.XDG_CACHE_HOME;
  const root = base !== undefined && path.isAbsolute(base) ? base : path.join(homedir(), '.cache');
  return path.join(root, 'geobatch', 'cache.sqlite');
}

/** Where each source of the location is named, for the refusal of one that names a directory. */
const NAMED = { flag: '--cache', env: CACHE_ENV, job: "the job file's cache" } as const;

function absolute(location: string, base: string, source: keyof typeof NAMED): string {
  if (isPostgresUrl(location)) return location;
  if (KEYWORD_DSN.test(location)) throw keywordDsn();
  // `--cache db/` made an SQLite file called db, before any output was looked at.
  const problem = directoryName(location, 'cache.sqlite');
  if (problem !== undefined)
    throw new UsageError(`${NAMED[source]}: ${problem}`, {
      field: 'cache',
      file: location,
      expected: 'an SQLite file path or a postgres:// URL',
      received: location,
    });
  return path.resolve(base, fromHome(location));
}

/**
 * libpq's keyword form (`host=db port=5432 password=...`): taken as a file name, it made an SQLite
 * file named after the password in the working directory, and the summary's cache location
 * carried it.
 */
const KEYWORD_DSN = /(^|\s)(host|hostaddr|port|dbname|user|password|passfile|sslmode|service)\s*=/i;

function keywordDsn(): UsageError {
  // The value is never shown: it may hold a password.
  return new UsageError(
    'The request cache is given as a PostgreSQL connection string in keyword form (host=... dbname=...); geobatch takes a postgres:// URL or a file path',
    {
      field: 'cache',
      expected: 'a postgres:// URL or an SQLite file path',
      received: 'a keyword connection string',
      hint: 'write it as a URL, postgres://user@host:port/dbname, with the password in PGPASSWORD or ~/.pgpass rather than in the URL',
    },
  );
}

export function checkMode(mode: string | undefined): CacheMode | undefined {
  if (mode === undefined) return undefined;
  if ((CACHE_MODES as readonly string[]).includes(mode)) return mode as CacheMode;
  throw new UsageError(`--cache-mode: expected one of ${CACHE_MODES.join(', ')}, got \`${mode}\``, {
    field: 'cache-mode',
    expected: CACHE_MODES.join(' | '),
    received: mode,
  });
}

/** The settings in force, or undefined when the cache is off. */
export function resolveCacheSettings(
  block: CacheBlock | undefined,
  jobDir: string,
  flags: CacheFlags = {},
  env: Env = process.env,
): CacheSettings | undefined {
  const mode = checkMode(flags.mode) ?? (typeof block === 'object' ? block.mode : undefined) ?? 'use';
  const lifetimes = (typeof block === 'object' ? block.lifetimes : undefined) ?? {};
  const settings = (location: string, source: CacheSettings['source']) => ({
    location,
    mode,
    lifetimes,
    source,
  });
  if (flags.location === false) return undefined;
  const jobOff = isOff(block);
  if (flags.location !== undefined) {
    const chosen = {
      ...settings(absolute(flags.location, process.cwd(), 'flag'), 'flag'),
      ...(flags.fromQueue === true ? { fromQueue: true as const } : {}),
    };
    return jobOff ? { ...chosen, overridesJobOff: true } : chosen;
  }
  const fromEnv = env[CACHE_ENV];
  if (jobOff || fromEnv?.toLowerCase() === OFF) return undefined;
  if (fromEnv !== undefined && fromEnv !== '')
    return settings(absolute(fromEnv, process.cwd(), 'env'), 'env');
  const fromJob = typeof block === 'object' ? block.path : typeof block === 'string' ? block : undefined;
  if (fromJob !== undefined) return settings(absolute(fromJob, jobDir, 'job'), 'job');
  return settings(defaultCachePath(env), 'default');
}

/**
 * `cache: false`, or `cache: ${NIGHTLY_CACHE}` set to off or false: the file's own "no cache", as
 * GEOBATCH_CACHE=off is; a cache file named "false" is never what was meant.
 */
function isOff(block: CacheBlock | undefined): boolean {
  return block === false || (typeof block === 'string' && ['off', 'false'].includes(block.toLowerCase()));
}

/** The cache the `cache` commands use: `location` undefined when GEOBATCH_CACHE=off turns it off. */
export interface CommandCache {
  readonly location: string | undefined;
  readonly source: 'flag' | 'env' | 'default';
}

/** For the `cache` commands, which have no job file: the flag, the variable, or the default. */
export function commandCache(flag: string | undefined, env: Env = process.env): CommandCache {
  if (flag !== undefined) return { location: absolute(flag, process.cwd(), 'flag'), source: 'flag' };
  const fromEnv = env[CACHE_ENV];
  if (fromEnv?.toLowerCase() === OFF) return { location: undefined, source: 'env' };
  if (fromEnv !== undefined && fromEnv !== '')
    return { location: absolute(fromEnv, process.cwd(), 'env'), source: 'env' };
  return { location: defaultCachePath(env), source: 'default' };
}

/**
 * Where `cache stats|prune|clear` look: as commandCache, but GEOBATCH_CACHE=off, which turns the
 * runs' cache off, leaves them the default file (the one runs used before it was turned off).
 */
export function commandLocation(flag: string | undefined, env: Env = process.env): string {
  return commandCache(flag, env).location ?? defaultCachePath(env);
}

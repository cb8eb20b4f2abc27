/**
 * Where the cache is and how it is used, from (strongest first) the command line, the
 * GEOBATCH_CACHE variable, the job file's `cache:` block, and the default file under
 * $XDG_CACHE_HOME. Relative paths are relative to the working directory on the command line and
 * in the environment, and to the job file in the job file.
 */
import { homedir } from 'node:os';
import path from 'node:path';
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
}

export interface CacheSettings {
  /** An absolute file path or a `postgres://` URL. */
  readonly location: string;
  readonly mode: CacheMode;
  readonly lifetimes: LifetimeDays;
  /** Where the location came from, for messages. */
  readonly source: 'flag' | 'env' | 'job' | 'default';
}

/** `$XDG_CACHE_HOME/geobatch/cache.sqlite`, `~/.cache/geobatch/cache.sqlite` when unset. */
export function defaultCachePath(env: Env = process.env): string {
  const base = env.XDG_CACHE_HOME;
  const root = base !== undefined && path.isAbsolute(base) ? base : path.join(homedir(), '.cache');
  return path.join(root, 'geobatch', 'cache.sqlite');
}

function absolute(location: string, base: string): string {
  return isPostgresUrl(location) ? location : path.resolve(base, location);
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
  if (flags.location !== undefined) return settings(absolute(flags.location, process.cwd()), 'flag');
  const fromEnv = env[CACHE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') {
    return fromEnv.toLowerCase() === OFF ? undefined : settings(absolute(fromEnv, process.cwd()), 'env');
  }
  // `cache: ${NIGHTLY_CACHE}` set to off or false is the file's own `cache: false`, as
  // GEOBATCH_CACHE=off is: a cache file named "false" is never what was meant.
  if (block === false || (typeof block === 'string' && ['off', 'false'].includes(block.toLowerCase())))
    return undefined;
  const fromJob = typeof block === 'string' ? block : block?.path;
  if (fromJob !== undefined) return settings(absolute(fromJob, jobDir), 'job');
  return settings(defaultCachePath(env), 'default');
}

/** For the `cache` commands, which have no job file: the flag, the variable, or the default. */
export function commandLocation(flag: string | undefined, env: Env = process.env): string {
  if (flag !== undefined) return absolute(flag, process.cwd());
  const fromEnv = env[CACHE_ENV];
  if (fromEnv !== undefined && fromEnv !== '' && fromEnv.toLowerCase() !== OFF)
    return absolute(fromEnv, process.cwd());
  return defaultCachePath(env);
}

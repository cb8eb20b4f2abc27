import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  commandCache,
  commandLocation,
  defaultCachePath,
  resolveCacheSettings,
} from '../../src/cache/settings.js';
import { isGeobatchError } from '../../src/errors.js';

const JOB_DIR = '/jobs';
const XDG = { XDG_CACHE_HOME: '/xdg' };

describe('cache settings', () => {
  it('default to $XDG_CACHE_HOME/geobatch/cache.sqlite, ~/.cache when it is unset', () => {
    expect(defaultCachePath(XDG)).toBe('/xdg/geobatch/cache.sqlite');
    expect(defaultCachePath({})).toMatch(/\/\.cache\/geobatch\/cache\.sqlite$/);
    expect(resolveCacheSettings(undefined, JOB_DIR, {}, XDG)).toEqual({
      location: '/xdg/geobatch/cache.sqlite',
      mode: 'use',
      lifetimes: {},
      source: 'default',
    });
  });

  it('take the command line over GEOBATCH_CACHE over the job file over the default', () => {
    const env = { ...XDG, GEOBATCH_CACHE: '/env/c.sqlite' };
    const block = { path: 'mine.sqlite', mode: 'read-only' as const, lifetimes: { geocoding: 30 } };
    expect(resolveCacheSettings(block, JOB_DIR, {}, XDG)).toEqual({
      location: join(JOB_DIR, 'mine.sqlite'),
      mode: 'read-only',
      lifetimes: { geocoding: 30 },
      source: 'job',
    });
    expect(resolveCacheSettings(block, JOB_DIR, {}, env)?.location).toBe('/env/c.sqlite');
    expect(
      resolveCacheSettings(block, JOB_DIR, { location: '/flag.sqlite', mode: 'refresh' }, env),
    ).toMatchObject({
      location: '/flag.sqlite',
      mode: 'refresh',
      source: 'flag',
    });
    expect(resolveCacheSettings('postgres://h/db', JOB_DIR, {}, XDG)?.location).toBe('postgres://h/db');
    // `~/` in the job file is the home directory, as the README's example writes it.
    expect(resolveCacheSettings('~/.cache/c.sqlite', JOB_DIR, {}, XDG)?.location).toBe(
      join(homedir(), '.cache/c.sqlite'),
    );
  });

  it('are off with --no-cache, GEOBATCH_CACHE=off or `cache: false`, strongest first', () => {
    expect(
      resolveCacheSettings(undefined, JOB_DIR, { location: false }, { GEOBATCH_CACHE: '/c' }),
    ).toBeUndefined();
    expect(resolveCacheSettings('/job.sqlite', JOB_DIR, {}, { GEOBATCH_CACHE: 'off' })).toBeUndefined();
    expect(resolveCacheSettings(false, JOB_DIR, {}, {})).toBeUndefined();
    // `cache: ${VAR}` with VAR=off or false: text after substitution, but no file was meant.
    expect(resolveCacheSettings('off', JOB_DIR, {}, {})).toBeUndefined();
    expect(resolveCacheSettings('FALSE', JOB_DIR, {}, {})).toBeUndefined();
    expect(resolveCacheSettings('offline.sqlite', JOB_DIR, {}, {})?.location).toBe(
      `${JOB_DIR}/offline.sqlite`,
    );
  });

  it("honour the job file's `cache: false` over GEOBATCH_CACHE, which says where a cache is, not whether", () => {
    const env = { ...XDG, GEOBATCH_CACHE: '/env/c.sqlite' };
    expect(resolveCacheSettings(false, JOB_DIR, {}, env)).toBeUndefined();
    expect(resolveCacheSettings('off', JOB_DIR, {}, env)).toBeUndefined();
    expect(resolveCacheSettings(false, JOB_DIR, { mode: 'refresh' }, env)).toBeUndefined();
    // A job file without `cache: false` still takes the environment's cache.
    expect(resolveCacheSettings({ mode: 'read-only' }, JOB_DIR, {}, env)).toMatchObject({
      location: '/env/c.sqlite',
      source: 'env',
    });
  });

  it('let only an explicit location override `cache: false`, marked so that the run says so', () => {
    const env = { ...XDG, GEOBATCH_CACHE: '/env/c.sqlite' };
    expect(resolveCacheSettings(false, JOB_DIR, { location: '/flag.sqlite' }, env)).toEqual({
      location: '/flag.sqlite',
      mode: 'use',
      lifetimes: {},
      source: 'flag',
      overridesJobOff: true,
    });
    expect(resolveCacheSettings(undefined, JOB_DIR, { location: '/flag.sqlite' }, env)).not.toHaveProperty(
      'overridesJobOff',
    );
  });

  it('refuse a keyword connection string, from any source, never showing it (it may hold a password)', () => {
    const dsn = 'host=127.0.0.1 port=5432 password=PgSecret96';
    const attempts = [
      () => resolveCacheSettings(undefined, JOB_DIR, { location: dsn }, XDG),
      () => resolveCacheSettings(undefined, JOB_DIR, {}, { ...XDG, GEOBATCH_CACHE: `dbname=gb ${dsn}` }),
      () => resolveCacheSettings(dsn, JOB_DIR, {}, XDG),
    ];
    for (const attempt of attempts) {
      let error: unknown;
      try {
        attempt();
      } catch (caught) {
        error = caught;
      }
      expect(isGeobatchError(error) && error.code).toBe('USAGE');
      expect(isGeobatchError(error) && error.context.field).toBe('cache');
      expect(isGeobatchError(error) && error.message).toMatch(/PostgreSQL connection string in keyword form/);
      expect(
        JSON.stringify([(error as Error).message, isGeobatchError(error) && error.context]),
      ).not.toContain('PgSecret96');
    }
    // A path that merely contains such words is a path.
    expect(
      resolveCacheSettings(undefined, JOB_DIR, { location: '/data/port=1/c.sqlite' }, XDG)?.location,
    ).toBe('/data/port=1/c.sqlite');
  });

  it('refuse an unknown --cache-mode, naming the choices', () => {
    let error: unknown;
    try {
      resolveCacheSettings(undefined, JOB_DIR, { mode: 'sometimes' }, XDG);
    } catch (caught) {
      error = caught;
    }
    expect(isGeobatchError(error) && error.code).toBe('USAGE');
    expect((error as Error).message).toBe(
      '--cache-mode: expected one of use, refresh, read-only, got `sometimes`',
    );
  });

  it('give the cache commands the flag, then GEOBATCH_CACHE, then the default', () => {
    expect(commandLocation('/a.sqlite', { GEOBATCH_CACHE: '/b.sqlite' })).toBe('/a.sqlite');
    expect(commandLocation(undefined, { GEOBATCH_CACHE: '/b.sqlite' })).toBe('/b.sqlite');
    expect(commandLocation(undefined, XDG)).toBe('/xdg/geobatch/cache.sqlite');
  });

  it('tell the cache commands that GEOBATCH_CACHE=off turns the cache off, unless --cache names one', () => {
    expect(commandCache(undefined, { ...XDG, GEOBATCH_CACHE: 'OFF' })).toEqual({
      location: undefined,
      source: 'env',
    });
    expect(commandCache('/a.sqlite', { GEOBATCH_CACHE: 'off' })).toEqual({
      location: '/a.sqlite',
      source: 'flag',
    });
    expect(commandCache(undefined, XDG)).toEqual({
      location: '/xdg/geobatch/cache.sqlite',
      source: 'default',
    });
  });
});

describe('cache settings: a location that ends with / and so names a directory', () => {
  /** The error `fn` throws, or undefined. */
  const thrown = (fn: () => unknown): unknown => {
    try {
      fn();
    } catch (error) {
      return error;
    }
    return undefined;
  };
  const words = (given: string) =>
    `${given} ends with / and so names a directory: name a file in it, e.g. ${given}cache.sqlite`;

  it('is refused (USAGE) from --cache, GEOBATCH_CACHE and the job file, naming where it was given', () => {
    const cases: readonly (readonly [() => unknown, string])[] = [
      [
        () => resolveCacheSettings(undefined, JOB_DIR, { location: 'cachedir/' }, XDG),
        `--cache: ${words('cachedir/')}`,
      ],
      [
        () => resolveCacheSettings(undefined, JOB_DIR, {}, { ...XDG, GEOBATCH_CACHE: 'envdir/' }),
        `GEOBATCH_CACHE: ${words('envdir/')}`,
      ],
      [() => resolveCacheSettings('c/', JOB_DIR, {}, XDG), `the job file's cache: ${words('c/')}`],
      [
        () => resolveCacheSettings({ path: '~/c/' }, JOB_DIR, {}, XDG),
        `the job file's cache: ${words('~/c/')}`,
      ],
      [() => commandCache('cdir/', XDG), `--cache: ${words('cdir/')}`],
      [
        () => commandLocation(undefined, { ...XDG, GEOBATCH_CACHE: 'envdir/' }),
        `GEOBATCH_CACHE: ${words('envdir/')}`,
      ],
    ];
    for (const [fn, message] of cases) {
      const error = thrown(fn);
      expect(isGeobatchError(error) && error.code).toBe('USAGE');
      expect(isGeobatchError(error) && error.message).toBe(message);
      expect(isGeobatchError(error) && error.context.field).toBe('cache');
    }
  });

  it('leaves a postgres:// URL ending in / alone: it is not a path', () => {
    const url = 'postgres://geobatch@127.0.0.1:5432/cache/';
    expect(resolveCacheSettings(undefined, JOB_DIR, { location: url }, XDG)?.location).toBe(url);
    expect(commandCache(undefined, { ...XDG, GEOBATCH_CACHE: url }).location).toBe(url);
  });
});

import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, resolveOptions } from '../../src/client/options.js';
import type { ConfigError } from '../../src/errors.js';

describe('resolveOptions', () => {
  it('fills every default from the one defaults object', () => {
    const r = resolveOptions({});
    expect(r.timeoutMs).toBe(DEFAULTS.timeoutMs);
    expect(r.retry).toEqual(DEFAULTS.retry);
    expect(r.global).toEqual({ concurrency: 16, rate: null, burst: null });
    expect(r.interfaces.geocoding).toEqual({
      concurrency: Number.POSITIVE_INFINITY,
      rate: null,
      burst: null,
    });
    expect(r.endpoints.geojson).toBe('https://www.yellowmap.de/api_rst/v2/geojson');
    expect(r.endpoints.elevation).toBeUndefined();
    expect(r.tokenTtlMs).toBe(600_000);
    expect(r.tokenSkewMs).toBe(30_000);
    expect(r.aimd.tolerance).toBe(0.05);
  });

  it('refreshes a short-lived token a quarter of its lifetime early by default', () => {
    expect(resolveOptions({ tokenTtlSeconds: 2 }).tokenSkewMs).toBe(500);
  });

  it.each([
    [{ timeoutMs: 0 }, 'timeoutMs', 'Expected `timeoutMs` to be a positive integer, got `0`'],
    [{ retry: { maxAttempts: 1.5 } }, 'retry.maxAttempts', 'a positive integer, got `1.5`'],
    [{ throttle: { global: { concurrency: 0 } } }, 'throttle.global.concurrency', 'got `0`'],
    [
      { throttle: { interfaces: { geocoding: { rate: -1 } } } },
      'throttle.interfaces.geocoding.rate',
      'a number > 0',
    ],
    [{ throttle: { aimd: { decrease: 1.5 } } }, 'throttle.aimd.decrease', 'a number in (0, 1]'],
    [{ throttle: { aimd: { tolerance: 1 } } }, 'throttle.aimd.tolerance', 'a number in [0, 1), got `1`'],
    [{ endpoints: { area: 'ftp://x' } }, 'endpoints.area', 'an http(s) URL'],
    [{ tokenTtlSeconds: 10, tokenRefreshSkewSeconds: 10 }, 'tokenRefreshSkewSeconds', 'less than'],
    [
      { retry: { stopOnRetryAfterMs: 'off' } },
      'retry.stopOnRetryAfterMs',
      'Expected `retry.stopOnRetryAfterMs` to be a number >= 0, or null to never stop on a Retry-After, got `off`',
    ],
    [{ retry: { stopOnRetryAfterMs: -1 } }, 'retry.stopOnRetryAfterMs', 'or null to never stop'],
  ])('refuses %j naming %s', (options, path, message) => {
    expect(() => resolveOptions(options as never)).toThrow(message);
    try {
      resolveOptions(options as never);
    } catch (error) {
      expect(error).toMatchObject({ code: 'CONFIG_INVALID', context: { path } });
    }
  });

  it.each([
    ['https://geo.example/?apiKey=k3y-0815', 'the query parameter apiKey'],
    ['https://partner:k3y-0815@search.example/', 'a user name or password'],
    ['search.example/?securityID=k3y-0815', 'the query parameter securityID'],
  ])('refuses an endpoint with a credential written into it (%s) without echoing it', (url, what) => {
    let error: unknown;
    try {
      resolveOptions({ endpoints: { geojson: url } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: `Expected \`endpoints.geojson\` to be a URL without credentials, got one with ${what}`,
      context: { path: 'endpoints.geojson', expected: 'an http(s) URL without credentials' },
    });
    expect(JSON.stringify(error)).not.toContain('k3y-0815');
  });

  it.each([
    [{ throttle: { interfaces: { geocodin: { rate: 5 } } } }, 'throttle.interfaces.geocodin', 'geocoding'],
    [{ retry: { maxAttempt: 2 } }, 'retry.maxAttempt', 'maxAttempts'],
    [{ timeoutMS: 100 }, 'timeoutMS', 'timeoutMs'],
    [{ credentials: { apikey: 'k3y-0815' } }, 'credentials.apikey', 'apiKey'],
    [{ throttle: { global: { concurency: 2 } } }, 'throttle.global.concurency', 'concurrency'],
    [{ throttle: { aimd: { decreese: 0.5 } } }, 'throttle.aimd.decreese', 'decrease'],
  ])('refuses the misspelt option in %j, naming it and the one meant', (options, path, meant) => {
    let error: unknown;
    try {
      resolveOptions(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining(`Unknown option \`${path}\` (did you mean \`${meant}\`?)`),
      context: { path, received: path.split('.').at(-1) },
    });
    // A misspelt credential's value is a key all the same: never echoed.
    expect(JSON.stringify(error) + String(error)).not.toContain('k3y-0815');
  });

  it('refuses no options at all, and a logger the client could not call, as CONFIG_INVALID naming them', () => {
    // From JavaScript: a TypeError reading `endpoints`, and one at the first retry's log line.
    expect(() => resolveOptions(undefined as never)).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        context: expect.objectContaining({ path: 'options' }),
      }),
    );
    expect(() => resolveOptions({ credentials: { apiKey: 'k' }, logger: {} } as never)).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: 'Expected `logger` to be a pino logger, got `an object without debug, info, isLevelEnabled`',
      }),
    );
    expect(
      resolveOptions({ credentials: { apiKey: 'k' }, logger: pino({ level: 'silent' }) }).timeoutMs,
    ).toBe(30_000);
  });

  it('lets options set to undefined through, as a spread of optional settings has them', () => {
    expect(
      resolveOptions({ retry: undefined, channel: undefined, extra: undefined } as never).timeoutMs,
    ).toBe(30_000);
  });

  it('refuses a section that is not an object', () => {
    expect(() => resolveOptions({ retry: 3 } as never)).toThrow('Expected `retry` to be an object, got `3`');
  });

  it('keeps DEFAULTS as they are: a caller cannot change every later client by writing to it', () => {
    expect(() => {
      (DEFAULTS.retry as { maxAttempts: number }).maxAttempts = 1;
    }).toThrow(TypeError);
    expect(resolveOptions({}).retry.maxAttempts).toBe(6);
  });

  it('refuses an empty credential without echoing any credential value', () => {
    expect(() => resolveOptions({ credentials: { apiKey: '' } })).toThrow(
      'Expected `credentials.apiKey` to be a non-empty string, got `an empty string`',
    );
  });

  it('keeps stopOnRetryAfterMs null (never stop) and 0 (stop at any Retry-After) apart from the default', () => {
    expect(resolveOptions({ retry: { stopOnRetryAfterMs: null } }).retry.stopOnRetryAfterMs).toBeNull();
    expect(resolveOptions({ retry: { stopOnRetryAfterMs: 0 } }).retry.stopOnRetryAfterMs).toBe(0);
    expect(resolveOptions({ retry: {} }).retry.stopOnRetryAfterMs).toBe(600_000);
  });

  it('names where a wrong address was set, when the caller says (endpointSources), and never its credential', () => {
    const caught = (options: Parameters<typeof resolveOptions>[0]) => {
      try {
        resolveOptions(options);
      } catch (error) {
        return error as ConfigError;
      }
      throw new Error('expected a ConfigError');
    };
    const scheme = caught({
      endpoints: { geojson: 'ftp://geo.example/' },
      endpointSources: { geojson: 'GEOCODER_BASE in deploy.env' },
    });
    expect(scheme.code).toBe('CONFIG_INVALID');
    expect(scheme.message).toBe(
      'Expected `endpoints.geojson` (set by GEOCODER_BASE in deploy.env) to be an http(s) URL, got `ftp://geo.example/`',
    );
    expect(scheme.context).toMatchObject({ path: 'endpoints.geojson', received: 'ftp://geo.example/' });
    const key = caught({
      endpoints: { area: 'https://area.example/?apiKey=s3cr3t-value' },
      endpointSources: { area: 'AREA_URL' },
    });
    expect(key.code).toBe('CONFIG_INVALID');
    expect(key.message).toMatch(
      /^Expected `endpoints\.area` \(set by AREA_URL\) to be a URL without credentials/,
    );
    expect(key.message).not.toContain('s3cr3t');
    // Without a source the message is as it was.
    expect(caught({ endpoints: { geojson: 'ftp://x' } }).message).toBe(
      'Expected `endpoints.geojson` to be an http(s) URL, got `ftp://x`',
    );
  });

  it('treats a null rate as unlimited and strips a trailing slash from base addresses', () => {
    const r = resolveOptions({
      throttle: { interfaces: { area: { rate: null } } },
      endpoints: { elevation: 'http://h/e/' },
    });
    expect(r.interfaces.area.rate).toBeNull();
    expect(r.endpoints.elevation).toBe('http://h/e');
  });
});

/** The option paths the README's Defaults table names, its relative forms made whole. */
function defaultsTableOptions(readme: string): string[] {
  const start = readme.indexOf('### Defaults (one object');
  const table = readme.slice(start, readme.indexOf('\n### ', start + 1));
  const paths: string[] = [];
  for (const line of table.split('\n').filter((l) => l.startsWith('| `'))) {
    let parent = '';
    for (const [, name] of (line.split('|')[1] as string).matchAll(/`([^`]+)`/g)) {
      const whole = (name as string).includes('.') ? (name as string) : `${parent}${name}`;
      parent = whole.slice(0, whole.lastIndexOf('.') + 1);
      paths.push(whole.replace('<name>', 'geocoding'));
    }
  }
  return paths.map((p) => (p === 'burst' ? 'throttle.global.burst' : p));
}

/** The table's paths the client refuses as unknown (set to an object, so each is reached). */
function unknownOptions(readme: string): string[] {
  return defaultsTableOptions(readme).filter((path) => {
    const options: Record<string, unknown> = {};
    const keys = path.split('.');
    let at = options;
    for (const key of keys.slice(0, -1)) {
      const inner: Record<string, unknown> = {};
      at[key] = inner;
      at = inner;
    }
    at[keys.at(-1) as string] = { probe: true };
    try {
      resolveOptions(options);
    } catch (error) {
      return (error as Error).message.startsWith(`Unknown option \`${path}\``);
    }
    return false;
  });
}

describe("the README's table of the client's defaults", () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

  it('names only options the client takes', () => {
    expect(defaultsTableOptions(readme).length).toBeGreaterThan(20);
    expect(unknownOptions(readme)).toEqual([]);
  });

  it('is caught naming an option the client does not take', () => {
    const drifted = readme.replace('| `tokenTtlSeconds` |', '| `tokenTtlSecs` |');
    expect(unknownOptions(drifted)).toEqual(['tokenTtlSecs']);
  });
});

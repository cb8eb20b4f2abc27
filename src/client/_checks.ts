/**
 * Option checks that throw ConfigError in the one message form the project uses:
 * "Expected `concurrency` to be a positive integer, got `0`".
 */
import { ConfigError } from '../errors.js';
import { credentialsNamed, urlCredentials } from '../secrets.js';

export function fail(path: string, expected: string, value: unknown): never {
  throw new ConfigError(`Expected \`${path}\` to be ${expected}, got \`${String(value)}\``, {
    path,
    expected,
    received: String(value),
  });
}

export function positiveInt(path: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    fail(path, 'a positive integer', value);
  return value;
}

export function nonNegative(path: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(path, 'a number >= 0', value);
  return value;
}

export function positive(path: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) fail(path, 'a number > 0', value);
  return value;
}

export function bool(path: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(path, 'a boolean', value);
  return value;
}

export function url(path: string, value: unknown, fallback: string | undefined): string | undefined {
  if (value === undefined) return fallback;
  if (typeof value === 'string') {
    // Before any message that quotes the value: a key written into the URL must not be shown.
    const found = urlCredentials(value);
    if (found.length > 0) {
      throw new ConfigError(
        `Expected \`${path}\` to be a URL without credentials, got one with ${credentialsNamed(found)}`,
        {
          path,
          expected: 'an http(s) URL without credentials',
          hint: 'give the key as `credentials` (apiKey, the legacy pair, or partner and partnerKey for address search): the client adds it to each request',
        },
      );
    }
    try {
      const parsed = new URL(value);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return value.replace(/\/+$/, '');
    } catch {
      // reported below
    }
  }
  return fail(path, 'an http(s) URL', value);
}

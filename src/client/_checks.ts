/**
 * Option checks that throw ConfigError in the one message form the project uses:
 * "Expected `concurrency` to be a positive integer, got `0`".
 */
import { ConfigError } from '../errors.js';
import { nearest } from '../nearest-word.js';
import { credentialsNamed, urlCredentials } from '../secrets.js';

/** `setBy`: where the caller says the value was set (ClientOptions.endpointSources), named after the path. */
export function fail(path: string, expected: string, value: unknown, setBy?: string): never {
  const named = setBy === undefined ? `\`${path}\`` : `\`${path}\` (set by ${setBy})`;
  throw new ConfigError(`Expected ${named} to be ${expected}, got \`${String(value)}\``, {
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

/** `setBy`: where the caller says the URL was set (ClientOptions.endpointSources), for the message. */
export function url(
  path: string,
  value: unknown,
  fallback: string | undefined,
  setBy?: string,
): string | undefined {
  if (value === undefined) return fallback;
  if (typeof value === 'string') {
    // Before any message that quotes the value: a key written into the URL must not be shown.
    const found = urlCredentials(value);
    if (found.length > 0) {
      throw new ConfigError(
        `Expected \`${path}\`${setBy === undefined ? '' : ` (set by ${setBy})`} to be a URL without credentials, got one with ${credentialsNamed(found)}`,
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
  return fail(path, 'an http(s) URL', value, setBy);
}

/**
 * Refuses a key the options do not know at `path`: a misspelt option
 * (`throttle.interfaces.geocodin`) was dropped in silence, and the limit the user set never
 * applied. A key whose value is undefined is let through, as a spread of optional settings has them.
 */
export function onlyKnown(path: string, value: unknown, known: readonly string[]): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail(path, 'an object', Array.isArray(value) ? 'an array' : value);
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || known.includes(key)) continue;
    const top = path === 'options';
    const at = top ? key : `${path}.${key}`;
    const near = nearest(key, known);
    const guess = near === undefined ? '' : ` (did you mean \`${near}\`?)`;
    const holder = top ? 'the client takes' : `\`${path}\` takes`;
    throw new ConfigError(`Unknown option \`${at}\`${guess}; ${holder} ${known.join(', ')}`, {
      path: at,
      expected: `one of ${known.join(', ')}`,
      received: key,
    });
  }
}

/**
 * The keys of T as a list the compiler holds complete: a key added to T and not listed here
 * fails to type-check, so the check above cannot fall behind the options' types.
 */
export function keysOf<T>() {
  return <const K extends readonly (keyof T & string)[]>(
    ...keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : never)
  ): readonly string[] => keys;
}

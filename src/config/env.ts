/**
 * `${NAME}` interpolation from the environment. Secrets live only in the environment; a job file
 * names them and never holds them.
 */
import { ConfigError } from '../errors.js';

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

/** True when the whole string is one `${NAME}` reference (how a credential must be written). */
export function isEnvReference(value: string): boolean {
  return /^\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}$/.test(value.trim());
}

/**
 * Replaces `${NAME}` and `${NAME:-fallback}` in every string of a parsed document. An unset
 * variable without a fallback is an error naming the variable and where it is used.
 */
export function interpolate(document: unknown, env: Env, file: string, path: string[] = []): unknown {
  if (typeof document === 'string') return interpolateString(document, env, file, path);
  if (Array.isArray(document))
    return document.map((item, i) => interpolate(item, env, file, [...path, String(i)]));
  if (document !== null && typeof document === 'object') {
    return Object.fromEntries(
      Object.entries(document).map(([key, value]) => [key, interpolate(value, env, file, [...path, key])]),
    );
  }
  return document;
}

function interpolateString(text: string, env: Env, file: string, path: string[]): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (fallback !== undefined) return fallback;
    throw new ConfigError(`${file}: ${path.join('.')}: environment variable ${name} is not set`, {
      file,
      path: path.join('.'),
      expected: `${name} set in the environment`,
      hint: `export ${name}=... before running, or give a default with \${${name}:-value}`,
    });
  });
}

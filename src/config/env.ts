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

/** The variable a value still names when its `${VAR}` was unset (see `interpolate`), else undefined. */
export function unsetVariable(value: string): string | undefined {
  return isEnvReference(value) ? /^\s*\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(value)?.[1] : undefined;
}

/** Credentials are needed only to call the real service: `--dry-run` and `--emulator` run without. */
function isCredential(path: readonly string[]): boolean {
  return path.length === 3 && path[0] === 'service' && path[1] === 'credentials';
}

/**
 * Replaces `${NAME}` and `${NAME:-fallback}` in every string of a parsed document. An unset
 * variable without a fallback is an error naming the variable and where it is used, except in
 * `service.credentials`: there the reference is left as it is, and the run refuses it only when it
 * would call the service with it (run/assemble.ts `checkService`, which names the variable).
 */
export function interpolate(document: unknown, env: Env, file: string, path: string[] = []): unknown {
  if (typeof document === 'string' && isCredential(path) && isEnvReference(document)) {
    const name = unsetVariable(document) as string;
    const value = env[name];
    if ((value === undefined || value === '') && !document.includes(':-')) return document;
  }
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

/** PostgreSQL URLs: telling them from file paths, and showing them without their password. */
import { scrub } from '../secrets.js';

export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

export function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

/** The URL as messages show it: user, host, port and database; the password as `***`. */
export function maskPassword(url: string): string {
  const parsed = safeUrl(url);
  if (parsed === undefined) return scrub(url);
  const user =
    parsed.username === '' ? '' : `${decodeURIComponent(parsed.username)}${parsed.password ? ':***' : ''}@`;
  return scrub(`${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`);
}

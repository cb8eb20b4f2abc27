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

/** Query parameters in which a PostgreSQL URL carries a password (pg reads every parameter as a setting). */
const PASSWORD_PARAMS: ReadonlySet<string> = new Set(['password', 'sslpassword']);

/**
 * The URL to hand on (to a worker's command line, to the queue database): the password left out of
 * its user info and its query (`?password=`, `?sslpassword=`), everything else as given; `had`
 * when there was one. Text that is no URL is given back as it is.
 */
export function withoutPassword(url: string): { readonly url: string; readonly had: boolean } {
  const parsed = safeUrl(url);
  if (parsed === undefined) return { url, had: false };
  // The query's other parameters as written: re-encoded, `%20` became `+`.
  const params = parsed.search.slice(1).split('&');
  const kept = params.filter((param) => {
    const name = [...new URLSearchParams(param).keys()][0] ?? '';
    return !PASSWORD_PARAMS.has(name.toLowerCase());
  });
  const had = parsed.password !== '' || kept.length < params.length;
  if (!had) return { url, had };
  parsed.password = '';
  parsed.search = kept.join('&');
  return { url: parsed.toString(), had };
}

/**
 * The process-wide register of secret values (apiKey, systemPartner, securityID, partner keys,
 * bearer tokens).
 *
 * Every sink that can show text to a human (the logger, error messages, the error report, the CLI's
 * last words) passes it through `scrub`. Redacting by value rather than by field name is what
 * catches a key that slipped into a URL, a response body echo or a library's error message.
 * This module imports nothing, so any module may use it without creating a cycle.
 */

const REDACTED = '[redacted]';
// Shorter values would scrub ordinary words and numbers out of messages.
const MIN_SECRET_LENGTH = 4;

/** Each form of a registered secret, with the number of registrations that hold it. */
const values = new Map<string, number>();
let pattern: RegExp | undefined;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Registers a secret so that it, its URL-encoded form and its Base64 form are scrubbed from
 * everything geobatch prints or writes. Registering a value again is cheap. Returns the release
 * of this registration: a value is scrubbed until every registration of it is released, and
 * one never released (the CLI's keys) stays for the process's life. A client releases its own
 * when it is closed (SecretSet): a service that builds a client per tenant, or refreshes a token
 * every few minutes for weeks, kept every value ever seen, and rebuilt the pattern from all of
 * them for each new one (1,500 clients: 13 ms each to build, 253 MB).
 */
export function registerSecret(value: string | undefined | null): () => void {
  if (value === undefined || value === null || value.length < MIN_SECRET_LENGTH) return () => {};
  const forms = secretForms(value);
  for (const form of forms) {
    const held = values.get(form);
    if (held === undefined) pattern = undefined;
    values.set(form, (held ?? 0) + 1);
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const form of forms) {
      const held = values.get(form);
      if (held === undefined) continue;
      if (held > 1) values.set(form, held - 1);
      else {
        values.delete(form);
        pattern = undefined;
      }
    }
  };
}

/**
 * The forms a secret travels in, each of them as secret as it is: as written, URL-encoded (a query,
 * a form body), Base64 (a Basic header, a token). Those shorter than MIN_SECRET_LENGTH are left out.
 */
export function secretForms(value: string): ReadonlySet<string> {
  return new Set(
    [
      value,
      encodeURIComponent(value),
      encodeURIComponent(value).replace(/%20/g, '+'),
      Buffer.from(value).toString('base64'),
      Buffer.from(value).toString('base64url'),
    ].filter((form) => form.length >= MIN_SECRET_LENGTH),
  );
}

/** Registers `partner:key` as used by HTTP Basic, so the header value is scrubbed as a whole too. */
export function registerBasicCredentials(partner: string, key: string): () => void {
  const releases = [registerSecret(key), registerSecret(`${partner}:${key}`)];
  return () => {
    for (const release of releases) release();
  };
}

/**
 * The secrets one owner (a client) registered, released together when it is done with them
 * (closed): values other owners registered too stay scrubbed for them.
 */
export class SecretSet {
  private readonly releases = new Map<string, () => void>();

  add(value: string | undefined | null): void {
    if (value === undefined || value === null || this.releases.has(value)) return;
    this.releases.set(value, registerSecret(value));
  }

  /** Releases one value (a token replaced since). */
  release(value: string): void {
    this.releases.get(value)?.();
    this.releases.delete(value);
  }

  releaseAll(): void {
    for (const release of this.releases.values()) release();
    this.releases.clear();
  }
}

/** Replaces every registered secret in `text` with `[redacted]`. Cheap when nothing is registered. */
export function scrub(text: string): string {
  if (values.size === 0) return text;
  if (pattern === undefined) {
    // Longest first, so a Base64 form is not half-replaced through a shorter value it contains.
    const sorted = [...values.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
    pattern = new RegExp(sorted.join('|'), 'g');
  }
  return text.replace(pattern, REDACTED);
}

/** Query parameters that carry credentials; their values are replaced wherever a URL is shown. */
export const SECRET_QUERY_PARAMS: readonly string[] = [
  'apiKey',
  'systemPartner',
  'securityID',
  'AuthToken',
  'token',
];

const SECRET_PARAM_NAMES: ReadonlySet<string> = new Set(
  SECRET_QUERY_PARAMS.map((name) => name.toLowerCase()),
);
/** The same parameters found in the text as written, separated by any of ? & # ; (see urlCredentials). */
const SECRET_PARAM_TEXT = new RegExp(`(?:^|[?&#;])(${SECRET_QUERY_PARAMS.join('|')})=([^&#\\s]*)`, 'gi');
const USER_INFO_TEXT = /\/\/([^/?#\s]*)@/;
/** User info with no `//` before it (`user:pw@host/x`, the scheme forgotten): the URL parser reads `user:` as a scheme. */
const BARE_USER_INFO = /^([^/?#\s]*)@/;

/** A credential written into a URL: where it is, to name it, and the value, never to show it. */
export interface UrlCredential {
  /** `user info`, or the query parameter's name as written (`apiKey`). */
  readonly name: string;
  readonly value: string;
}

/**
 * The credentials a URL carries, in order: its user info (`https://user:key@host/`) and every
 * credential query parameter (SECRET_QUERY_PARAMS, in any letter case, which a server may not tell
 * apart), in the query or the fragment. Text that does not parse as a URL is searched as text, so
 * that a malformed URL does not carry a key past this into a message that quotes it.
 */
export function urlCredentials(text: string): UrlCredential[] {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  // The text too, even of a URL: a server may also split at ';' (`?x=1;apiKey=...`, a path's
  // `;apiKey=...`), and a URL pasted from a page may have '&amp;' between its parameters.
  const written = [...text.matchAll(SECRET_PARAM_TEXT)].map(([, name, value]) => ({
    name: name as string,
    value: value as string,
  }));
  // No host: not a URL with an authority, whatever the parser made of it (`u:pw@h:1/x` parses as
  // the scheme `u:` and a path), so the text is searched for user info too.
  if (url === undefined || url.host === '') {
    const user = USER_INFO_TEXT.exec(text) ?? BARE_USER_INFO.exec(text);
    return [...(user === null ? [] : [{ name: 'user info', value: user[1] as string }]), ...written];
  }
  // Both halves: the user may be the key itself (`https://KEY@host/`).
  const user = [url.username, url.password]
    .filter((part) => part !== '')
    .map((part) => ({ name: 'user info', value: decoded(part) }));
  const params = [...url.searchParams, ...new URLSearchParams(url.hash.slice(1))]
    .filter(([name]) => SECRET_PARAM_NAMES.has(name.toLowerCase()))
    .map(([name, value]) => ({ name, value }));
  const seen = new Set(params.map((p) => `${p.name.toLowerCase()}=${p.value}`));
  const more = written.filter((p) => !seen.has(`${p.name.toLowerCase()}=${p.value}`));
  return [...user, ...params, ...more];
}

/** A URL's percent-encoded part as text; as written when it is not valid percent-encoding. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** What `urlCredentials` found, as a message names it (never its values). */
export function credentialsNamed(found: readonly UrlCredential[]): string {
  const params = [...new Set(found.map((credential) => credential.name))].filter(
    (name) => name !== 'user info',
  );
  const parts = found.some((credential) => credential.name === 'user info')
    ? ['a user name or password']
    : [];
  if (params.length > 0) {
    const list = params.length === 1 ? params[0] : `${params.slice(0, -1).join(', ')} and ${params.at(-1)}`;
    parts.push(`the query parameter${params.length === 1 ? '' : 's'} ${list}`);
  }
  return parts.join(' and ');
}

/** A URL fit for a log line or an error message: credential parameters masked, then scrubbed. */
export function redactUrl(url: string | URL): string {
  let text: string;
  try {
    const parsed = new URL(String(url));
    parsed.username = parsed.username ? REDACTED : '';
    parsed.password = parsed.password ? REDACTED : '';
    // Whatever their case: `APIKEY=` is the same parameter to many servers (urlCredentials agrees).
    const params = [...parsed.searchParams];
    if (params.some(([name]) => SECRET_PARAM_NAMES.has(name.toLowerCase())))
      parsed.search = new URLSearchParams(
        params.map(([name, value]): [string, string] => [
          name,
          SECRET_PARAM_NAMES.has(name.toLowerCase()) ? REDACTED : value,
        ]),
      ).toString();
    text = parsed.toString();
  } catch {
    text = String(url);
  }
  return scrub(text);
}

/** For tests only: forget every registered secret. */
export function clearSecrets(): void {
  values.clear();
  pattern = undefined;
}

/**
 * Endpoint URLs with a credential written into them (`?apiKey=...`, `https://user:key@host/`),
 * refused wherever the URL comes from: the job file's `service.endpoints`, an interface's
 * GEOBATCH_..._URL or GEOBATCH_EMULATOR_URL. A URL is configuration, kept and shown where a
 * credential never may be: the queue database of a distributed run keeps the job file's text, and
 * messages name the address of a service that fails. geobatch adds the credentials to each request
 * itself, from the environment. The refusal names the field and where the credential belongs; no
 * message or context carries the value. It is not registered as a secret either: the message
 * does not need it, and a short or word-like value ('user', 'token') scrubbed the message's own
 * words.
 */
import { ConfigError } from '../errors.js';
import { keyPath } from '../jobs/_file-rules.js';
import { credentialsNamed, type UrlCredential, urlCredentials } from '../secrets.js';
import { CREDENTIAL_ENV, EMULATOR_URL_ENV, ENDPOINT_ENV } from './defaults.js';
import type { Env } from './env.js';

type EndpointName = keyof typeof ENDPOINT_ENV;

interface Source {
  readonly url: unknown;
  /** The job file's key the URL is, or sets. */
  readonly path: string;
  readonly endpoint?: EndpointName;
  /** The environment variable it came from, when it did. */
  readonly variable?: string;
}

/** Where the first credential found belongs instead: the variables that give it. */
function belongs(found: UrlCredential, endpoint: EndpointName | undefined): string {
  const name = found.name.toLowerCase();
  if (name === 'systempartner' || name === 'securityid')
    return `${CREDENTIAL_ENV.systemPartner} and ${CREDENTIAL_ENV.securityID}`;
  if (name === 'token' || name === 'authtoken')
    return `${CREDENTIAL_ENV.apiKey} (geobatch fetches the autocomplete token itself with it)`;
  const basic = `${CREDENTIAL_ENV.partner} and ${CREDENTIAL_ENV.partnerKey}`;
  // Address search takes HTTP Basic, which user info looks like; GEOBATCH_EMULATOR_URL sets every endpoint.
  if (name === 'user info' && endpoint === 'addressSearch') return basic;
  if (name === 'user info' && endpoint === undefined)
    return `${CREDENTIAL_ENV.apiKey} (and ${basic} for address search)`;
  return CREDENTIAL_ENV.apiKey;
}

function refusal(
  shown: string,
  source: Source,
  found: readonly [UrlCredential, ...UrlCredential[]],
): ConfigError {
  const where = source.variable === undefined ? source.path : `${source.variable} (${source.path})`;
  return new ConfigError(
    `${shown}: ${where}: the URL carries a credential (${credentialsNamed(found)}); credentials come only from the environment, never in an endpoint URL`,
    {
      file: shown,
      path: source.path,
      expected: 'the base URL alone, without user info or credential query parameters',
      hint: `take it out of the URL and export ${belongs(found[0], source.endpoint)} instead: geobatch adds credentials to each request itself (service.credentials may name other variables, as \${VAR})`,
    },
  );
}

/**
 * Refuses the first endpoint URL that carries a credential, from the document (after `${VAR}`
 * interpolation, before the schema, whose messages quote the values they refuse) or from `env`.
 */
export function refuseCredentialsInUrls(document: unknown, env: Env, shown: string): void {
  const given = (document as { service?: { endpoints?: unknown } } | null)?.service?.endpoints;
  const sources: Source[] = [];
  // Every string under the key, whatever its shape: what the schema refuses it quotes.
  const walk = (node: unknown, path: readonly (string | number)[]): void => {
    if (typeof node === 'string')
      sources.push({ url: node, path: keyPath(path), endpoint: path[2] as EndpointName | undefined });
    else if (Array.isArray(node)) for (const [i, item] of node.entries()) walk(item, [...path, i]);
    else if (node !== null && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) walk(value, [...path, key]);
  };
  walk(given, ['service', 'endpoints']);
  for (const [name, variable] of Object.entries(ENDPOINT_ENV) as [EndpointName, string][])
    sources.push({ url: env[variable], path: `service.endpoints.${name}`, endpoint: name, variable });
  sources.push({ url: env[EMULATOR_URL_ENV], path: 'service.endpoints', variable: EMULATOR_URL_ENV });
  for (const source of sources) {
    const found = typeof source.url === 'string' ? urlCredentials(source.url) : [];
    if (found.length > 0) throw refusal(shown, source, found as [UrlCredential, ...UrlCredential[]]);
  }
}

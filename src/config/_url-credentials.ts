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
import { type Env, fromVariables, type Interpolated } from './env.js';

type EndpointName = keyof typeof ENDPOINT_ENV;

interface Source {
  readonly url: unknown;
  /** The job file's key the URL is, or sets. */
  readonly path: string;
  /** The same as a list of keys. */
  readonly keys: readonly (string | number)[];
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

/**
 * The refusal, naming the one place the URL came from (as endpointSources does): the job file's
 * key (with the variables that gave its value), or the variable alone, which is no key of the file.
 */
function refusal(
  shown: string,
  source: Source,
  found: readonly [UrlCredential, ...UrlCredential[]],
  substitutionAt: Interpolated['substitutionAt'],
): ConfigError {
  const words = `the URL carries a credential (${credentialsNamed(found)}); credentials come only from the environment, never in an endpoint URL`;
  const expected = 'the base URL alone, without user info or credential query parameters';
  const hint = `take it out of the URL and export ${belongs(found[0], source.endpoint)} instead: geobatch adds credentials to each request itself (service.credentials may name other variables, as \${VAR})`;
  if (source.variable !== undefined)
    return new ConfigError(`${source.variable}: ${words}`, { field: source.variable, expected, hint });
  const from = fromVariables(substitutionAt(source.keys));
  return new ConfigError(`${shown}: ${source.path}${from}: ${words}`, {
    file: shown,
    path: source.path,
    expected,
    hint,
  });
}

/**
 * Refuses the first endpoint URL that carries a credential, from the document (after `${VAR}`
 * interpolation, before the schema, whose messages quote the values they refuse) or from `env`;
 * then an address from `env` that is no http(s) URL (the file's are the schema's to refuse).
 */
export function refuseCredentialsInUrls(
  document: unknown,
  env: Env,
  shown: string,
  substitutionAt: Interpolated['substitutionAt'] = () => undefined,
): void {
  const given = (document as { service?: { endpoints?: unknown } } | null)?.service?.endpoints;
  const sources: Source[] = [];
  // Every string under the key, whatever its shape: what the schema refuses it quotes.
  const walk = (node: unknown, path: readonly (string | number)[]): void => {
    if (typeof node === 'string')
      sources.push({
        url: node,
        path: keyPath(path),
        keys: path,
        endpoint: path[2] as EndpointName | undefined,
      });
    else if (Array.isArray(node)) for (const [i, item] of node.entries()) walk(item, [...path, i]);
    else if (node !== null && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) walk(value, [...path, key]);
  };
  walk(given, ['service', 'endpoints']);
  for (const [name, variable] of Object.entries(ENDPOINT_ENV) as [EndpointName, string][])
    sources.push({
      url: env[variable],
      path: `service.endpoints.${name}`,
      keys: [],
      endpoint: name,
      variable,
    });
  sources.push({
    url: env[EMULATOR_URL_ENV],
    path: 'service.endpoints',
    keys: [],
    variable: EMULATOR_URL_ENV,
  });
  for (const source of sources) {
    const found = typeof source.url === 'string' ? urlCredentials(source.url) : [];
    if (found.length > 0)
      throw refusal(shown, source, found as [UrlCredential, ...UrlCredential[]], substitutionAt);
  }
  for (const source of sources) if (source.variable !== undefined) refuseNoUrl(source.variable, source.url);
}

/**
 * A variable's address that is no http(s) URL, refused by the variable's name and as it is set:
 * the client's check named `endpoints.addressSearch` and quoted `foo/addresssearch/v2`, the
 * emulator's layout made from GEOBATCH_EMULATOR_URL=foo, which the user had set nowhere. Called
 * once no URL carries a credential, so the value may be quoted; unset and empty are not used.
 */
function refuseNoUrl(variable: string, value: unknown): void {
  if (typeof value !== 'string' || value === '' || isHttpUrl(value)) return;
  const emulator = variable === EMULATOR_URL_ENV;
  const expected = emulator
    ? "an http(s) URL, the emulator's origin (http://host:port)"
    : 'an http(s) URL, the base URL of the interface';
  throw new ConfigError(`${variable}: expected ${expected}, got \`${value}\``, {
    field: variable,
    expected,
    received: value,
    hint: emulator
      ? `set ${variable} to the origin \`geobatch emulator\` prints, such as http://127.0.0.1:8787, or unset it`
      : `set ${variable} to the service's base URL (https://...), or unset it`,
  });
}

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

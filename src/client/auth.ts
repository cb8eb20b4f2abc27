/**
 * How each interface proves who we are, and what to tell the user when the service says no.
 *
 * Credentials are registered with secrets.ts here, the moment the client learns them, and are
 * turned into their wire form (query fragment, Basic header) once. Nothing is refused locally when
 * a credential is missing: the service's own 401/412 then produces the fatal error, so the message
 * reflects what the real service said.
 */
import { SecretSet } from '../secrets.js';
import type { Call } from './_call.js';
import type { HttpRequest } from './http.js';
import type { InterfaceName, ResolvedOptions } from './options.js';

export type Scheme = 'basic' | 'bearer' | 'key';

export const SCHEME: Readonly<Record<InterfaceName, Scheme>> = {
  addressSearch: 'basic',
  autocomplete: 'bearer',
  token: 'key',
  area: 'key',
  routing: 'key',
  geocoding: 'key',
  elevation: 'key',
};

/** Human names for messages; `context.service` keeps the InterfaceName. */
export const SERVICE_LABEL: Readonly<Record<InterfaceName, string>> = {
  addressSearch: 'address search',
  autocomplete: 'autocomplete',
  token: 'the autocomplete token endpoint',
  area: 'area',
  routing: 'routing',
  geocoding: 'geocoding',
  elevation: 'elevation',
};

export interface Auth {
  /** `apiKey=...` or `systemPartner=...&securityID=...`, URL-encoded; '' when none is configured. */
  readonly keyQuery: string;
  /** `Basic base64(partner:partnerKey)`, or undefined when not configured. */
  readonly basicHeader: string | undefined;
  /** The token endpoint path for the configured credential (its query is `keyQuery`). */
  readonly tokenPath: string;
  /** True when the interface has a credential to send (a bearer counts when a key can fetch it). */
  has(name: InterfaceName): boolean;
  /** What the credential is called, for messages: `the API key`. */
  credential(name: InterfaceName): string;
  /** Where the user sets it. */
  setting(name: InterfaceName): string;
}

/** The environment variables the CLI reads credentials from; named in fatal messages. */
export const CREDENTIAL_ENV = {
  apiKey: 'GEOBATCH_API_KEY',
  systemPartner: 'GEOBATCH_SYSTEM_PARTNER',
  securityID: 'GEOBATCH_SECURITY_ID',
  partner: 'GEOBATCH_PARTNER',
  partnerKey: 'GEOBATCH_PARTNER_KEY',
} as const;

/**
 * `sources`: the variables the credentials were read from, when not the standard ones (a job
 * file's `apiKey: ${MY_KEY}`), so that a rejected key's message sends the user to the right one.
 */
export function createAuth(
  credentials: ResolvedOptions['credentials'],
  sources: ResolvedOptions['credentialSources'] = {},
  secrets: SecretSet = new SecretSet(),
): Auth {
  const { apiKey, systemPartner, securityID, partner, partnerKey } = credentials;
  secrets.add(apiKey);
  // Half of the legacy credential: the spec lists it with the others, so it is hidden like them.
  secrets.add(systemPartner);
  secrets.add(securityID);
  secrets.add(partnerKey);
  // The Basic header's `partner:key`, so that it is scrubbed as a whole too.
  if (partner !== undefined && partnerKey !== undefined) secrets.add(`${partner}:${partnerKey}`);

  const legacy = apiKey === undefined && systemPartner !== undefined && securityID !== undefined;
  let keyQuery = '';
  if (apiKey !== undefined) keyQuery = `apiKey=${encodeURIComponent(apiKey)}`;
  else if (legacy) {
    keyQuery = `systemPartner=${encodeURIComponent(systemPartner)}&securityID=${encodeURIComponent(securityID)}`;
  }
  const basicHeader =
    partner !== undefined && partnerKey !== undefined
      ? `Basic ${Buffer.from(`${partner}:${partnerKey}`).toString('base64')}`
      : undefined;
  // service-notes.md: the v2 authtoken path is the one that takes the legacy pair.
  const tokenPath = legacy ? '/api_rst/v2/authtoken' : '/api_rst/api/autocompleteToken';

  return {
    keyQuery,
    basicHeader,
    tokenPath,
    has: (name) => (SCHEME[name] === 'basic' ? basicHeader !== undefined : keyQuery !== ''),
    credential: (name) => {
      if (SCHEME[name] === 'basic') return 'the partner name and key';
      if (SCHEME[name] === 'bearer') return 'a freshly fetched token';
      return legacy ? 'the systemPartner/securityID pair' : 'the API key';
    },
    setting: (name) => {
      const named = (key: keyof typeof CREDENTIAL_ENV) => sources[key] ?? CREDENTIAL_ENV[key];
      if (SCHEME[name] === 'basic') return `${named('partner')} and ${named('partnerKey')}`;
      return legacy ? `${named('systemPartner')} and ${named('securityID')}` : named('apiKey');
    },
  };
}

/**
 * The HTTP request for one attempt of `call`, credentials applied the way its interface wants
 * them. `token` is the bearer token for autocomplete.
 */
export function authorize(auth: Auth, call: Call<unknown>, requestId: string, token?: string): HttpRequest {
  const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': requestId };
  if (call.body !== undefined) headers['content-type'] = 'application/json';
  const scheme = SCHEME[call.service];
  let query = call.query ?? '';
  if (scheme === 'key' && auth.keyQuery !== '')
    query = query === '' ? auth.keyQuery : `${query}&${auth.keyQuery}`;
  else if (scheme === 'basic' && auth.basicHeader !== undefined) headers.authorization = auth.basicHeader;
  else if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const path = call.base.prefix + call.path + (query === '' ? '' : `?${query}`);
  return { origin: call.base.origin, path, method: call.method, headers, body: call.body };
}

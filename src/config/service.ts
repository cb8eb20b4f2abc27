/**
 * The job file's `service` section with the environment applied: endpoints (the emulator's
 * layout, or one variable per service) and credentials (only ever from the environment).
 */
import type { ClientOptions } from '../client/index.js';
import { ConfigError } from '../errors.js';
import { registerSecret, secretForms } from '../secrets.js';
import { type WrittenNumbers, writtenPath } from './_written.js';
import { CREDENTIAL_ENV, DEFAULTS, EMULATOR_URL_ENV, ENDPOINT_ENV } from './defaults.js';
import {
  type Env,
  hasDefault,
  type Interpolated,
  isEnvReference,
  unsetVariable,
  variablesNamed,
} from './env.js';
import type { JobFile } from './schema.js';

export type EndpointName = keyof typeof ENDPOINT_ENV;
export type CredentialName = keyof typeof CREDENTIAL_ENV;

/**
 * The job file's `service` section with the environment applied: exactly the client's options,
 * whose defaults and validation the client owns.
 */
export type ServiceSettings = Omit<ClientOptions, 'logger'> & {
  readonly endpoints: Readonly<Partial<Record<EndpointName, string>>>;
  readonly credentials: Readonly<Partial<Record<CredentialName, string>>>;
};

/** Emulator layout on one origin, matching `geobatch emulator`'s URLs. */
export function emulatorEndpoints(origin: string): Record<EndpointName, string> {
  const root = origin.replace(/\/+$/, '');
  return {
    addressSearch: `${root}/addresssearch/v2`,
    geojson: `${root}/api_rst/v2/geojson`,
    autocomplete: `${root}/api/v5/Autocomplete`,
    token: root,
    area: root,
    elevation: root,
  };
}

/**
 * Refuses, before anything is interpolated, a credential the file writes itself: a literal key, or
 * a reference with a default (`${VAR:-key}`), which is a literal key all the same. The value is a
 * secret sitting in a file, so no message or context ever carries it.
 */
export function refuseLiteralCredentials(raw: unknown, shown: string): void {
  const credentials = (raw as { service?: { credentials?: unknown } }).service?.credentials;
  if (credentials === undefined || credentials === null) return;
  if (typeof credentials !== 'object' || Array.isArray(credentials)) {
    // `credentials: <the key>` is a key in the file all the same, and the schema's "got" shows it.
    const kind = Array.isArray(credentials) ? 'a list' : `a ${typeof credentials}`;
    throw new ConfigError(
      `${shown}: service.credentials: expected a mapping of references such as apiKey: \${GEOBATCH_API_KEY}, got ${kind}`,
      {
        file: shown,
        path: 'service.credentials',
        expected: 'a mapping of credential references',
        received: kind,
        hint: `write \`credentials: { apiKey: \${GEOBATCH_API_KEY} }\` (or leave it out: the GEOBATCH_... variables are read anyway) and export the value`,
      },
    );
  }
  for (const [name, value] of Object.entries(credentials)) {
    const path = `service.credentials.${name}`;
    const standard = CREDENTIAL_ENV[name as CredentialName] ?? 'GEOBATCH_...';
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string') {
      // `apiKey: [the key]` or a number is a key written into the file as much as a string is;
      // the schema's "got [...]" would print it.
      const kind = Array.isArray(value)
        ? 'a list'
        : typeof value === 'object'
          ? 'a mapping'
          : `a ${typeof value}`;
      throw new ConfigError(`${shown}: ${path}: expected a reference such as \${${standard}}, got ${kind}`, {
        file: shown,
        path,
        expected: `a reference such as \${${standard}}`,
        received: kind,
        hint: `write \`${name}: \${${standard}}\` (or leave it out: ${standard} is read anyway) and export the value`,
      });
    }
    if (!isEnvReference(value)) {
      throw new ConfigError(`${shown}: ${path}: secrets must come from the environment`, {
        file: shown,
        path,
        expected: `a reference such as \${${standard}}`,
        hint: `write \`${name}: \${${standard}}\` (or leave it out: ${standard} is read anyway) and export the value`,
      });
    }
    if (hasDefault(value)) {
      const variable = unsetVariable(value) as string;
      throw new ConfigError(
        `${shown}: ${path}: a credential reference takes no default (the default is a key written into the file); secrets must come from the environment`,
        {
          file: shown,
          path,
          expected: `a reference without a default, such as \${${variable}}`,
          hint: `write \`${name}: \${${variable}}\` and export ${variable} (or leave it out: ${standard} is read anyway)`,
        },
      );
    }
  }
}

/**
 * Registers every credential the environment holds for this file (the standard variables and those
 * its `service.credentials` name) before anything is checked, so that a load error quoting one
 * (`batchSize: ${GEOBATCH_API_KEY}`, "got ...") shows it scrubbed.
 */
export function registerCredentials(raw: unknown, env: Env): void {
  for (const variable of credentialVariables(raw)) registerSecret(env[variable]);
}

/**
 * The halves of a credential that are secret: the partner names (`partner`, `systemPartner`) are
 * account names, scrubbed from what geobatch prints like the rest, but no secret to refuse as data
 * (a customer or tenant name often equals one).
 */
const SECRET_CREDENTIALS: ReadonlySet<string> = new Set(['apiKey', 'securityID', 'partnerKey']);

/**
 * The variables holding this file's credentials: the standard ones and those it names; with
 * `secretOnly`, only those of the secret halves.
 */
function credentialVariables(raw: unknown, secretOnly = false): Set<string> {
  const credentials = (raw as { service?: { credentials?: unknown } }).service?.credentials;
  const wanted = (name: string) => !secretOnly || SECRET_CREDENTIALS.has(name);
  const named =
    credentials !== null && typeof credentials === 'object'
      ? Object.entries(credentials).map(([name, value]) =>
          typeof value === 'string' && wanted(name) ? unsetVariable(value) : undefined,
        )
      : [];
  const standard = Object.entries(CREDENTIAL_ENV)
    .filter(([name]) => wanted(name))
    .map(([, variable]) => variable);
  return new Set([...standard, ...named].filter((v): v is string => v !== undefined));
}

const REFERENCES = /\$\{([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Refuses a secret credential (an API key, a security ID, a partner key) used anywhere but
 * `service.credentials`: by its variable's name (`country: { value: ${GEOBATCH_API_KEY} }`), by
 * another variable that holds the same value, or written out (`city: { value: <the key> }`).
 * Used as data, a key is sent in requests, written to outputs, kept in the request cache (whose
 * keys hold the items) and listed by `validate`, none of which ever carries a secret. Checked
 * before interpolation, so no message carries the value.
 */
export function refuseCredentialsElsewhere(
  raw: unknown,
  env: Env,
  shown: string,
  written?: WrittenNumbers,
): void {
  const variables = credentialVariables(raw, true);
  // Each secret's value, by the variable it came from (for the message, which never shows it).
  const owners = new Map<string, string>();
  for (const name of variables) {
    const value = env[name];
    if (value !== undefined && value.length >= 4 && !owners.has(value)) owners.set(value, name);
  }
  // The pair as HTTP Basic sends it (`partner:key`, Base64 in the header): a secret as a whole,
  // though the partner name alone is not one.
  const partnerVariable = credentialVariable(raw, 'partner');
  const keyVariable = credentialVariable(raw, 'partnerKey');
  const [partner, partnerKey] = [env[partnerVariable], env[keyVariable]];
  if (partner && partnerKey && partnerKey.length >= 4)
    owners.set(`${partner}:${partnerKey}`, `${partnerVariable}:${keyVariable} (HTTP Basic)`);
  const walk = (node: unknown, path: readonly (string | number)[]): void => {
    // A number is text of the file too: a constant keeps it as written (_written.ts) and sends it.
    if (typeof node === 'number') {
      walk(written?.(path) ?? String(node), path);
      return;
    }
    if (typeof node === 'string') {
      if (path[0] === 'service' && path[1] === 'credentials') return;
      const holder = writtenSecret(node, owners);
      if (holder !== undefined) {
        const at = writtenPath(path, written);
        throw new ConfigError(
          `${shown}: ${at}: holds the value of ${holder}, a credential, written out; a credential may only be given under service.credentials`,
          {
            file: shown,
            path: at,
            expected: 'a value that is not a credential',
            hint: 'a credential used as data would be sent, written to the output and kept in the request cache; remove it from the job file',
          },
        );
      }
      for (const [, name] of node.matchAll(REFERENCES)) {
        const value = env[name as string];
        if (!variables.has(name as string) && !(value !== undefined && owners.has(value))) continue;
        const at = writtenPath(path, written);
        throw new ConfigError(
          `${shown}: ${at}: \${${name}} holds a credential, which may only be named under service.credentials`,
          {
            file: shown,
            path: at,
            expected: 'a value that is not a credential',
            hint: 'a credential used as data would be sent, written to the output and kept in the request cache; name another variable here',
          },
        );
      }
      return;
    }
    if (Array.isArray(node)) for (const [i, value] of node.entries()) walk(value, [...path, i]);
    else if (node !== null && typeof node === 'object')
      for (const [key, value] of Object.entries(node)) walk(value, [...path, key]);
  };
  walk(raw, []);
}

/**
 * The variable whose secret `text` holds written out: the whole value, or (for a value of 8
 * characters or more, which no ordinary word of a job file contains by chance) a part of it; in
 * any form it travels in (URL-encoded, Base64: `ZGVtby1hcGkta2V5` is the key as much as the key),
 * the text read URL-decoded too (`%2b` as `%2B`, a key encoded in part), in any letter case.
 */
function writtenSecret(text: string, owners: ReadonlyMap<string, string>): string | undefined {
  // In any letter case too: a geocode item is kept lower-cased in the request cache.
  const texts = new Set(
    [text, urlDecoded(text), urlDecoded(text.replace(/\+/g, ' '))].map((read) => read.toLowerCase()),
  );
  for (const [value, name] of owners)
    for (const form of [value, ...secretForms(value)]) {
      const lower = form.toLowerCase();
      for (const read of texts)
        if (read === lower || (lower.length >= 8 && read.includes(lower))) return name;
    }
  return undefined;
}

/** `text` with its %XX escapes decoded, leniently: a stray `%` (`100% ...`) stays as it is. */
function urlDecoded(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) =>
    Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'),
  );
}

/** The variable a credential is read from: the job file's `${VAR}` for it, else the standard one. */
function credentialVariable(raw: unknown, name: keyof typeof CREDENTIAL_ENV): string {
  const credentials = (raw as { service?: { credentials?: Record<string, unknown> } }).service?.credentials;
  const value = credentials !== null && typeof credentials === 'object' ? credentials[name] : undefined;
  return (typeof value === 'string' ? unsetVariable(value) : undefined) ?? CREDENTIAL_ENV[name];
}

/**
 * `file`: how messages name the job file, for the address it set (endpointSources);
 * `substitutionAt`: how the file's strings were made from the environment (interpolate), so that
 * an address written `${MY_URL}` is named with the variable that gave it.
 */
export function resolveService(
  doc: Pick<JobFile, 'service'>,
  env: Env,
  file = 'the job file',
  substitutionAt: Interpolated['substitutionAt'] = () => undefined,
): ServiceSettings {
  const { endpoints: fileEndpoints, credentials: fileCredentials, throttle, ...rest } = doc.service ?? {};
  const endpoints: Partial<Record<EndpointName, string>> = { ...fileEndpoints };
  // Where each address came from, the last that set it: a wrong one's message names that alone.
  const endpointSources: Partial<Record<EndpointName, string>> = {};
  for (const name of Object.keys(fileEndpoints ?? {}) as EndpointName[])
    endpointSources[name] = fileEndpointSource(name, file, substitutionAt);
  const emulator = env[EMULATOR_URL_ENV];
  if (emulator) {
    Object.assign(endpoints, emulatorEndpoints(emulator));
    for (const name of Object.keys(ENDPOINT_ENV) as EndpointName[]) endpointSources[name] = EMULATOR_URL_ENV;
  }
  for (const [name, variable] of Object.entries(ENDPOINT_ENV) as [EndpointName, string][]) {
    const value = env[variable];
    if (value) {
      endpoints[name] = value;
      endpointSources[name] = variable;
    }
  }
  const credentials: Partial<Record<CredentialName, string>> = {};
  // The variable each came from when the file names its own (`apiKey: ${MY_KEY}`): a rejected
  // key's message names it, not GEOBATCH_API_KEY, which may not even be set.
  const credentialSources: Partial<Record<CredentialName, string>> = {};
  for (const [name, variable] of Object.entries(CREDENTIAL_ENV) as [CredentialName, string][]) {
    const fromFile = fileCredentials?.[name];
    const value = fromFile ?? env[variable];
    if (value) credentials[name] = value;
    const named = fromFile === undefined ? undefined : substitutionAt(['service', 'credentials', name]);
    if (value && named !== undefined && named.variables.length === 1)
      credentialSources[name] = (named.variables[0] as { name: string }).name;
  }
  const { interfaces, ...global } = throttle ?? {};
  return {
    ...rest,
    endpoints,
    endpointSources,
    credentials,
    credentialSources,
    channel: rest.channel ?? DEFAULTS.service.channel,
    throttle: { global, interfaces: interfaces ?? {} },
  };
}

/**
 * How a message names the job file's key that set an endpoint: `service.endpoints.geojson in
 * jobs/x.yaml`, and `, from ${MY_URL}` when the file writes the variable that gave it.
 */
export function fileEndpointSource(
  name: string,
  file: string,
  substitutionAt: Interpolated['substitutionAt'],
): string {
  const names = variablesNamed(substitutionAt(['service', 'endpoints', name]));
  return `service.endpoints.${name} in ${file}${names === undefined ? '' : `, from ${names}`}`;
}

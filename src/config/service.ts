/**
 * The job file's `service` section with the environment applied: endpoints (the emulator's
 * layout, or one variable per service) and credentials (only ever from the environment).
 */
import type { ClientOptions } from '../client/index.js';
import { ConfigError } from '../errors.js';
import { registerSecret } from '../secrets.js';
import { CREDENTIAL_ENV, DEFAULTS, EMULATOR_URL_ENV, ENDPOINT_ENV } from './defaults.js';
import { type Env, hasDefault, isEnvReference, unsetVariable } from './env.js';
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
  if (credentials === undefined || credentials === null || typeof credentials !== 'object') return;
  for (const [name, value] of Object.entries(credentials)) {
    if (typeof value !== 'string') continue;
    const path = `service.credentials.${name}`;
    const standard = CREDENTIAL_ENV[name as CredentialName] ?? 'GEOBATCH_...';
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
  const credentials = (raw as { service?: { credentials?: unknown } }).service?.credentials;
  const named =
    credentials !== null && typeof credentials === 'object'
      ? Object.values(credentials).map((value) =>
          typeof value === 'string' ? unsetVariable(value) : undefined,
        )
      : [];
  for (const variable of [...Object.values(CREDENTIAL_ENV), ...named])
    if (variable !== undefined) registerSecret(env[variable]);
}

export function resolveService(doc: Pick<JobFile, 'service'>, env: Env): ServiceSettings {
  const { endpoints: fileEndpoints, credentials: fileCredentials, throttle, ...rest } = doc.service ?? {};
  const endpoints: Partial<Record<EndpointName, string>> = { ...fileEndpoints };
  const emulator = env[EMULATOR_URL_ENV];
  if (emulator) Object.assign(endpoints, emulatorEndpoints(emulator));
  for (const [name, variable] of Object.entries(ENDPOINT_ENV) as [EndpointName, string][]) {
    const value = env[variable];
    if (value) endpoints[name] = value;
  }
  const credentials: Partial<Record<CredentialName, string>> = {};
  for (const [name, variable] of Object.entries(CREDENTIAL_ENV) as [CredentialName, string][]) {
    const value = fileCredentials?.[name] ?? env[variable];
    if (value) credentials[name] = value;
  }
  const { interfaces, ...global } = throttle ?? {};
  return {
    ...rest,
    endpoints,
    credentials,
    channel: rest.channel ?? DEFAULTS.service.channel,
    throttle: { global, interfaces: interfaces ?? {} },
  };
}

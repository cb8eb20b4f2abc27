/**
 * The job file's `service` section with the environment applied: endpoints (the emulator's
 * layout, or one variable per service) and credentials (only ever from the environment).
 */
import type { ClientOptions } from '../client/index.js';
import { CREDENTIAL_ENV, DEFAULTS, EMULATOR_URL_ENV, ENDPOINT_ENV } from './defaults.js';
import type { Env } from './env.js';
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

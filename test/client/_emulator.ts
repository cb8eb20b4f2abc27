/** Starts the emulator and a client pointed at it; both closed by `stop()`. */
import { afterAll, beforeAll } from 'vitest';
import type { ClientOptions, GeoClient } from '../../src/client/index.js';
import { createClient } from '../../src/client/index.js';
import type { EmulatorHandle, EmulatorOptions, RequestInfo } from '../../src/emulator/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { clearSecrets } from '../../src/secrets.js';

export interface Rig {
  emulator: EmulatorHandle;
  client: GeoClient;
  stop(): Promise<void>;
}

/** Client options for `emulator`: its URLs and its demo credentials. */
export function optionsFor(emulator: EmulatorHandle, extra: Partial<ClientOptions> = {}): ClientOptions {
  const { urls, credentials } = emulator;
  return {
    endpoints: {
      addressSearch: urls.addressSearch,
      geojson: urls.geojson,
      autocomplete: urls.autocomplete,
      token: urls.token,
      area: urls.area,
      elevation: urls.elevation,
    },
    credentials: {
      apiKey: credentials.apiKey,
      partner: credentials.partner,
      partnerKey: credentials.partnerKey,
    },
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...extra,
  };
}

export async function rig(
  clientOptions: Partial<ClientOptions> = {},
  emulatorOptions: EmulatorOptions = {},
): Promise<Rig> {
  const emulator = await startEmulator(emulatorOptions);
  const client = createClient(optionsFor(emulator, clientOptions));
  return {
    emulator,
    client,
    stop: async () => {
      await client.close();
      await emulator.close();
    },
  };
}

/**
 * One rig for a whole test file, with every request the emulator receives in `seen`: started
 * before the file's tests, stopped after them and the secrets its client registered cleared.
 */
export function fileRig(): {
  readonly seen: RequestInfo[];
  readonly client: GeoClient;
  readonly emulator: EmulatorHandle;
} {
  const seen: RequestInfo[] = [];
  let current: Rig | undefined;
  beforeAll(async () => {
    current = await rig({}, { onRequest: (info) => seen.push(info) });
  });
  afterAll(async () => {
    await current?.stop();
    clearSecrets();
  });
  const started = (): Rig => {
    if (current === undefined) throw new Error('fileRig: used outside the tests of its file');
    return current;
  };
  return {
    seen,
    get client() {
      return started().client;
    },
    get emulator() {
      return started().emulator;
    },
  };
}

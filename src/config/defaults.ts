/**
 * The defaults the job-file layer owns. Everything else a job file leaves out takes the default of
 * the component that uses it (client: src/client/options.ts; engine: src/engine/options.ts; run:
 * src/run/run.ts), so that each default exists once. The README's job-file reference lists them all.
 */
export const DEFAULTS = {
  service: {
    /**
     * Sent as Channel / channel / authentication.channel: shows up in the vendor's logs. Endpoints,
     * timeouts, retry and throttle defaults are the client's own (src/client/options.ts).
     */
    channel: 'geobatch',
  },
} as const;

/** Environment variables read for credentials when the job file does not name them (the client names them in its messages). */
export { CREDENTIAL_ENV } from '../client/index.js';

/** Environment variables that override one endpoint each (after the job file, before CLI flags). */
export const ENDPOINT_ENV = {
  addressSearch: 'GEOBATCH_ADDRESS_SEARCH_URL',
  geojson: 'GEOBATCH_GEOJSON_URL',
  autocomplete: 'GEOBATCH_AUTOCOMPLETE_URL',
  token: 'GEOBATCH_TOKEN_URL',
  area: 'GEOBATCH_AREA_URL',
  elevation: 'GEOBATCH_ELEVATION_URL',
} as const;

/** Points every endpoint at a running `geobatch emulator` (its layout, one origin). */
export const EMULATOR_URL_ENV = 'GEOBATCH_EMULATOR_URL';

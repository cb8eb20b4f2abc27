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
/** Environment variables that override one endpoint each, and all of them for an emulator. */
export { CREDENTIAL_ENV, EMULATOR_URL_ENV, ENDPOINT_ENV } from '../client/index.js';

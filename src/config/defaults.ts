/**
 * Every default a job file can leave out, in one place. The job-file reference in the README is
 * written from this object; keep the two in step.
 */
export const DEFAULTS = {
  service: {
    /**
     * Sent as Channel / channel / authentication.channel: shows up in the vendor's logs. Endpoints,
     * timeouts, retry and throttle defaults are the client's own (src/client/options.ts).
     */
    channel: 'geobatch',
  },
  run: {
    /** Rows in flight between reading and writing; bounds memory and the reorder buffer. */
    window: 4096,
    /** Finished answers remembered for dedup; bounded so memory stays flat on huge files. */
    dedupCacheSize: 50_000,
    /** How often output, report and journal are fsync'd; the most a crash can make you re-request. */
    checkpointSeconds: 2,
  },
  output: {
    /** Prefix spreadsheet-formula-looking text with ' in CSV output (CSV injection). */
    formulaGuard: true,
  },
  input: {
    /** `auto` detects , ; TAB or | from the header line. */
    delimiter: 'auto',
    encoding: 'utf-8',
  },
} as const;

/** Environment variables read for credentials when the job file does not name them. */
export const CREDENTIAL_ENV = {
  apiKey: 'GEOBATCH_API_KEY',
  systemPartner: 'GEOBATCH_SYSTEM_PARTNER',
  securityID: 'GEOBATCH_SECURITY_ID',
  partner: 'GEOBATCH_PARTNER',
  partnerKey: 'GEOBATCH_PARTNER_KEY',
} as const;

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

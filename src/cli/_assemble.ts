/**
 * From a loaded job file to a ready run: check that the services it needs are configured, build
 * the client and the job, read a matrix job's destinations, and fill the run spec. Shared by
 * `geobatch run` and `geobatch demo`, so the demo runs exactly what a user would.
 */
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { openRunCache, type RunCache } from '../cache/run-cache.js';
import { type CacheFlags, resolveCacheSettings } from '../cache/settings.js';
import { DEFAULTS as CLIENT_DEFAULTS, createClient, type GeoClient } from '../client/index.js';
import { CREDENTIAL_ENV, ENDPOINT_ENV } from '../config/defaults.js';
import { type EndpointName, fingerprintOf, type JobConfig } from '../config/load.js';
import { ConfigError } from '../errors.js';
import { openReader } from '../input/open.js';
import { isPlanIssue, readPoint } from '../jobs/_fields.js';
import { createJob, SERVICES_BY_KIND } from '../jobs/index.js';
import { type Destination, destinationId } from '../jobs/matrix.js';
import type { RunSpec } from '../run.js';

/** Endpoints without a public address: a job that uses them must configure them. */
const NO_PUBLIC_DEFAULT: ReadonlySet<EndpointName> = new Set(['elevation', 'addressSearch']);

/** Destinations are held in memory for the whole run. */
const DEFAULT_MAX_DESTINATIONS = 10_000;

export interface RunChoices {
  readonly logger: Logger;
  readonly resume?: boolean;
  readonly dryRun?: boolean;
  readonly progress?: boolean;
  readonly signal?: AbortSignal;
  /**
   * The request cache as the command line sets it (`--cache`, `--no-cache`, `--cache-mode`), over
   * GEOBATCH_CACHE, the job file and the default. Absent: no cache (the library's and the demo's
   * default).
   */
  readonly cache?: CacheFlags & {
    /** The run is against the embedded emulator (`--emulator`). */
    readonly embeddedEmulator?: boolean;
    /** See SqliteOptions.maxBytes. */
    readonly maxBytes?: number;
  };
}

export interface Assembled {
  readonly spec: RunSpec;
  readonly client: GeoClient;
  /** Close it after the run, as the client: it writes the last answers. */
  readonly cache?: RunCache;
}

/** Refuses, before any row is read, a job whose service has no address or no credentials. */
export function checkService(config: JobConfig): void {
  const { endpoints, credentials } = config.service;
  for (const name of SERVICES_BY_KIND[config.kind]) {
    if (NO_PUBLIC_DEFAULT.has(name) && endpoints[name] === undefined) {
      throw new ConfigError(`${config.file}: the ${config.kind} job needs service.endpoints.${name}`, {
        file: config.file,
        path: `service.endpoints.${name}`,
        expected: 'the base URL of your integration',
        hint: `set it in the job file or export ${ENDPOINT_ENV[name]}=...; to try geobatch without a key, add --emulator`,
      });
    }
    const basic = name === 'addressSearch';
    const present = basic
      ? credentials.partner !== undefined && credentials.partnerKey !== undefined
      : credentials.apiKey !== undefined ||
        (credentials.systemPartner !== undefined && credentials.securityID !== undefined);
    if (!present) {
      const variables = basic
        ? `${CREDENTIAL_ENV.partner} and ${CREDENTIAL_ENV.partnerKey}`
        : `${CREDENTIAL_ENV.apiKey} (or ${CREDENTIAL_ENV.systemPartner} and ${CREDENTIAL_ENV.securityID})`;
      throw new ConfigError(`${config.file}: no credentials for the ${config.kind} job`, {
        file: config.file,
        path: 'service.credentials',
        expected: variables,
        hint: `export ${variables}; to try geobatch without a key, add --emulator`,
      });
    }
  }
}

/** Reads a matrix job's destinations file into memory, refusing bad rows with their row and field. */
async function readDestinations(config: JobConfig, signal?: AbortSignal): Promise<Destination[] | undefined> {
  const file = config.destinations;
  if (file === undefined) return undefined;
  const limit = file.maxRows ?? DEFAULT_MAX_DESTINATIONS;
  const { path, format, encoding, delimiter } = file.input;
  const reader = await openReader({ path, format, encoding, csv: { delimiter }, signal });
  const destinations: Destination[] = [];
  for await (const item of reader) {
    const row = item.ref.index + 1;
    if (item.kind === 'issue')
      throw new ConfigError(`${path} row ${row}: ${item.message}`, { file: path, row });
    const point = readPoint(item, file.mapping);
    if (isPlanIssue(point)) {
      throw new ConfigError(`${path} row ${row}: ${point.message}`, { file: path, row, field: point.field });
    }
    if (destinations.length === limit) {
      throw new ConfigError(`${path}: more than ${limit} destinations`, {
        file: path,
        path: 'options.destinations.maxRows',
        hint: 'raise options.destinations.maxRows, or split the destinations file',
      });
    }
    destinations.push({ id: destinationId(item, file.mapping), point });
  }
  return destinations;
}

export async function assemble(config: JobConfig, choices: RunChoices): Promise<Assembled> {
  if (choices.dryRun !== true) checkService(config);
  const client = createClient({ ...config.service, logger: choices.logger });
  let cache: RunCache | undefined;
  try {
    cache = await openCache(config, choices);
    const destinations = await readDestinations(config, choices.signal);
    const job = createJob(config, cache?.wrap(client) ?? client, { destinations });
    const answers = cache?.answersFor(job);
    const rate = config.service.throttle?.global?.rate;
    const spec: RunSpec = {
      job,
      jobFingerprint: fingerprintOf(config),
      input: {
        path: config.input.path,
        format: config.input.format,
        encoding: config.input.encoding,
        csv: { delimiter: config.input.delimiter },
      },
      output: {
        path: config.output.path,
        format: config.output.format,
        formulaGuard: config.output.formulaGuard,
      },
      report: { path: config.errors.path, format: config.errors.format },
      engine: {
        // One knob for both: the engine queues no more than the client may send at once.
        concurrency:
          config.service.throttle?.global?.concurrency ?? CLIENT_DEFAULTS.throttle.global.concurrency,
        window: config.run.window,
        dedupCacheSize: config.run.dedupCacheSize,
        ...(answers === undefined ? {} : { answers }),
      },
      checkpoint: {
        intervalMs:
          config.run.checkpointSeconds === undefined ? undefined : config.run.checkpointSeconds * 1000,
      },
      resume: choices.resume,
      dryRun: choices.dryRun,
      requestsPerSecond: rate ?? undefined,
      signal: choices.signal,
      logger: choices.logger,
      metrics: () => ({ ...client.metrics() }),
      progress: { enabled: choices.progress !== false },
      ...(cache === undefined ? {} : { cache }),
    };
    return { spec, client, ...(cache === undefined ? {} : { cache }) };
  } catch (error) {
    await cache?.close();
    await client.close();
    throw error;
  }
}

async function openCache(config: JobConfig, choices: RunChoices): Promise<RunCache | undefined> {
  const flags = choices.cache;
  if (flags === undefined) return undefined;
  const block = 'cache' in config.document ? config.document.cache : undefined;
  const settings = resolveCacheSettings(block, dirname(config.file), flags);
  if (settings === undefined) return undefined;
  return openRunCache(config, {
    settings,
    logger: choices.logger,
    embeddedEmulator: flags.embeddedEmulator,
    dryRun: choices.dryRun,
    maxBytes: flags.maxBytes,
  });
}

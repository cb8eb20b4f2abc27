/**
 * The cache of one run: the store opened per the settings, the engine's answer cache for the
 * job's items, the boundaries job's area cache and the trip and match jobs' request cache around
 * the client, and, when the run ends, the
 * last writes, the run's line in `cache stats` and the summary's counts.
 */
import { statSync } from 'node:fs';
import type { Logger } from 'pino';
import { DEFAULTS as CLIENT_DEFAULTS } from '../client/index.js';
import type { CacheMode } from '../config/cache.js';
import type { EndpointName, JobConfig, StepConfig } from '../config/load.js';
import type { AnyJob } from '../engine/job.js';
import { ENGINE_DEFAULTS } from '../engine/options.js';
import type { JobClient } from '../jobs/index.js';
import type { CacheSummary } from '../output/summary.js';
import { watchedForDamage } from './_damage.js';
import { isDiskProblem } from './_errors.js';
import { answerParams, ITEM_POLICIES } from './_kinds.js';
import { isPostgresUrl } from './_pg-url.js';
import { SeenKeys } from './_seen-keys.js';
import { type CacheAnswers, createAnswerCache } from './answers.js';
import { cachedAreas } from './areas.js';
import { EMBEDDED_EMULATOR, scopeOf, serviceIdentity } from './key.js';
import { resolveLifetimes } from './lifetimes.js';
import { cachedRouting } from './routing.js';
import type { CacheSettings } from './settings.js';
import { openSqliteStore } from './sqlite.js';
import type { CacheStore, Scope } from './store.js';
import { type CacheCounts, type CacheTally, createTally, RowCounts } from './tally.js';
import { CacheWriter } from './writer.js';

export interface RunCacheOptions {
  readonly settings: CacheSettings;
  readonly logger: Logger;
  /** The run is `--emulator`'s: one service, whatever its port. */
  readonly embeddedEmulator?: boolean;
  /** A dry run reads the cache to count what it would answer, and writes nothing. */
  readonly dryRun?: boolean;
  /** See SqliteOptions.maxBytes. */
  readonly maxBytes?: number;
  /**
   * When the run began (ms since the epoch), if before this process: a resumed run's first
   * session. A refresh takes the answers written since, so a resume does not buy again what the
   * session before it bought. @default now
   */
  readonly runStartedAt?: number;
}

export interface RunCache {
  /** It writes the answers it is told (not read-only, not a dry run). */
  readonly writes: boolean;
  /** The client the job should use: the boundaries job's area calls go through the area cache. */
  wrap<C extends JobClient>(client: C): C;
  /**
   * The engine's answer cache for one step's items (a one-job file has one step); undefined for
   * kinds cached otherwise (boundaries: through `wrap`) or not at all.
   */
  answersFor(
    job: AnyJob,
    step: Pick<StepConfig, 'kind' | 'options'>,
    savings?: SharedSavings,
  ): CacheAnswers | undefined;
  summary(): CacheSummary;
  /**
   * Starts counting hits and misses per input row, for a run that keeps a checkpoint, and gives
   * the counts of the rows from `committedRows` on: those a checkpoint must not carry, as the next
   * session answers those rows again. Rows below are forgotten as checkpoints commit them.
   */
  rowCounts(): (committedRows: number) => CacheCounts;
  /**
   * Writes the answers still pending (the run ended: the summary should count them), waiting up
   * to `waitMs` for a file another process holds locked (CacheWriter.flush).
   */
  flush(waitMs?: number): Promise<void>;
  /** Writes what is pending, records the run, closes the store. */
  close(): Promise<void>;
  /**
   * The run starts over (`--restart-if-changed` set its checkpoint aside): a refresh takes no answer
   * written before now, not even one the set-aside session bought.
   */
  restarted(): void;
}

export async function openStore(
  location: string,
  options: {
    readOnly: boolean;
    maxBytes?: number;
    logger?: Logger;
    queryTimeoutMs?: number;
    /** See CacheFlags.fromQueue. */
    fromQueue?: boolean;
  },
): Promise<CacheStore | undefined> {
  if (isPostgresUrl(location)) {
    // Loaded only when used: a run on the SQLite file does not pay for the pg driver's start-up.
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(location, {
      readOnly: options.readOnly,
      fromQueue: options.fromQueue === true,
      ...(options.queryTimeoutMs === undefined ? {} : { queryTimeoutMs: options.queryTimeoutMs }),
    });
  }
  const logger = options.logger;
  return openSqliteStore(location, {
    readOnly: options.readOnly,
    maxBytes: options.maxBytes,
    // Opening waits out another run's start; writes wait briefly and are tried again (writer.ts).
    writeBusyTimeoutMs: RUN_WRITE_BUSY_MS,
    ...(logger === undefined ? {} : { debug: (fields, message) => logger.debug(fields, message) }),
  });
}

/** How long one of a run's cache writes waits for a lock another process holds on the file. */
const RUN_WRITE_BUSY_MS = 250;

/** Opens the run's cache; undefined when a read-only cache does not exist yet. */
export async function openRunCache(config: JobConfig, o: RunCacheOptions): Promise<RunCache | undefined> {
  const { settings, logger } = o;
  const readOnly = settings.mode === 'read-only' || o.dryRun === true;
  if (settings.overridesJobOff === true) {
    logger.info(
      { cache: settings.location },
      'The job file says `cache: false`, and --cache (an explicit cache location) overrides it: this run uses the request cache',
    );
  }
  let store: CacheStore | undefined;
  try {
    store = await openStore(settings.location, {
      readOnly,
      maxBytes: o.maxBytes,
      logger,
      fromQueue: settings.fromQueue === true,
    });
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (readOnly || !isDiskProblem(cause)) throw error;
    logger.warn(
      { cache: settings.location, err: cause },
      'The request cache cannot be written (the disk is full or failing): this run goes on without it',
    );
    return undefined;
  }
  if (store === undefined) {
    logger.info({ cache: settings.location }, 'No request cache there yet: nothing to read');
    return undefined;
  }
  let started = o.runStartedAt ?? Date.now();
  const tally = createTally();
  const removed = store.kind === 'sqlite' ? watchFile(store.location) : () => undefined;
  store = watchedForDamage(store, tally, logger);
  const writer = readOnly ? undefined : new CacheWriter(store, tally, logger);
  const lifetimes = resolveLifetimes(settings.lifetimes);
  const service = serviceOf(config, o.embeddedEmulator === true);
  const common = {
    store,
    lifetimes,
    mode: settings.mode,
    writer,
    tally,
    logger,
    runStartedAt: () => started,
  };
  logger.debug({ cache: store.location, mode: settings.mode }, 'Request cache open');
  const uncached = uncachedSteps(config);
  if (uncached.length > 0)
    logger.info(
      `The request cache does not keep the answers of ${uncached.join(', ')}: they are asked again every run`,
    );

  return {
    writes: writer !== undefined,
    wrap(client) {
      let wrapped = client;
      if (config.steps.some((step) => step.kind === 'boundaries'))
        wrapped = {
          ...wrapped,
          area: { ...client.area, ...cachedAreas(client.area, { ...common, service: service('area') }) },
        };
      if (config.steps.some((step) => WHOLE_REQUEST_KINDS.has(step.kind)))
        wrapped = {
          ...wrapped,
          routing: cachedRouting(client.routing, { ...common, service: service('geojson') }),
        };
      return wrapped;
    },
    answersFor(job, step, savings) {
      const policy = ITEM_POLICIES[step.kind];
      const scope = stepScope(config, step, o.embeddedEmulator === true);
      if (policy === undefined || scope === undefined) return undefined;
      return createAnswerCache({
        ...common,
        scope,
        policy,
        batching: job.batching,
        dedupMemory: config.run.dedupCacheSize,
        ...(savings === undefined
          ? {}
          : { seen: savings.seen(scope, config.run.dedupCacheSize ?? ENGINE_DEFAULTS.dedupCacheSize) }),
      });
    },
    summary: () => summarise(store, settings.mode, tally, uncached),
    rowCounts() {
      tally.rows ??= new RowCounts();
      const rows = tally.rows;
      return (committedRows) => rows.from(committedRows);
    },
    restarted() {
      started = Date.now();
    },
    flush: async (waitMs?: number) => {
      await writer?.flush(waitMs);
      const gone = removed();
      if (gone === undefined || tally.problems.includes(gone)) return;
      tally.problems.push(gone);
      logger.warn({ cache: store.location }, `Request cache: ${gone}`);
    },
    async close() {
      try {
        await writer?.flush();
        if (!readOnly && (tally.hits > 0 || tally.misses > 0)) {
          await store.recordRun({
            startedAt: started,
            endedAt: Date.now(),
            job: config.name,
            hits: tally.hits,
            misses: tally.misses,
            writes: tally.writes,
            requestsSaved: tally.requestsSaved,
          });
        }
      } catch (error) {
        logger.warn({ cache: store.location, err: error }, 'Request cache: the run could not be recorded');
      } finally {
        await store.close();
      }
    },
  };
}

/**
 * The keys the steps of one pipeline met, per scope: its steps of one scope share their dedup
 * (src/engine/_step-sharing.ts), so a key one of them had from the cache spares the others nothing
 * more, and `requestsSaved` counts it once, as a one-step job's does.
 */
export class SharedSavings {
  private readonly byScope = new Map<string, SeenKeys>();

  seen(scope: Scope, capacity: number): SeenKeys {
    let keys = this.byScope.get(scope.description);
    if (keys === undefined) {
      keys = new SeenKeys(capacity);
      this.byScope.set(scope.description, keys);
    }
    return keys;
  }
}

/** A service's identity in the cache's keys, by the endpoint a kind asks. */
function serviceOf(config: JobConfig, embeddedEmulator: boolean): (endpoint: EndpointName) => string {
  const defaults: Partial<Record<EndpointName, string>> = CLIENT_DEFAULTS.endpoints;
  return (endpoint) =>
    embeddedEmulator
      ? EMBEDDED_EMULATOR
      : serviceIdentity(config.service.endpoints[endpoint] ?? defaults[endpoint]);
}

/**
 * What the cache keeps a step's answers under, whether or not the run has a cache: undefined for
 * kinds it keeps otherwise (boundaries, trip, match) or not at all. Two steps with the same scope
 * ask the service the same for the same item key (a pipeline shares their requests: pipeline.ts).
 */
export function stepScope(
  config: JobConfig,
  step: Pick<StepConfig, 'kind' | 'options'>,
  embeddedEmulator = false,
): Scope | undefined {
  const policy = ITEM_POLICIES[step.kind];
  if (policy === undefined) return undefined;
  return scopeOf({
    interface: policy.interface,
    service: serviceOf(config, embeddedEmulator)(policy.endpoint),
    operation: policy.operation,
    params: answerParams(policy, step.options),
    format: policy.format,
  });
}

/**
 * Kinds whose rows' answers belong to a whole trip or track: kept per request, around the client
 * (routing.ts), not per item.
 */
const WHOLE_REQUEST_KINDS: ReadonlySet<string> = new Set(['trip', 'match']);

/**
 * What the cache keeps for a kind it caches around the client (`wrap`), not per item: boundaries'
 * areas, trips and tracks as whole requests; undefined for the others. A dry run, which never
 * calls the client, cannot read these.
 */
export function keptAroundClient(kind: string): string | undefined {
  if (kind === 'boundaries') return 'the areas it finds';
  if (WHOLE_REQUEST_KINDS.has(kind)) return `whole ${kind === 'trip' ? 'trips' : 'tracks'}`;
  return undefined;
}

/** Names of the steps whose answers the cache does not keep: a kind with none of the three ways. */
function uncachedSteps(config: JobConfig): string[] {
  return config.steps
    .filter((step) => ITEM_POLICIES[step.kind] === undefined && keptAroundClient(step.kind) === undefined)
    .map((step) => step.name);
}

function summarise(
  store: CacheStore,
  mode: CacheMode,
  tally: CacheTally,
  uncached: readonly string[],
): CacheSummary {
  return {
    store: store.kind,
    location: store.location,
    mode,
    hits: tally.hits,
    misses: tally.misses,
    expired: tally.expired,
    writes: tally.writes,
    requestsSaved: tally.requestsSaved,
    problem: tally.problems.length === 0 ? null : tally.problems.join('; '),
    uncached,
  };
}

/**
 * Says when the cache file was deleted or replaced while the run held it open: SQLite goes on
 * writing into the unlinked file, and every answer bought since is lost with it, the next night
 * paying for them all. Undefined while the file at the path is the one opened.
 */
function watchFile(path: string): () => string | undefined {
  const opened = statSync(path, { throwIfNoEntry: false });
  return () => {
    if (opened === undefined) return undefined;
    const now = statSync(path, { throwIfNoEntry: false });
    if (now !== undefined && now.ino === opened.ino && now.dev === opened.dev) return undefined;
    return `${path}: the file was ${now === undefined ? 'deleted' : 'replaced'} while this run used it; the answers it bought since are not kept, and the next run asks for them again`;
  };
}

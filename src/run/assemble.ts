/**
 * From a loaded job file to a ready run: check that the services it needs are configured, build
 * the client and the job, read a matrix job's destinations, and fill the run spec. Shared by
 * `geobatch run` and `geobatch demo`, so the demo runs exactly what a user would.
 */
import { dirname, extname, resolve } from 'node:path';
import type { Logger } from 'pino';
import { openRunCache, type RunCache, SharedSavings, stepScope } from '../cache/run-cache.js';
import { type CacheFlags, resolveCacheSettings } from '../cache/settings.js';
import {
  DEFAULTS as CLIENT_DEFAULTS,
  type ClientOptions,
  createClient,
  type GeoClient,
} from '../client/index.js';
import { CREDENTIAL_ENV, ENDPOINT_ENV } from '../config/defaults.js';
import { type Env, unsetVariable } from '../config/env.js';
import {
  type CredentialName,
  type EndpointName,
  earlierFingerprintsOf,
  fingerprintOf,
  fingerprintParts,
  type JobConfig,
  type StepConfig,
} from '../config/load.js';
import type { AnyJob } from '../engine/job.js';
import type { EngineOptions } from '../engine/options.js';
import { clashingColumn, pipelineJob, type Step } from '../engine/pipeline.js';
import { ConfigError, isGeobatchError } from '../errors.js';
import { openReader } from '../input/open.js';
import type { SwappedPoints } from '../jobs/_swapped.js';
import { createJob, createOfflineJob, jobColumns, type SideInput } from '../jobs/index.js';
import type { OutputSpec } from '../output/files.js';
import { registerBasicCredentials, registerSecret } from '../secrets.js';
import { shellWord } from '../shell-word.js';
import { writtenFilesByRealPath } from './_canonical-path.js';
import { checkCacheFile, checkFiles, checkLogFile, checkPlaces, type FilesSpec } from './_checks.js';
import type { ResumeFacts } from './_found-checkpoint.js';
import { fileExists } from './_header.js';
import { type WatchedPoints, watchPoints } from './_swapped-points.js';
import { journalPath, readJournal } from './checkpoint.js';
import { mappedColumns } from './mapped-columns.js';
import type { RunSpec } from './run.js';
import { checkedSideRows } from './side-columns.js';
import type { SideInputFile } from './spec.js';
import { refuseFormatMismatch } from './step-formats.js';

/** Endpoints without a public address: a job that uses them must configure them. */
const NO_PUBLIC_DEFAULT: ReadonlySet<EndpointName> = new Set(['elevation', 'addressSearch']);

export interface RunChoices {
  readonly logger: Logger;
  readonly resume?: boolean;
  readonly dryRun?: boolean;
  readonly progress?: boolean;
  /** The error report was named on the command line (`-e`). */
  readonly reportNamed?: boolean;
  readonly signal?: AbortSignal;
  /**
   * Rows are answered by other processes (a distributed run's workers, `--no-work`): this one
   * needs no credentials of its own.
   */
  readonly serviceElsewhere?: boolean;
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
    /** Where GEOBATCH_CACHE and XDG_CACHE_HOME are read (runJobFile's `env`). @default process.env */
    readonly env?: NodeJS.ProcessEnv;
  };
}

export interface Assembled {
  readonly spec: RunSpec;
  readonly client: GeoClient;
  /** Close it after the run, as the client: it writes the last answers. */
  readonly cache?: RunCache;
}

/**
 * Refuses, before any row is read, a job whose service has no address or no credentials,
 * naming the variable a credential's `${VAR}` left unset.
 */
/** What surrounds a credential's value that is not part of it, in words; undefined for none. */
function untrimmed(value: string): string | undefined {
  const edges = [/^\s+/.exec(value)?.[0], /\s+$/.exec(value)?.[0]];
  const [start, end] = edges;
  if (start === undefined && end === undefined) return undefined;
  const named = (text: string) =>
    [
      ...new Set(
        [...text].map((c) =>
          c === '\r' ? 'a carriage return' : c === '\n' ? 'a line ending' : c === '\t' ? 'a tab' : 'a space',
        ),
      ),
    ].join(' and ');
  if (start !== undefined && end !== undefined)
    return `begins with ${named(start)} and ends with ${named(end)}`;
  return start !== undefined ? `begins with ${named(start)}` : `ends with ${named(end as string)}`;
}

/**
 * A worker of a distributed run, which checks a job file the coordinator stored: `file` is the
 * path the coordinator was given (the worker reads its own copy, gone once it stops), `name` the
 * worker as messages name it (host:pid).
 */
export interface CheckingWorker {
  readonly file: string;
  readonly name: string;
}

/**
 * Refuses a job whose service has no address or no credentials. In a worker (`worker`), the
 * messages name the coordinator's job file, and the hints the worker's environment, where the
 * missing value has to be set: "before running" and `--emulator` were advice for the coordinator.
 */
export function checkService(config: JobConfig, env: Env = process.env, worker?: CheckingWorker): void {
  const { endpoints, credentials } = config.service;
  const file = worker?.file ?? config.file;
  const orTry = (set: string) =>
    worker === undefined
      ? `${set}; ${tryEmulator(file)}`
      : `${set} in the environment of worker ${worker.name}, and start it again: a worker reads its own`;
  for (const [name, value] of Object.entries(credentials) as [CredentialName, string][]) {
    const variable = unsetVariable(value);
    if (variable === undefined) continue;
    // The file was read with the environment of this process; an empty value is left as unset is.
    const state = env[variable] === '' ? 'is empty' : 'is not set';
    throw new ConfigError(`${file}: service.credentials.${name}: environment variable ${variable} ${state}`, {
      file,
      path: `service.credentials.${name}`,
      expected: `${variable} set in the environment, not empty`,
      hint:
        worker === undefined
          ? `export ${variable}=... before running; ${tryEmulator(file)}`
          : orTry(`export ${variable}=...`),
    });
  }
  for (const [name, value] of Object.entries(credentials) as [CredentialName, string][]) {
    const edge = untrimmed(value);
    if (edge === undefined) continue;
    // A key is one word: a Windows line ending from an env file, or a space pasted with it, is
    // sent as part of it and rejected (401) as if the key were wrong. The value is never shown.
    const variable = config.service.credentialSources?.[name] ?? CREDENTIAL_ENV[name];
    throw new ConfigError(
      `${file}: service.credentials.${name}: ${variable} ${edge}; a credential has none`,
      {
        file,
        path: `service.credentials.${name}`,
        expected: `${variable} without spaces or line endings around it`,
        hint: `set ${variable} again without whitespace around the value${edge.includes('carriage return') ? ' (an env file written on Windows ends its lines with \\r: convert it with dos2unix)' : ''}`,
      },
    );
  }
  for (const name of new Set(config.steps.flatMap((step) => step.record.services))) {
    if (NO_PUBLIC_DEFAULT.has(name) && endpoints[name] === undefined) {
      throw new ConfigError(`${file}: the ${config.kind} job needs service.endpoints.${name}`, {
        file,
        path: `service.endpoints.${name}`,
        expected: 'the base URL of your integration',
        hint:
          worker === undefined
            ? `set it in the job file or export ${ENDPOINT_ENV[name]}=...; ${tryEmulator(file)}`
            : orTry(`set it in the job file, or export ${ENDPOINT_ENV[name]}=...`),
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
      throw new ConfigError(`${file}: no credentials for the ${config.kind} job`, {
        file,
        path: 'service.credentials',
        expected: variables,
        hint:
          worker === undefined ? `export ${variables}; ${tryEmulator(file)}` : orTry(`export ${variables}`),
      });
    }
  }
}

/**
 * Opens a side input the kind names in its options, by the spec the job file resolved for it; its
 * header and first row are checked on the way (`checkedSideRows`), before the kind gets a row.
 */
export function sideInputReader(config: JobConfig, step: StepConfig, signal: AbortSignal | undefined) {
  const specOf = (file: SideInput) => {
    const found = Object.values(step.sideInputs).find((spec) => spec.path === resolvedPath(file));
    if (found === undefined)
      throw new ConfigError(`${config.file}: ${file.path} is not a side input of this job`);
    return found;
  };
  const resolvedPath = (file: SideInput) => resolve(config.dir, file.path);
  // Its key in the job file, as a refusal to open it names it (`options.destinations`).
  const keyOf = (spec: StepConfig['sideInputs'][string]) => {
    const name = Object.entries(step.sideInputs).find(([, found]) => found === spec)?.[0] ?? '';
    return sideInputKey(step, name);
  };
  return {
    resolvePath: (path: string) => resolve(config.dir, path),
    async *readRows(file: SideInput) {
      const spec = specOf(file);
      const { path, format, encoding, delimiter, maxRecordBytes, maxRecordLines } = spec;
      const reader = await openReader({
        path,
        format,
        encoding,
        maxRecordBytes,
        csv: { delimiter, maxRecordLines },
        signal,
        sideInput: keyOf(spec),
      });
      yield* checkedSideRows(config, step, spec, reader);
    },
  };
}

/** Credentials whose `${VAR}` was unset are left out: a dry run needs none, and none is ever sent. */
function setCredentials(config: JobConfig): JobConfig['service'] {
  const credentials = Object.fromEntries(
    Object.entries(config.service.credentials).filter(([, value]) => unsetVariable(value) === undefined),
  );
  return { ...config.service, credentials };
}

/**
 * The error report: none for output to `-` unless one was named (in the job file or with `-e`):
 * the failed rows are in the stream, and a default file in the working directory would be
 * overwritten by every such run.
 */
export function reportOf(config: JobConfig, choices: Pick<RunChoices, 'reportNamed'>): RunSpec['report'] {
  const named = choices.reportNamed === true || config.document.errors !== undefined;
  if (config.output.path === '-' && !named) return null;
  return { path: config.errors.path, format: config.errors.format };
}

/**
 * The way to try a job without a key, named in full: `geobatch validate` shows these hints too,
 * and "add --emulator" there sent users to `geobatch validate --emulator`, an unknown option.
 */
function tryEmulator(file: string): string {
  return `to try geobatch without a key, run it with \`geobatch run ${shellWord(file)} --emulator\``;
}

/** An output as the run writes it: the job file's delimiter, else TAB for a .tsv file. */
export function outputSpec(output: JobConfig['output']): OutputSpec {
  const tsv = extname(output.path).toLowerCase() === '.tsv';
  return { ...output, delimiter: output.delimiter ?? (tsv ? '\t' : undefined) };
}

/** The files the steps read whole, by their key in the job file. */
function sideInputFiles(config: JobConfig): SideInputFile[] {
  return config.steps.flatMap((step) =>
    Object.entries(step.sideInputs).map(([name, spec]) => ({
      key: sideInputKey(step, name),
      path: spec.path,
    })),
  );
}

/** Where the job file names a step's side input: `options.destinations`, `steps[1].options.destinations`. */
function sideInputKey(step: StepConfig, name: string): string {
  return `${step.path === '' ? 'options' : `${step.path}.options`}.${name}`;
}

/**
 * The files a run of `config` would write, as `geobatch validate` checks them (the same checks as
 * a run's, from the job file alone): none the input, none twice, `-` alone.
 */
export function checkJobFiles(config: JobConfig): void {
  checkFiles(filesOf(config));
}

/**
 * Where the files a run of `config` would write go, as `geobatch validate` checks it, creating
 * nothing: no output or report an existing directory, under a file or in a directory that cannot
 * be written (the run refuses those as it starts, in the same words).
 */
export async function checkJobPlaces(config: JobConfig): Promise<void> {
  await checkPlaces(filesOf(config));
}

/**
 * Refuses a log file that is one of the run's files (its input, an output, a report, ...), before
 * anything is logged to it. `reportNamed`: an error report was named (-e), as RunChoices says.
 */
export function checkLogFileOf(config: JobConfig, logFile: string, reportNamed: boolean): void {
  checkLogFile(logFile, { ...filesOf(config), report: reportOf(config, { reportNamed }) });
}

/** The files a run of `config` would write, from the job file alone. */
function filesOf(config: JobConfig): FilesSpec {
  return {
    input: { path: config.input.path, format: config.input.format },
    sideInputs: sideInputFiles(config),
    output: outputSpec(config.output),
    moreOutputs: config.moreOutputs.map(outputSpec),
    report: reportOf(config, {}),
    ...(config.runReport === undefined
      ? {}
      : { runReport: config.runReport === false ? null : config.runReport }),
  };
}

/**
 * The job's steps, built on `client` (the cache's wrapper when there is one), each with the
 * cache's answers; refuses steps that would write the same column, and a step that reads a
 * coordinate column of an earlier one in another format (src/run/step-formats.ts). A worker of a distributed run
 * builds them afresh for every chunk, so that no state of one chunk's rows reaches another's.
 */
export async function buildSteps(
  config: JobConfig,
  client: GeoClient,
  cache: RunCache | undefined,
  signal: AbortSignal | undefined,
  watch?: (step: StepConfig) => SwappedPoints,
): Promise<Step[]> {
  const steps: Step[] = [];
  const savings = new SharedSavings();
  for (const step of config.steps) {
    const points = watch?.(step);
    const job = await createJob(step.kind, {
      client,
      mapping: step.mapping,
      options: step.options,
      endpoints: config.service.endpoints,
      signal,
      ...(points === undefined ? {} : { points }),
      ...sideInputReader(config, step, signal),
    }).catch((error: unknown) => {
      throw inStep(error, step);
    });
    const answers = cache?.answersFor(job, step, savings);
    // Steps whose answers the cache would keep under one scope share their requests (pipeline.ts),
    // with the cache or without it.
    const scope = stepScope(config, step);
    steps.push({
      name: step.name,
      job,
      ...(answers === undefined ? {} : { answers }),
      ...(scope === undefined ? {} : { shares: scope.description }),
    });
  }
  refuseColumnClash(config, steps);
  refuseFormatMismatch(config);
  return steps;
}

/**
 * `geobatch validate`'s read of the files a step reads whole (a matrix's destinations): the step is
 * built as a run builds it, on a client that sends nothing, so every row is checked as the run
 * checks it. validate used to read a header and a first row, and passed a file whose second row
 * the run then refused. A file that does not exist yet is left to the run, as validate says.
 */
export async function checkSideInputs(config: JobConfig): Promise<void> {
  for (const step of config.steps) {
    const files = Object.values(step.sideInputs);
    if (files.length === 0) continue;
    const present = await Promise.all(files.map((file) => fileExists(file.path)));
    if (present.includes(false)) continue;
    await createOfflineJob(step.kind, {
      mapping: step.mapping,
      options: step.options,
      endpoints: config.service.endpoints,
      ...sideInputReader(config, step, undefined),
    }).catch((error: unknown) => {
      throw inStep(error, step);
    });
  }
}

/**
 * A kind's refusal while its job is built (a side input it read: too many destinations, none at
 * all), its path completed with the step's place in the file (`steps[1].options.destinations`), as
 * every other message about a step writes it: the kind knows only its own keys.
 */
function inStep(error: unknown, step: StepConfig): unknown {
  if (!(error instanceof ConfigError) || error.context.path === undefined || step.path === '') return error;
  const relative = error.context.path;
  // The side input's checks (checkedSideRows) name the whole path already.
  if (relative.startsWith(`${step.path}.`)) return error;
  const path = `${step.path}.${relative}`;
  // Where the message or the hint names the path too (`<file>: options.x: ...`, "raise
  // options.x"), it names the whole one.
  const named = new RegExp(`(^|\\s)${relative.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[:\\s,;)]|$)`);
  const whole = (text: string) => text.replace(named, `$1${path}`);
  const { hint } = error.context;
  return new ConfigError(whole(error.message), {
    ...error.context,
    path,
    ...(hint === undefined ? {} : { hint: whole(hint) }),
    cause: error.cause,
  });
}

/**
 * Refuses steps that would write the same column (the later would overwrite the earlier), naming
 * both steps by name and place in the file.
 */
function refuseColumnClash(config: JobConfig, steps: readonly Step[]): void {
  const clash = clashingColumn(steps);
  if (clash === undefined) return;
  // Step names are unique (the file is refused otherwise): each names one place in the file.
  const [first, second] = clash.steps.map(
    (name) => `${name} (steps[${config.steps.findIndex((step) => step.name === name)}])`,
  );
  throw new ConfigError(
    `${config.file}: steps: ${first} and ${second} would both write the column \`${clash.column}\``,
    {
      file: config.file,
      path: 'steps',
      expected: 'columns of their own for each step',
      received: clash.column,
      hint: 'give one of the steps another `options.prefix`',
    },
  );
}

/**
 * What `buildSteps` refuses, checked without building a client, reading a side input or sending
 * anything: `validate` refuses the file a run would. Returns the steps as far as they are built:
 * each its name and its job's columns, which is all `clashingColumn` and `mappedColumns` read.
 */
export async function checkSteps(config: JobConfig): Promise<Step[]> {
  const steps: Step[] = [];
  for (const step of config.steps) {
    const columns = await jobColumns(step.kind, {
      mapping: step.mapping,
      options: step.options,
      endpoints: config.service.endpoints,
    }).catch((error: unknown) => {
      throw inStep(error, step);
    });
    steps.push({ name: step.name, job: { columns } as AnyJob });
  }
  refuseColumnClash(config, steps);
  refuseFormatMismatch(config);
  return steps;
}

/** The one job the run drives: the step's, or the pipeline's that describes several. */
export function jobOf(steps: readonly Step[]): AnyJob {
  return steps.length === 1 ? (steps[0] as Step).job : pipelineJob(steps);
}

/** How the engine runs the steps. */
export function engineOf(config: JobConfig, steps: readonly Step[], client?: GeoClient): EngineOptions {
  return {
    ...(client === undefined ? {} : { retrySleeps: client.retrySleeps }),
    // One knob for both: the engine queues no more than the client may send at once.
    concurrency: config.service.throttle?.global?.concurrency ?? CLIENT_DEFAULTS.throttle.global.concurrency,
    window: config.run.window,
    dedupCacheSize: config.run.dedupCacheSize,
    windowBytes: config.run.windowBytes,
    dedupCacheBytes: config.run.dedupCacheBytes,
    ...(steps.length === 1 && steps[0]?.answers !== undefined ? { answers: steps[0].answers } : {}),
  };
}

/**
 * The client a job file's service section describes; `gate` shares its rate with other processes.
 * Its credentials are registered as secrets for the process's life, not only the client's: a run
 * closes its client before it writes its summary and report, and a caller may show the summary
 * after (the emulator's keys, which no variable gave, were left in a path there).
 */
export function clientOf(config: JobConfig, logger: Logger, options: Partial<ClientOptions> = {}): GeoClient {
  const service = setCredentials(config);
  const { partner, partnerKey, ...others } = service.credentials;
  for (const value of [partnerKey, ...Object.values(others)]) registerSecret(value);
  if (partner !== undefined && partnerKey !== undefined) registerBasicCredentials(partner, partnerKey);
  return createClient({ ...service, logger, ...options });
}

/**
 * What a checkpoint of a run of `config` is checked against as `--resume` takes it up (the job's
 * fingerprint, the input, the side inputs, the files written): the run's spec holds these, and
 * `geobatch status` judges with them whether `--resume` would go on (_found-checkpoint.ts
 * resumeRefusal). The row selection (--limit, --sample) is the command line's (job-file.ts).
 */
export function resumeFactsOf(config: JobConfig, choices: Pick<RunChoices, 'reportNamed'>): ResumeFacts {
  // The same as `config` unless a file is named through a link (_canonical-path.ts).
  const files = writtenFilesByRealPath(config);
  return {
    jobFingerprint: fingerprintOf(files),
    jobParts: fingerprintParts(files),
    earlierFingerprints: earlierFingerprintsOf(files),
    sideInputs: sideInputFiles(config),
    input: {
      path: config.input.path,
      format: config.input.format,
      encoding: config.input.encoding,
      maxRecordBytes: config.input.maxRecordBytes,
      csv: { delimiter: config.input.delimiter, maxRecordLines: config.input.maxRecordLines },
    },
    output: outputSpec(config.output),
    ...(config.moreOutputs.length === 0 ? {} : { moreOutputs: config.moreOutputs.map(outputSpec) }),
    report: reportOf(config, choices),
  };
}

export async function assemble(config: JobConfig, choices: RunChoices): Promise<Assembled> {
  if (choices.dryRun !== true && choices.serviceElsewhere !== true) checkService(config);
  // A dry run sends nothing and needs no key, so that a cost can be estimated before there is one;
  // but it says what the run would stop at, before a row, so that a pre-flight check learns it.
  if (choices.dryRun === true && choices.serviceElsewhere !== true) {
    try {
      checkService(config);
    } catch (error) {
      if (!isGeobatchError(error)) throw error;
      choices.logger.warn(
        { err: { code: error.code, hint: error.context.hint } },
        `The run would stop before its first row: ${error.message}`,
      );
    }
  }
  const client = clientOf(config, choices.logger);
  let cache: RunCache | undefined;
  try {
    cache = await openCache(config, choices);
    const points: WatchedPoints[] = [];
    const several = config.steps.length > 1;
    const steps = await buildSteps(config, cache?.wrap(client) ?? client, cache, choices.signal, (step) => {
      const watched = watchPoints(several ? step.name : undefined, step.mapping, choices.logger);
      points.push(watched);
      return watched.points;
    });
    const job = jobOf(steps);
    const rate = config.service.throttle?.global?.rate;
    const spec: RunSpec = {
      job,
      ...(steps.length > 1 ? { steps } : {}),
      ...resumeFactsOf(config, choices),
      points,
      mapped: mappedColumns(config, steps),
      // Undefined: the run's default, beside the first output.
      ...(config.runReport === undefined
        ? {}
        : { runReport: config.runReport === false ? null : config.runReport }),
      engine: engineOf(config, steps, client),
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
  const settings = resolveCacheSettings(block, dirname(config.file), flags, flags.env);
  if (settings === undefined) return undefined;
  checkCacheFile(settings.location, {
    ...filesOf(config),
    report: reportOf(config, choices),
    dryRun: choices.dryRun,
  });
  return openRunCache(config, {
    settings,
    logger: choices.logger,
    embeddedEmulator: flags.embeddedEmulator,
    dryRun: choices.dryRun,
    maxBytes: flags.maxBytes,
    ...(await resumedStart(config, choices)),
  });
}

/**
 * When the run being resumed began, from its checkpoint: a refresh takes the answers written since
 * then, so that what the interrupted session bought is not bought again. Nothing for a fresh run
 * or one without a checkpoint (the run itself refuses or starts over such a case).
 */
async function resumedStart(config: JobConfig, choices: RunChoices): Promise<{ runStartedAt?: number }> {
  if (choices.resume !== true || config.output.path === '-') return {};
  const journal = await readJournal(journalPath(config.output.path)).catch(() => undefined);
  const started = journal === undefined ? Number.NaN : Date.parse(journal.startedAt);
  return Number.isFinite(started) ? { runStartedAt: started } : {};
}

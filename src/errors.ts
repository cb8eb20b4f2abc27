/**
 * One base error class with stable string codes.
 *
 * Codes are part of the public contract: they appear in the error report, the run summary, the
 * `geobatch_error` output column and the exit-status table below. Add codes; never rename one.
 * Only `secrets.ts` is imported here, so that no message can carry a key.
 */
import { scrub } from './secrets.js';

/** Codes that stop the whole run: every further request would fail the same way. */
export type FatalCode =
  /** 401/403 after a token refresh: the key, partner or token is wrong or revoked. */
  | 'AUTH_REJECTED'
  /** 412: the service got no apiKey. */
  | 'AUTH_MISSING'
  /** 402, or a quota answer: nothing more can be bought with this key today. */
  | 'QUOTA_EXCEEDED'
  /**
   * The service's address never answered: its first requests all failed to connect (refused, no
   * such host); or nothing answered for OUTAGE_MS while its requests could not connect or timed
   * out (a hung service takes connections), each through all its attempts. Every row would fail
   * the same way, slowly; the run stops instead.
   */
  | 'SERVICE_UNREACHABLE'
  /**
   * The service's address has no such operation: a request answered 404 as the server answers a
   * path it does not have (not as the service answers a record it does not know), or 405, from an
   * operation that never answered 2xx. A wrong path in an endpoint; every row would fail alike.
   */
  | 'ENDPOINT_NOT_FOUND'
  /** Output, report or checkpoint could not be written (disk full, permissions). */
  | 'IO_ERROR'
  /** Another run of the same job holds the lock. */
  | 'LOCKED'
  /** `--resume` found a checkpoint made by another job or from other input. */
  | 'CHECKPOINT_MISMATCH'
  /** The run was interrupted (SIGINT/SIGTERM); the checkpoint is kept. */
  | 'ABORTED'
  /** The end-of-run accounting did not balance; a bug, reported rather than hidden. */
  | 'INVARIANT_BROKEN'
  /**
   * The input is not in its declared encoding (a byte that is not UTF-8, a UTF-16 file): reading
   * on would put replacement characters into the user's data. `context.detail` has the line.
   */
  | 'INPUT_ENCODING'
  /** The request cache is corrupt, another program's file, from a newer geobatch, or unreachable. */
  | 'CACHE_UNUSABLE'
  /**
   * The queue database of a distributed run (`--queue`) is unreachable, is not a geobatch queue,
   * or lost the run's data: the coordinator keeps its checkpoint, a worker hands back its chunk.
   */
  | 'QUEUE_UNUSABLE'
  /**
   * A worker of a distributed run lacks what the job needs in its own environment (an API key, a
   * service address, a variable the job file names): the coordinator stops on it as a run stops,
   * not as a job file that cannot be used, since its own job file and settings were good and rows
   * may have been bought and committed. The message names the worker and what it lacks.
   */
  | 'WORKER_MISCONFIGURED';

/** Codes for bad configuration or command-line usage; exit code 2. */
export type UsageCode = 'CONFIG_INVALID' | 'USAGE';

/** Codes for a run that ended early or empty without anything having gone wrong in geobatch. */
export type EndCode =
  /** The input held no data row (0 bytes, or only a header): usually an upstream failure. */
  | 'INPUT_EMPTY'
  /** The program reading standard output closed it (`| head`): it has seen enough. */
  | 'OUTPUT_CLOSED';

/** Codes that fail one row (or one request's rows) while the run goes on. */
export type RowCode =
  /** A CSV record, NDJSON line or GeoJSON feature that could not be parsed. */
  | 'INPUT_MALFORMED'
  /** A field the job needs is empty or absent. */
  | 'FIELD_MISSING'
  /** A field is present but not what the job expects (not a number, out of range...). */
  | 'FIELD_INVALID'
  /** A 4xx answer that retrying cannot change (400, 404, 422...). */
  | 'HTTP_STATUS'
  /** A transient failure (5xx, 429, reset, timeout) outlasted every retry. */
  | 'RETRIES_EXHAUSTED'
  /** The request timed out (after its retries, if any). */
  | 'TIMEOUT'
  /** The connection failed (after its retries, if any). */
  | 'NETWORK'
  /** The answer could not be understood; the message names the field. */
  | 'RESPONSE_INVALID'
  /** The service answered 200 but reported a problem (address search StatusCode/PublicReport). */
  | 'SERVICE_REPORTED'
  /** Geocoding found nothing for the address (the service's errCode and publicReport attached). */
  | 'NO_MATCH'
  /** A looked-up key (supplier key, identifier) is not known to the service. */
  | 'NOT_FOUND'
  /** Several records answer one key and the job's policy says that is an error. */
  | 'AMBIGUOUS'
  /** The service rejected this very point/key once it was isolated from its batch. */
  | 'ITEM_REJECTED'
  /** No boundary at the requested level covers the point. */
  | 'OUTSIDE_COVERAGE'
  /** A group of rows needs more than one request carries (a trip with more stops than the service takes). */
  | 'LIMIT_EXCEEDED'
  /** A defect inside geobatch; the row is reported so that nothing disappears silently. */
  | 'INTERNAL';

export type ErrorCode = FatalCode | UsageCode | EndCode | RowCode;

const FATAL_CODES: ReadonlySet<string> = new Set<FatalCode>([
  'AUTH_REJECTED',
  'AUTH_MISSING',
  'QUOTA_EXCEEDED',
  'SERVICE_UNREACHABLE',
  'ENDPOINT_NOT_FOUND',
  'IO_ERROR',
  'LOCKED',
  'CHECKPOINT_MISMATCH',
  'ABORTED',
  'INVARIANT_BROKEN',
  'INPUT_ENCODING',
  'CACHE_UNUSABLE',
  'QUEUE_UNUSABLE',
  'WORKER_MISCONFIGURED',
]);

const USAGE_CODES: ReadonlySet<string> = new Set<UsageCode>(['CONFIG_INVALID', 'USAGE']);

export function isFatalCode(code: ErrorCode): code is FatalCode {
  return FATAL_CODES.has(code);
}

export function isUsageCode(code: ErrorCode): code is UsageCode {
  return USAGE_CODES.has(code);
}

/**
 * Every exit status of `geobatch run` (and of the other commands, which use 0, 1 and 2). The
 * README's exit-code table lists exactly these; test/errors.test.ts fails when the two drift.
 */
export const EXIT_STATUS = {
  /** Every row ok; also a run whose standard output the reader closed (`| head`). */
  ok: 0,
  /** Stopped by a fatal code or a signal; the checkpoint is kept when rows were committed. */
  stopped: 1,
  /** Usage or job-file error. */
  usage: 2,
  /** Finished; some rows failed and the error report lists them. */
  rowsFailed: 3,
  /**
   * The input was not whole: it held no data row, or a syntax error cut its reading short (the
   * rows after it never read). Usually a failure upstream; a wrapper that lets the few failed rows
   * of a night pass (3) must not let this pass.
   */
  noRows: 4,
} as const;

export type ExitStatus = (typeof EXIT_STATUS)[keyof typeof EXIT_STATUS];

/** The one table from a code that ends a run to the exit status. Row codes fail rows, not runs. */
export const EXIT_BY_CODE: Readonly<Record<FatalCode | UsageCode | EndCode, ExitStatus>> = {
  AUTH_REJECTED: EXIT_STATUS.stopped,
  AUTH_MISSING: EXIT_STATUS.stopped,
  QUOTA_EXCEEDED: EXIT_STATUS.stopped,
  SERVICE_UNREACHABLE: EXIT_STATUS.stopped,
  ENDPOINT_NOT_FOUND: EXIT_STATUS.stopped,
  IO_ERROR: EXIT_STATUS.stopped,
  LOCKED: EXIT_STATUS.stopped,
  CHECKPOINT_MISMATCH: EXIT_STATUS.stopped,
  ABORTED: EXIT_STATUS.stopped,
  INVARIANT_BROKEN: EXIT_STATUS.stopped,
  INPUT_ENCODING: EXIT_STATUS.stopped,
  CACHE_UNUSABLE: EXIT_STATUS.stopped,
  QUEUE_UNUSABLE: EXIT_STATUS.stopped,
  WORKER_MISCONFIGURED: EXIT_STATUS.stopped,
  CONFIG_INVALID: EXIT_STATUS.usage,
  USAGE: EXIT_STATUS.usage,
  INPUT_EMPTY: EXIT_STATUS.noRows,
  OUTPUT_CLOSED: EXIT_STATUS.ok,
};

/**
 * The exit status of a run that ended with `code` (undefined: it went through every row it could
 * read). A row code ending a whole run (`INTERNAL` for an unexpected exception) means it stopped.
 * `truncated`: a syntax error ended the reading of the input (RunSummary's `input.truncated`).
 */
export function exitStatusOf(
  code: ErrorCode | undefined | null,
  failedRows = 0,
  truncated = false,
): ExitStatus {
  // null as the summary's `error` says "none" (a library caller passing `summary.error?.code ?? null`).
  if (code === undefined || code === null) {
    if (truncated) return EXIT_STATUS.noRows;
    return failedRows > 0 ? EXIT_STATUS.rowsFailed : EXIT_STATUS.ok;
  }
  return Object.hasOwn(EXIT_BY_CODE, code)
    ? EXIT_BY_CODE[code as keyof typeof EXIT_BY_CODE]
    : EXIT_STATUS.stopped;
}

/** What an error knows about where it happened. Every field is optional and safe to print. */
export interface ErrorContext {
  /** 1-based data row number, when the error concerns one row. */
  row?: number;
  /** The input field (column) concerned. */
  field?: string;
  /** HTTP status of the last answer. */
  status?: number;
  /** Attempts made, including the first. */
  attempts?: number;
  /** Service interface, e.g. `geocoding`, `elevation`. */
  service?: string;
  /** Endpoint path (never the query string, which may carry a key). */
  endpoint?: string;
  /** Job file, or the path inside it (`jobs/geocode.yaml: input.columns.zip`). */
  file?: string;
  path?: string;
  /** What was expected and what came, for validation errors. */
  expected?: string;
  received?: string;
  /** Service-specific diagnostics such as geocoding's errCode/publicReport. */
  detail?: Readonly<Record<string, string | number>>;
  /** What the user can do about it; printed by the CLI under the message. */
  hint?: string;
  cause?: unknown;
}

/** The one base class: a stable `code`, a scrubbed message and printable context. */
export class GeobatchError extends Error {
  override readonly name: string = 'GeobatchError';
  readonly code: ErrorCode;
  readonly context: Readonly<Omit<ErrorContext, 'cause'>>;

  /** Protected: every error is raised as the subclass that pins its code (CODES_BY_CLASS). */
  protected constructor(code: ErrorCode, message: string, context: ErrorContext = {}) {
    const { cause, ...rest } = context;
    super(scrub(message), cause === undefined ? undefined : { cause });
    this.code = code;
    this.context = scrubContext(rest);
  }

  /** True when no further request can succeed, so the run must stop. */
  get fatal(): boolean {
    return isFatalCode(this.code);
  }

  /** A plain, secret-free object for logs and reports. */
  toJSON(): { name: string; code: ErrorCode; message: string } & Omit<ErrorContext, 'cause'> {
    return { name: this.name, code: this.code, message: this.message, ...this.context };
  }
}

function scrubContext(context: Omit<ErrorContext, 'cause'>): Omit<ErrorContext, 'cause'> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context)) {
    if (value === undefined) continue;
    if (typeof value === 'string') out[key] = scrub(value);
    else if (key === 'detail' && value !== null && typeof value === 'object') {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, string | number>).map(([k, v]) => [
          k,
          typeof v === 'string' ? scrub(v) : v,
        ]),
      );
    } else out[key] = value;
  }
  return out as Omit<ErrorContext, 'cause'>;
}

/** A job file or option that cannot be used; names the file, the path inside it and what was expected. */
export class ConfigError extends GeobatchError {
  override readonly name = 'ConfigError';
  constructor(message: string, context: ErrorContext = {}) {
    super('CONFIG_INVALID', message, context);
  }
}

/** A command line that cannot be carried out. */
export class UsageError extends GeobatchError {
  override readonly name = 'UsageError';
  constructor(message: string, context: ErrorContext = {}) {
    super('USAGE', message, context);
  }
}

/** What the service (or the way to it) answered, for good: status, attempts and service in `context`. */
export type ServiceCode = Extract<
  ErrorCode,
  | 'AUTH_REJECTED'
  | 'AUTH_MISSING'
  | 'QUOTA_EXCEEDED'
  | 'SERVICE_UNREACHABLE'
  | 'ENDPOINT_NOT_FOUND'
  | 'HTTP_STATUS'
  | 'RETRIES_EXHAUSTED'
  | 'TIMEOUT'
  | 'NETWORK'
  | 'SERVICE_REPORTED'
  | 'NO_MATCH'
  | 'NOT_FOUND'
  | 'AMBIGUOUS'
  | 'ITEM_REJECTED'
  | 'OUTSIDE_COVERAGE'
  | 'LIMIT_EXCEEDED'
>;

/** A request that failed for good: its status, attempts and service are in `context`. */
export class ServiceError extends GeobatchError {
  override readonly name = 'ServiceError';
  declare readonly code: ServiceCode;
  constructor(code: ServiceCode, message: string, context: ErrorContext = {}) {
    super(code, message, context);
  }
}

/** An answer that does not have the shape the spec describes; `context.path` names the field. */
export class ResponseError extends GeobatchError {
  override readonly name = 'ResponseError';
  constructor(message: string, context: ErrorContext = {}) {
    super('RESPONSE_INVALID', message, context);
  }
}

export type IoCode = Extract<
  ErrorCode,
  'IO_ERROR' | 'LOCKED' | 'CHECKPOINT_MISMATCH' | 'CACHE_UNUSABLE' | 'QUEUE_UNUSABLE'
>;

/** A local file problem (disk full, permission, lock, checkpoint, request cache). */
export class IoError extends GeobatchError {
  override readonly name = 'IoError';
  declare readonly code: IoCode;
  constructor(code: IoCode, message: string, context: ErrorContext = {}) {
    super(code, message, context);
  }
}

export type InputCode = Extract<
  ErrorCode,
  'INPUT_MALFORMED' | 'INPUT_ENCODING' | 'INPUT_EMPTY' | 'FIELD_MISSING' | 'FIELD_INVALID'
>;

/** The input itself: unreadable, in another encoding, empty, or a field the job cannot use. */
export class InputError extends GeobatchError {
  override readonly name = 'InputError';
  declare readonly code: InputCode;
  constructor(code: InputCode, message: string, context: ErrorContext = {}) {
    super(code, message, context);
  }
}

export type RunCode = Extract<
  ErrorCode,
  'ABORTED' | 'OUTPUT_CLOSED' | 'INVARIANT_BROKEN' | 'INTERNAL' | 'WORKER_MISCONFIGURED'
>;

/** How a run ended other than by its rows: interrupted, its reader gone, or a defect in geobatch. */
export class RunError extends GeobatchError {
  override readonly name = 'RunError';
  declare readonly code: RunCode;
  constructor(code: RunCode, message: string, context: ErrorContext = {}) {
    super(code, message, context);
  }
}

/**
 * Every code belongs to exactly one class, so the class an error is raised as tells what kind of
 * problem it is; test/errors.test.ts checks that the classes cover the codes without overlap.
 */
export const CODES_BY_CLASS = {
  ConfigError: ['CONFIG_INVALID'],
  UsageError: ['USAGE'],
  ResponseError: ['RESPONSE_INVALID'],
  ServiceError: [
    'AUTH_REJECTED',
    'AUTH_MISSING',
    'QUOTA_EXCEEDED',
    'SERVICE_UNREACHABLE',
    'ENDPOINT_NOT_FOUND',
    'HTTP_STATUS',
    'RETRIES_EXHAUSTED',
    'TIMEOUT',
    'NETWORK',
    'SERVICE_REPORTED',
    'NO_MATCH',
    'NOT_FOUND',
    'AMBIGUOUS',
    'ITEM_REJECTED',
    'OUTSIDE_COVERAGE',
    'LIMIT_EXCEEDED',
  ],
  IoError: ['IO_ERROR', 'LOCKED', 'CHECKPOINT_MISMATCH', 'CACHE_UNUSABLE', 'QUEUE_UNUSABLE'],
  InputError: ['INPUT_MALFORMED', 'INPUT_ENCODING', 'INPUT_EMPTY', 'FIELD_MISSING', 'FIELD_INVALID'],
  RunError: ['ABORTED', 'OUTPUT_CLOSED', 'INVARIANT_BROKEN', 'INTERNAL', 'WORKER_MISCONFIGURED'],
} as const satisfies Record<string, readonly ErrorCode[]>;

/**
 * Whether `code` is one of a class's codes. `CODES_BY_CLASS.ServiceError.includes(error.code)` does
 * not type-check (its lists hold literal types, and `includes` takes only theirs): this does.
 */
export function isCodeOf(name: keyof typeof CODES_BY_CLASS, code: string): boolean {
  // A name from plain JavaScript may be no class's ('GeobatchError', 'toString'): then no code is its.
  if (!Object.hasOwn(CODES_BY_CLASS, name)) return false;
  return (CODES_BY_CLASS[name] as readonly string[]).includes(code);
}

/** The same error with another context (a hint dropped, say): raised as the class it was. */
export function withContext<E extends GeobatchError>(error: E, context: Omit<ErrorContext, 'cause'>): E {
  const copy = Object.create(Object.getPrototypeOf(error)) as E;
  Object.assign(copy, error, { context: scrubContext(context), message: error.message, stack: error.stack });
  return copy;
}

/**
 * Marks every GeobatchError, by a symbol of the global registry: an error of another copy of this
 * module (two versions of geobatch in one program, a bundled one) carries the same mark, where
 * `instanceof` tells only this copy's.
 */
const BRAND = Symbol.for('geobatch.GeobatchError');
Object.defineProperty(GeobatchError.prototype, BRAND, { value: true });

/** Narrows `unknown` to a GeobatchError without trusting `instanceof` across module copies. */
export function isGeobatchError(value: unknown): value is GeobatchError {
  return (
    value instanceof GeobatchError ||
    (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true)
  );
}

/**
 * An error as another process reported it (its `toJSON`), raised again as the class its code
 * belongs to: a distributed run's worker stopped by AUTH_REJECTED stops the coordinator with
 * AUTH_REJECTED. An unknown code (a newer geobatch) is INTERNAL.
 */
export function reviveError(json: { code?: unknown; message?: unknown } & ErrorContext): GeobatchError {
  const { code, message, name: _name, ...context } = json as Record<string, unknown>;
  const text = typeof message === 'string' ? message : 'An error without a message';
  const of = (codes: readonly string[]) => typeof code === 'string' && codes.includes(code);
  const c = context as ErrorContext;
  if (of(CODES_BY_CLASS.ConfigError)) return new ConfigError(text, c);
  if (of(CODES_BY_CLASS.UsageError)) return new UsageError(text, c);
  if (of(CODES_BY_CLASS.ResponseError)) return new ResponseError(text, c);
  if (of(CODES_BY_CLASS.ServiceError)) return new ServiceError(code as ServiceCode, text, c);
  if (of(CODES_BY_CLASS.IoError)) return new IoError(code as IoCode, text, c);
  if (of(CODES_BY_CLASS.InputError)) return new InputError(code as InputCode, text, c);
  if (of(CODES_BY_CLASS.RunError)) return new RunError(code as RunCode, text, c);
  return new RunError('INTERNAL', text, c);
}

/**
 * The error a run stopped by its signal ends with: the signal's reason when that is a fatal
 * GeobatchError (the log file's IO_ERROR, see cli/_log-file.ts), else ABORTED. Ctrl-C and SIGTERM
 * abort with a UsageError naming the signal, which is what happened, not why the run failed.
 */
export function interrupted(signal: AbortSignal | undefined): GeobatchError {
  return (
    fatalReason(signal) ??
    new RunError('ABORTED', 'The run was interrupted', {
      hint: 'Run again with --resume to continue from the checkpoint.',
    })
  );
}

/** The fatal GeobatchError `signal` was aborted with; undefined for a plain stop or none. */
export function fatalReason(signal: AbortSignal | undefined): GeobatchError | undefined {
  const reason: unknown = signal?.aborted === true ? signal.reason : undefined;
  return isGeobatchError(reason) && reason.fatal ? reason : undefined;
}

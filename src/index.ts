/** geobatch as a library: a table of contents, re-exports only. */

// Every type of the client's calls, their options and results (GeocodeResult, CallOptions,
// AreaResult, RouteResult...), so that a caller can name what it gets.
export type * from './client/index.js';
// Its values by name: `export type *` makes every name it re-exports a type only, and a value
// imported from there fails to compile (TS1362).
export {
  CREDENTIAL_ENV,
  convert,
  createClient,
  DEFAULTS,
  decideRetry,
  distanceMetres,
  EMULATOR_URL_ENV,
  ENDPOINT_ENV,
  encodeAddition,
  fromWgs84,
  INTERFACE_NAMES,
  isCoordIssue,
  parseRetryAfter,
  readLonLat,
  toWgs84,
} from './client/index.js';
export type { JobConfig } from './config/load.js';
export { loadJobFile, parseJobFile } from './config/load.js';
export { resolveMapping } from './config/mapping.js';
export type { Overrides } from './config/overrides.js';
export { applyOverrides } from './config/overrides.js';
export type { EmulatorHandle, EmulatorOptions, FaultConfig } from './emulator/index.js';
export { DEFAULT_CREDENTIALS, DUPLICATE_CUSTOMER_IDS, startEmulator } from './emulator/index.js';
export type { AnyJob, Batching, ItemFailure, ItemResult, Job, RenderResult } from './engine/job.js';
export type { ErrorCode, ErrorContext, ExitStatus } from './errors.js';
export {
  CODES_BY_CLASS,
  ConfigError,
  EXIT_BY_CODE,
  exitStatusOf,
  GeobatchError,
  InputError,
  IoError,
  isCodeOf,
  isFatalCode,
  isGeobatchError,
  ResponseError,
  RunError,
  ServiceError,
  UsageError,
} from './errors.js';
export type { DecimalMark, JobClient, JobKind, KindContext, Mapping } from './jobs/index.js';
export { JOB_KIND_NAMES, JOB_KINDS } from './jobs/index.js';
export type { LoggerOptions } from './log.js';
export { colourWanted, createLogger, prettyLine } from './log.js';
export type { OutputSpec, ReportSpec } from './output/files.js';
export type { RunSummary } from './output/summary.js';
export type { JobContext } from './run/arguments.js';
export { createJob } from './run/arguments.js';
export type { RunJobFileOptions } from './run/job-file.js';
export { runJobFile } from './run/job-file.js';
export type { RunSpec } from './run/run.js';
export { runJob } from './run/run.js';
export { redactUrl, registerSecret, scrub } from './secrets.js';
export type { Fields, FieldValue, LonLat, Outcome, OutputRecord, Row, RowIssue, RowRef } from './types.js';

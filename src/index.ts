/** geobatch as a library: a table of contents, re-exports only. */

export type {
  ClientMetricsSnapshot,
  ClientOptions,
  GeoClient,
  InterfaceName,
  Limit,
} from './client/index.js';
export { convert, createClient, fromWgs84, toWgs84 } from './client/index.js';
export type { JobConfig } from './config/load.js';
export { loadJobFile, parseJobFile } from './config/load.js';
export type { Overrides } from './config/overrides.js';
export { applyOverrides } from './config/overrides.js';
export type { EmulatorHandle, EmulatorOptions, FaultConfig } from './emulator/index.js';
export { startEmulator } from './emulator/index.js';
export type { AnyJob, Batching, ItemFailure, ItemResult, Job, RenderResult } from './engine/job.js';
export type { ErrorCode, ErrorContext } from './errors.js';
export { GeobatchError, isFatalCode, isGeobatchError } from './errors.js';
export type { JobClient } from './jobs/index.js';
export { createJob } from './jobs/index.js';
export type { LoggerOptions } from './log.js';
export { createLogger } from './log.js';
export type { RunSpec, RunSummary } from './run.js';
export { runJob } from './run.js';
export { redactUrl, registerSecret, scrub } from './secrets.js';
export type { Fields, FieldValue, LonLat, Outcome, OutputRecord, Row, RowIssue, RowRef } from './types.js';

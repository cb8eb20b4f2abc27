/** The emulator's public surface: start it, and the types of its contract (EMULATOR-API.md). */
export { DUPLICATE_CUSTOMER_IDS } from './address-search/duplicates.js';
export { DEFAULT_CREDENTIALS } from './auth.js';
export { startEmulator } from './server.js';
export type {
  EmulatorCredentials,
  EmulatorHandle,
  EmulatorOptions,
  EmulatorStats,
  EmulatorUrls,
  FaultConfig,
  InterfaceName,
  RequestInfo,
  RequestLogEntry,
  RetryAfterForm,
} from './types.js';
export { INTERFACE_NAMES } from './types.js';

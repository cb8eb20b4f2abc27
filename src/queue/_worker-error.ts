/**
 * A chunk's failure as the coordinator stops the run with it. The error is the worker's, raised
 * again with its code (reviveError), and said to be the worker's: which process met it, on which
 * rows. A rejected key, an endpoint URL refused for its credential, or a service address that
 * reaches no service or has no such path comes from the environment of the worker that read it, which is often not the coordinator's: a coordinator that said only
 * "check GEOBATCH_API_KEY" sent the user to a variable that was right where they looked.
 *
 * A worker's job file or command-line error (CONFIG_INVALID: a key its environment lacks) is not
 * the coordinator's: its own were good, and rows may have been bought and committed before the
 * worker joined. It stops the coordinator as WORKER_MISCONFIGURED (exit 1, --resume), not as a
 * usage error (exit 2, "nothing was sent").
 */
import { type ErrorCode, type GeobatchError, isUsageCode, reviveError } from '../errors.js';

/** Codes whose cause is read from the environment of the process that met them. */
const FROM_ENVIRONMENT = new Set(['CONFIG_INVALID', 'AUTH_REJECTED', 'AUTH_MISSING', 'CACHE_UNUSABLE']);

export interface FailedChunk {
  readonly seq: number;
  /** 0-based, as the chunk table keeps it. */
  readonly firstRow: number;
  readonly rows: number;
}

export function workersError(stored: unknown, chunk: FailedChunk): GeobatchError {
  const json = (stored !== null && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const who = typeof json.worker === 'string' ? `worker ${json.worker}` : 'a worker';
  const rows = `rows ${chunk.firstRow + 1}-${chunk.firstRow + chunk.rows}`;
  const message = typeof json.message === 'string' ? json.message : 'an error without a message';
  const code = typeof json.code === 'string' ? json.code : undefined;
  const misconfigured = code !== undefined && isUsageCode(code as ErrorCode);
  const given = typeof json.hint === 'string' ? json.hint : undefined;
  // A worker's own check (checkService) names its environment already: said once, not twice.
  const named = given !== undefined && typeof json.worker === 'string' && given.includes(`of ${who}`);
  const local = named
    ? undefined
    : code === 'SERVICE_UNREACHABLE'
      ? `the service's address is read from the environment of ${who} and reached from its network, which may not be this process's: look there`
      : code === 'ENDPOINT_NOT_FOUND'
        ? `the service's address, its path included, is read from the environment of ${who} (GEOBATCH_EMULATOR_URL or the interface's GEOBATCH_..._URL) or the job file, which may not be this process's: look there`
        : code !== undefined && FROM_ENVIRONMENT.has(code)
          ? `look in the environment (and the job file) of ${who}, which may not be this process's`
          : undefined;
  const hint = [given, local].filter((part) => part !== undefined);
  const cause = misconfigured ? ', for what its own environment lacks' : '';
  return reviveError({
    ...json,
    ...(misconfigured ? { code: 'WORKER_MISCONFIGURED' } : {}),
    message: `${who[0]?.toUpperCase()}${who.slice(1)} stopped on chunk ${chunk.seq} (${rows})${cause}: ${message}`,
    ...(hint.length === 0 ? {} : { hint: hint.join('; ') }),
  });
}

/**
 * A chunk's failure as the coordinator stops the run with it. The error is the worker's, raised
 * again with its code (reviveError), and said to be the worker's: which process met it, on which
 * rows. A rejected key or an endpoint URL refused for its credential comes from the environment
 * of the worker that read it, which is often not the coordinator's: a coordinator that said only
 * "check GEOBATCH_API_KEY" sent the user to a variable that was right where they looked.
 */
import { type GeobatchError, reviveError } from '../errors.js';

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
  const local =
    json.code === 'SERVICE_UNREACHABLE'
      ? `the service's address is read from the environment of ${who} and reached from its network, which may not be this process's: look there`
      : typeof json.code === 'string' && FROM_ENVIRONMENT.has(json.code)
        ? `look in the environment (and the job file) of ${who}, which may not be this process's`
        : undefined;
  const hint = [typeof json.hint === 'string' ? json.hint : undefined, local].filter(
    (part) => part !== undefined,
  );
  return reviveError({
    ...json,
    message: `${who[0]?.toUpperCase()}${who.slice(1)} stopped on chunk ${chunk.seq} (${rows}): ${message}`,
    ...(hint.length === 0 ? {} : { hint: hint.join('; ') }),
  });
}

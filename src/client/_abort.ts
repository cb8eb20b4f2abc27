/**
 * Abort plumbing shared by every wait of the client (throttle, backoff, request), so that a run
 * stops promptly and with one kind of error, whatever it was waiting for.
 */
import { RunError } from '../errors.js';

/** The error every client call rejects with once its signal aborts. */
export function abortError(signal: AbortSignal, service?: string): RunError {
  return new RunError('ABORTED', 'the request was aborted', {
    ...(service === undefined ? {} : { service }),
    cause: signal.reason,
  });
}

/** Resolves after `ms`, or rejects with `abortError` as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortError(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.ceil(ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Abort plumbing shared by every wait of the client (throttle, backoff, request), so that a run
 * stops promptly and with one kind of error, whatever it was waiting for.
 */
import { isGeobatchError, RunError, withContext } from '../errors.js';

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

/**
 * An ABORTED that leaves a call, with the call's place (service, endpoint without query) as every
 * error of a call has it, and the caller's reason in its message when the caller gave one
 * (`controller.abort(new Error('shutting down'))`). Any other error passes as it is.
 */
export function abortedAt(
  error: unknown,
  place: { readonly service: string; readonly endpoint: string },
  signal: AbortSignal | undefined,
): unknown {
  if (!isGeobatchError(error) || error.code !== 'ABORTED' || error.context.endpoint !== undefined)
    return error;
  const reason: unknown = signal?.aborted === true ? signal.reason : undefined;
  const said =
    reason instanceof Error
      ? reason.name === 'AbortError'
        ? undefined
        : reason.message
      : typeof reason === 'string' && reason !== ''
        ? reason
        : undefined;
  if (said === undefined || isGeobatchError(reason))
    return withContext(error, { ...error.context, ...place });
  return new RunError('ABORTED', `the request was aborted: ${said}`, {
    ...error.context,
    ...place,
    cause: reason,
  });
}

/**
 * `promise`, or ABORTED as soon as `signal` aborts: a wait shared with other calls (_missing.ts's
 * probe) ends for this one alone.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

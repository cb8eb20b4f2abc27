/** How failures become row issues: one place, so every path reports the same fields, scrubbed. */
import { type ErrorCode, isGeobatchError } from '../errors.js';
import { scrub } from '../secrets.js';
import type { Row, RowIssue } from '../types.js';
import type { ItemFailure, ItemResult } from './job.js';

/** A non-fatal throw from `execute` fails every item of that request with this. */
export function failureFromError(error: unknown): ItemFailure {
  if (isGeobatchError(error)) {
    const c = error.context;
    return {
      code: error.code,
      message: error.message,
      stage: error.code === 'RESPONSE_INVALID' ? 'response' : 'request',
      ...(c.status === undefined ? {} : { status: c.status }),
      ...(c.attempts === undefined ? {} : { attempts: c.attempts }),
      ...(c.field === undefined ? {} : { field: c.field }),
      ...(c.detail === undefined ? {} : { detail: c.detail }),
    };
  }
  return internal(`The job failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`);
}

export function internal(message: string, stage: ItemFailure['stage'] = 'request'): ItemFailure {
  return { code: 'INTERNAL', message: scrub(message), stage };
}

export function failed(failure: ItemFailure): ItemResult<never> {
  return { ok: false, failure };
}

/** Answers worth remembering for later identical items: a transient failure may not repeat. */
const TRANSIENT: ReadonlySet<ErrorCode> = new Set(['RETRIES_EXHAUSTED', 'TIMEOUT', 'NETWORK', 'INTERNAL']);

export function cacheable(result: ItemResult<unknown>): boolean {
  if (result.ok) return true;
  const { code, attempts } = result.failure;
  // A body that is not JSON was retried as a transport accident: out of attempts, it is one too.
  return !TRANSIENT.has(code) && !(code === 'RESPONSE_INVALID' && (attempts ?? 1) > 1);
}

export function rowIssue(
  row: Row,
  failure: Omit<ItemFailure, 'stage'> & { stage: RowIssue['stage'] },
): RowIssue {
  return {
    kind: 'issue',
    ref: row.ref,
    stage: failure.stage,
    code: failure.code,
    message: scrub(failure.message),
    ...(failure.field === undefined ? {} : { field: failure.field }),
    ...(failure.status === undefined ? {} : { status: failure.status }),
    ...(failure.attempts === undefined ? {} : { attempts: failure.attempts }),
    ...(failure.detail === undefined ? {} : { detail: failure.detail }),
  };
}

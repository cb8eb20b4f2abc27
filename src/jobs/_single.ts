/** What most jobs share: one request per item, and a row that fails when its item did. */
import type { ItemResult, Job, RenderResult } from '../engine/job.js';

/**
 * `execute` for a job whose service takes one item a request: each item sent on its own, answered
 * by the key the engine planned it under (`key` only for a caller that gives none).
 */
export function eachItem<I, R>(
  key: (item: I) => string,
  call: (item: I, signal: AbortSignal) => Promise<R>,
): Job<I, R>['execute'] {
  return async (items, signal, keys) => {
    const results = new Map<string, ItemResult<R>>();
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as I;
      results.set(keys?.[i] ?? key(item), { ok: true, value: await call(item, signal) });
    }
    return results;
  };
}

export type Answer<R> = { readonly value: R } | { readonly failed: RenderResult };

/**
 * An item's answer, or the failed render of its row. The engine answers every item; a missing
 * answer is a defect, reported as INTERNAL rather than hidden.
 */
export function answerOf<R>(result: ItemResult<R> | undefined): Answer<R> {
  if (result === undefined) {
    return {
      failed: {
        ok: false,
        failure: { code: 'INTERNAL', stage: 'response', message: 'no answer for an item' },
      },
    };
  }
  return result.ok ? { value: result.value } : { failed: { ok: false, failure: result.failure } };
}

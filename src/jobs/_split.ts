/**
 * Isolating the items a service refuses. When the service rejects a whole batch with a 4xx, the
 * batch is split in halves until the offending items are alone, so only they fail: about
 * 2 x log2(n) extra requests per bad item instead of n items lost. Other failures (5xx after the
 * client's retries, timeouts) say nothing about one item and are thrown for the batch as a whole.
 */
import type { ItemFailure, ItemResult } from '../engine/job.js';
import { GeobatchError } from '../errors.js';

/**
 * The statuses that blame what a request carries: a point the service will not take (400, 422),
 * or a request too big for it (413, 414). Splitting can isolate their cause. Other 4xx blame the
 * address or the way of asking, which no half of the items changes: a wrong endpoint (404) had
 * elevation split each batch down to single points, 3,999 requests for 2,006 rows, all of them
 * then blamed on their coordinates.
 */
const ITEM_STATUSES: ReadonlySet<number> = new Set([400, 413, 414, 422]);

/** A 4xx that names the request's items, not the service, its address or our key. */
export function isRejection(error: unknown): error is GeobatchError {
  return (
    error instanceof GeobatchError &&
    error.code === 'HTTP_STATUS' &&
    error.context.status !== undefined &&
    ITEM_STATUSES.has(error.context.status)
  );
}

/** How a rejection of an item, or of the part a batch shares (`origin`), begins its message. */
export function rejectedWords(noun: string): string {
  return `the service rejected this ${noun}:`;
}

function rejected(error: GeobatchError, noun: string): ItemFailure {
  return {
    code: 'ITEM_REJECTED',
    stage: 'request',
    status: error.context.status,
    attempts: error.context.attempts,
    message: `${rejectedWords(noun)} ${error.message}`,
  };
}

/**
 * What every item of a batch carries besides itself (a matrix tile's origin), which the service
 * may be refusing rather than any item: split down to single items, an origin off the road
 * network cost 497 requests for 250 destinations, each then blamed for it.
 */
export interface SharedPart {
  /** How messages name it: `origin`. */
  readonly noun: string;
  /** Asks the service about it alone; rejects as `send` does when the service refuses it. */
  check(): Promise<void>;
}

/**
 * Sends `items` (one request), and on a 4xx rejection each half in turn, down to single items.
 * `send` answers the items of one request in order; `settle` receives every item's result once,
 * with the item's index in the `items` first given (`at` is where this part starts in them).
 * With `shared`, a rejected batch first has that part checked, once: refused itself, it fails
 * every item, and nothing is split.
 */
export async function sendSplitting<I, R>(
  items: readonly I[],
  send: (part: readonly I[]) => Promise<readonly ItemResult<R>[]>,
  settle: (item: I, result: ItemResult<R>, index: number) => void,
  noun: string,
  at = 0,
  shared?: SharedPart,
): Promise<void> {
  let results: readonly ItemResult<R>[];
  try {
    results = await send(items);
  } catch (error) {
    if (!isRejection(error)) throw error;
    // A single item too: which of the two the service refused, the item or what it shares.
    if (shared !== undefined) {
      const refusal = await shared.check().then(
        () => undefined,
        (e: unknown) => e,
      );
      if (isRejection(refusal)) {
        const failure = rejected(refusal, shared.noun);
        for (let i = 0; i < items.length; i++) settle(items[i] as I, { ok: false, failure }, at + i);
        return;
      }
      if (refusal !== undefined) throw refusal;
    }
    if (items.length === 1) {
      settle(items[0] as I, { ok: false, failure: rejected(error, noun) }, at);
      return;
    }
    const middle = Math.ceil(items.length / 2);
    await sendSplitting(items.slice(0, middle), send, settle, noun, at);
    await sendSplitting(items.slice(middle), send, settle, noun, at + middle);
    return;
  }
  // Indexed: an entries() iterator allocates a pair per item, 500 items an elevation request.
  for (let i = 0; i < items.length; i++) {
    const result = results[i];
    settle(
      items[i] as I,
      result ?? {
        ok: false,
        failure: { code: 'RESPONSE_INVALID', stage: 'response', message: `the answer has no entry ${i}` },
      },
      at + i,
    );
  }
}

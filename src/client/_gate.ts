/**
 * The hook through which several processes share one rate: the client takes a slot here after
 * its own local slots, and tells it of 429s. The queue's PostgreSQL gate (src/queue/rate.ts)
 * implements it; the client knows nothing of where the shared schedule lives.
 */
import type { InterfaceName } from '../contract/index.js';

export interface SharedGate {
  /**
   * Waits for a start slot for `name` shared with the other processes of the run. Rejects with a
   * fatal GeobatchError (QUEUE_UNUSABLE) when the shared store is gone, or with the signal's reason.
   */
  take(name: InterfaceName, signal?: AbortSignal): Promise<void>;
  /** A 429 from `name` for a request sent at `sentAt` (epoch ms): the shared rate is cut, once per round. */
  throttled(name: InterfaceName, sentAt: number): void;
}

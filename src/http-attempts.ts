/**
 * HTTP attempts counted by whose work made them. The client adds each attempt it counts (retries,
 * hedges, further pages, token requests: as its `requests.total`) to the tally of the async
 * context the attempt was made in; the engine opens such a context around each request of a step
 * of a pipeline, so that each step has its own count and the steps' counts add up to the client's.
 * Shared by the client, which counts, and the engine, which opens the contexts.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** HTTP attempts made for one step's requests. */
export interface HttpAttempts {
  count: number;
}

const current = new AsyncLocalStorage<HttpAttempts>();

/** One HTTP attempt: counted into the tally of the context it is made in, if any. */
export function countHttpAttempt(): void {
  const tally = current.getStore();
  if (tally !== undefined) tally.count++;
}

/** Runs `send`, counting into `tally` the HTTP attempts it makes, however late they come. */
export function countingHttpAttempts<T>(tally: HttpAttempts, send: () => T): T {
  return current.run(tally, send);
}

/**
 * Async iterables that can also hand their items over a batch at a time. Pulling rows one by one
 * through async generators cost about 1.3 µs a row (a promise, an iterator result and a
 * generator resumption per row at each stage, and a race against completions in the engine):
 * more than reading and planning the row. Readers that have their rows in batches anyway (the
 * records of one chunk of lines) offer them through `[BATCHES]`, and the engine takes them so;
 * anything else still works one item at a time.
 */

/**
 * Items a reader puts in one batch. Small: the records of a whole chunk of lines (a thousand and
 * more) made at once were alive together whenever the young generation was collected, and copying
 * them cost more than the batches saved (scavenges of 1.5 -> 4 ms, a cached 100,000-row run 1.37
 * s instead of 1.0); from 32 to 100 items a batch the runs were alike (measured, alternated).
 */
export const BATCH_ITEMS = 64;

export const BATCHES: unique symbol = Symbol('geobatch.batches');

export interface BatchedIterable<T> extends AsyncIterable<T> {
  /** The same items, in the same order, in arrays. Like the items, to be taken once. */
  [BATCHES](): AsyncIterator<readonly T[]>;
}

/** An iterable over batches that also hands out its items one by one. */
export function batched<T>(batches: () => AsyncIterator<readonly T[]>): BatchedIterable<T> {
  return {
    [BATCHES]: batches,
    [Symbol.asyncIterator]: () => flatten(batches()),
  };
}

/** The items of `items` in batches: its own when it has them, else one item per batch. */
export function batchesOf<T>(items: AsyncIterable<T>): AsyncIterator<readonly T[]> {
  const own = (items as Partial<BatchedIterable<T>>)[BATCHES];
  if (typeof own === 'function') return own.call(items);
  const iterator = items[Symbol.asyncIterator]();
  return {
    async next() {
      const next = await iterator.next();
      return next.done === true ? { done: true, value: undefined } : { done: false, value: [next.value] };
    },
    async return() {
      await iterator.return?.();
      return { done: true, value: undefined };
    },
  };
}

async function* flatten<T>(batches: AsyncIterator<readonly T[]>): AsyncGenerator<T> {
  try {
    for (;;) {
      const next = await batches.next();
      if (next.done === true) return;
      yield* next.value;
    }
  } finally {
    await batches.return?.();
  }
}

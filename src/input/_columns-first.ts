/**
 * NDJSON and GeoJSON name their columns by the first readable record, and the CSV and GeoPackage
 * outputs take their columns when the first record is written. Records that come before it and
 * could not be read (`[1,2]`, a Feature without properties) would be written first, with no
 * columns known yet, and every later row's fields would be left out of those outputs. So batches
 * are held back until the columns are known, the input ends, or the hold reaches its bound; then
 * they leave in their order. Rows are counted, positions kept and nothing is lost either way.
 */
import type { ReadItem } from '../types.js';

/** At most this many records, or this many characters of their text, wait for the columns. */
const HOLD_RECORDS = 10_000;
const HOLD_CHARS = 8 * 1024 * 1024;

export async function* columnsFirst(
  batches: AsyncIterable<readonly ReadItem[]>,
  state: { readonly columns: readonly string[] },
): AsyncGenerator<readonly ReadItem[]> {
  const iterator = batches[Symbol.asyncIterator]();
  const held: (readonly ReadItem[])[] = [];
  let records = 0;
  let chars = 0;
  try {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) break;
      held.push(next.value);
      for (const item of next.value) {
        records++;
        chars += item.kind === 'issue' ? (item.raw?.length ?? 0) : 0;
      }
      if (state.columns.length > 0 || records >= HOLD_RECORDS || chars >= HOLD_CHARS) break;
    }
    for (const batch of held.splice(0)) yield batch;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  } finally {
    await iterator.return?.();
  }
}

/**
 * An NDJSON or GeoJSON input's rows watched as the run reads them, before anything else sees
 * them: records may each have keys of their own, so what a CSV header tells before the first row
 * (src/run/mapped-columns.ts) is learnt from the records as they come.
 */
import { batched, batchesOf } from '../batches.js';
import { type InputReader, withItems } from '../input/reader.js';
import type { ReadItem, Row } from '../types.js';

/** One thing watched for; it stops looking (`watching` false) once it has said what it had to. */
export interface RecordWatch {
  readonly watching: boolean;
  check(row: Row): void;
  /** The input has ended. */
  end?(): void;
}

/** The reader with its rows shown to `watches` as they are handed on; itself when none watches. */
export function watchRecords(reader: InputReader, watches: readonly RecordWatch[]): InputReader {
  if (!watches.some((watch) => watch.watching)) return reader;
  return withItems(
    reader,
    batched(() => {
      const batches = batchesOf(reader);
      let active = watches.filter((watch) => watch.watching);
      return {
        async next() {
          const next = await batches.next();
          if (active.length === 0) return next;
          if (next.done === true) for (const watch of active) watch.end?.();
          else
            for (const item of next.value as readonly ReadItem[])
              if (item.kind === 'row') for (const watch of active) watch.check(item);
          active = active.filter((watch) => watch.watching);
          return next;
        },
        async return() {
          // Read no further (a --limit reached): what the records read so far showed is said.
          for (const watch of active) watch.end?.();
          active = [];
          await batches.return?.();
          return { done: true, value: undefined };
        },
      };
    }),
  );
}

/**
 * The GeoPackage column limit (src/output/_gpkg-limit.ts), checked before any request: a CSV
 * input's columns are its header, known when it opens; an NDJSON or GeoJSON input's are the keys
 * of its first readable row, as the writers take them, checked as that row is read and before it
 * is handed on. A run without a GeoPackage output gets its reader back as it was.
 */
import { batched, batchesOf } from '../batches.js';
import { type InputReader, withItems } from '../input/reader.js';
import { checkGpkgColumns } from '../output/_gpkg-limit.js';
import type { OutputSpec } from '../output/files.js';

export function checkOutputColumns(
  reader: InputReader,
  outputs: readonly OutputSpec[],
  jobColumns: readonly string[],
): InputReader {
  const gpkg = outputs.filter((output) => output.format === 'gpkg');
  if (gpkg.length === 0) return reader;
  const check = (columns: readonly string[]) => {
    for (const output of gpkg) checkGpkgColumns(output.path, columns, jobColumns);
  };
  if (reader.columns().length > 0) {
    check(reader.columns());
    return reader;
  }
  return withItems(
    reader,
    batched(() => {
      const batches = batchesOf(reader);
      let checked = false;
      return {
        async next() {
          const next = await batches.next();
          if (!checked && reader.columns().length > 0) {
            checked = true;
            try {
              check(reader.columns());
            } catch (error) {
              await batches.return?.();
              throw error;
            }
          }
          return next;
        },
        async return() {
          await batches.return?.();
          return { done: true, value: undefined };
        },
      };
    }),
  );
}

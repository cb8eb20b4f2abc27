/**
 * A CSV file's header, read as the run reads the file (its encoding, delimiter and limits) and
 * without a row: what `validate` and a run's start check mapped columns against, for the input and
 * for a side input alike.
 */
import { access } from 'node:fs/promises';
import type { InputSpec } from '../config/load.js';
import { openReader } from '../input/open.js';

export async function fileExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The file's header; the file is closed before this returns. */
export async function readHeader(spec: InputSpec): Promise<readonly string[]> {
  const stop = new AbortController();
  try {
    const reader = await openReader({
      path: spec.path,
      format: spec.format,
      encoding: spec.encoding,
      maxRecordBytes: spec.maxRecordBytes,
      csv: { delimiter: spec.delimiter, maxRecordLines: spec.maxRecordLines },
      signal: stop.signal,
    });
    return reader.columns();
  } finally {
    stop.abort();
  }
}

/**
 * A CSV file's header, read as the run reads the file (its encoding, delimiter and limits) and
 * without a row: what `validate` and a run's start check mapped columns against, for the input and
 * for a side input alike.
 */
import { access } from 'node:fs/promises';
import type { InputSpec } from '../config/load.js';
import { openReader } from '../input/open.js';
import type { InputReader } from '../input/reader.js';

export async function fileExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A job file's input (or side input) opened as the run opens it: its encoding, delimiter and limits. */
export function openInput(spec: InputSpec, signal: AbortSignal): Promise<InputReader> {
  return openReader({
    path: spec.path,
    format: spec.format,
    encoding: spec.encoding,
    maxRecordBytes: spec.maxRecordBytes,
    csv: { delimiter: spec.delimiter, maxRecordLines: spec.maxRecordLines },
    signal,
  });
}

/** The file's header; the file is closed before this returns. */
export async function readHeader(spec: InputSpec): Promise<readonly string[]> {
  return (await readStart(spec, false)).header;
}

/**
 * The file's header, and whether a record follows it (read only when `record`: a side input must
 * hold one, and its first is as far as this reads). The file is closed before this returns.
 */
export async function readStart(
  spec: InputSpec,
  record = true,
): Promise<{ header: readonly string[]; hasRecord: boolean }> {
  const stop = new AbortController();
  try {
    const reader = await openInput(spec, stop.signal);
    if (!record) return { header: reader.columns(), hasRecord: false };
    const first = await reader[Symbol.asyncIterator]().next();
    return { header: reader.columns(), hasRecord: first.done !== true };
  } finally {
    stop.abort();
  }
}

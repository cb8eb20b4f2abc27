/** Opens an input by format: the one entry point the run uses. */
import { UsageError } from '../errors.js';
import type { ReadItem } from '../types.js';
import { openSource } from './_source.js';
import { readCsv } from './csv.js';
import { readGeojson } from './geojson.js';
import { readNdjson } from './ndjson.js';
import type { InputFormat, InputReader, ReaderOptions } from './reader.js';

/** Reader defaults, validated once here. */
const DEFAULTS = {
  /** Most files are UTF-8; spreadsheets exported on Windows are often windows-1252. */
  encoding: 'utf-8',
  delimiter: 'auto',
  relaxQuotes: false,
  /** Far above any real field, far below what would exhaust memory. */
  maxFieldBytes: 16 * 1024 * 1024,
} as const;

const ENCODINGS = new Set(['utf-8', 'latin1', 'windows-1252']);
const DELIMITERS = new Set(['auto', ',', ';', '\t', '|']);

export async function openReader(options: ReaderOptions): Promise<InputReader> {
  const encoding = options.encoding ?? DEFAULTS.encoding;
  const delimiter = options.csv?.delimiter ?? DEFAULTS.delimiter;
  const maxFieldBytes = options.csv?.maxFieldBytes ?? DEFAULTS.maxFieldBytes;
  if (!ENCODINGS.has(encoding)) throw invalid('encoding', 'one of utf-8, latin1, windows-1252', encoding);
  if (!DELIMITERS.has(delimiter)) throw invalid('delimiter', "one of auto , ; '\\t' |", delimiter);
  if (!Number.isInteger(maxFieldBytes) || maxFieldBytes <= 0) {
    throw invalid('maxFieldBytes', 'a positive integer', maxFieldBytes);
  }
  const onWarning = options.onWarning ?? (() => {});
  const source = await openSource(options.path, { signal: options.signal, stdin: options.stdin });
  const state = { columns: [] as readonly string[], truncated: false };
  let used = false;
  function items(): AsyncGenerator<ReadItem> {
    if (used) throw new UsageError(`Input ${options.path} can only be read once`);
    used = true;
    switch (options.format) {
      case 'csv':
        return readCsv(
          source,
          {
            delimiter,
            relaxQuotes: options.csv?.relaxQuotes ?? DEFAULTS.relaxQuotes,
            maxFieldBytes,
            encoding,
            onWarning,
          },
          state,
        );
      case 'ndjson':
        return readNdjson(source, encoding, onWarning, state);
      case 'geojson':
        return readGeojson(source, encoding, onWarning, state);
    }
  }
  return {
    path: options.path,
    format: options.format,
    sizeBytes: source.size,
    mtimeMs: source.mtimeMs,
    bytesRead: source.bytesRead,
    columns: () => state.columns,
    truncated: () => state.truncated,
    [Symbol.asyncIterator]: items,
  };
}

function invalid(name: string, expected: string, got: unknown): UsageError {
  return new UsageError(`Expected \`${name}\` to be ${expected}, got \`${String(got)}\``, {
    expected,
    received: String(got),
  });
}

/** The format a path's extension suggests, or undefined. */
export function formatFromPath(path: string): InputFormat | undefined {
  const lower = path.toLowerCase();
  if (/\.(csv|tsv|txt)$/.test(lower)) return 'csv';
  if (/\.(ndjson|jsonl|geojsonl|geojsons)$/.test(lower)) return 'ndjson';
  if (/\.(geojson|json)$/.test(lower)) return 'geojson';
  return undefined;
}

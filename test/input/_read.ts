import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openReader } from '../../src/input/open.js';
import type { InputReader, ReaderOptions } from '../../src/input/reader.js';
import type { ReadItem } from '../../src/types.js';
import { madeTempDir } from '../fixtures/temp-dirs.js';

export function tempFile(content: string | Buffer, name = 'input'): string {
  const dir = madeTempDir('geobatch-input-');
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

export async function collect(reader: InputReader): Promise<ReadItem[]> {
  const items: ReadItem[] = [];
  for await (const item of reader) items.push(item);
  return items;
}

type Extra = Omit<ReaderOptions, 'path' | 'format'>;

/** Reads `content` from a temporary file. */
export async function readText(content: string | Buffer, format: ReaderOptions['format'], extra: Extra = {}) {
  const warnings: string[] = [];
  const reader = await openReader({
    path: tempFile(content),
    format,
    onWarning: (m) => warnings.push(m),
    ...extra,
  });
  const items = await collect(reader);
  return { reader, items, warnings };
}

/** Reads exactly these chunks through `-` (standard input), so tests control chunk boundaries. */
export async function readChunks(chunks: Buffer[], format: ReaderOptions['format'], extra: Extra = {}) {
  const reader = await openReader({ path: '-', format, stdin: Readable.from(chunks), ...extra });
  return { reader, items: await collect(reader) };
}

/** Index, line and kind of each item, for exact comparisons. */
export function shape(items: readonly ReadItem[]): string[] {
  return items.map((item) => `${item.ref.index}@${item.ref.line}:${item.kind}`);
}

export function fieldsOf(items: readonly ReadItem[]): unknown[] {
  return items.map((item) => (item.kind === 'row' ? { ...item.fields } : item.code));
}

export function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** A small deterministic generator (mulberry32), so that "random" inputs are the same every run. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A source that sends `prefix`, then `chunk` `times` times, then `suffix`, calling `sample` every
 * 32 chunks: a huge record costs the test no memory of its own, and the sample shows what the
 * reader holds while it is in the middle of that record.
 */
export function hugeRecord(
  prefix: string,
  chunk: Buffer,
  times: number,
  suffix: string,
  sample: () => void,
): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    yield Buffer.from(prefix);
    for (let i = 0; i < times; i++) {
      if (i > 0 && i % 32 === 0) sample();
      yield chunk;
    }
    yield Buffer.from(suffix);
  }
  return Readable.from(chunks(), { objectMode: false, highWaterMark: 1 });
}
